// memory_figure, throughput_figure and pareto_figure (reports/plots.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "reports/plot_style.h"
#include "reports/plots.h"
#include "reports/report_format.h"

namespace zs::reports {
namespace {

using plot::num;

constexpr const char* kCategoryNames[] = {"parameters",  "gradients", "optimizer states",
                                          "activations", "buffers",   "other"};

std::vector<std::int64_t> categories(const MemoryBreakdown& b) {
  return {b.params_bytes,      b.grads_bytes,   b.optimizer_states_bytes,
          b.activations_bytes, b.buffers_bytes, b.other_bytes};
}

// Capacity and the usable part of it as dashed and dotted horizontal lines, for the legend and
// the plot command.
void add_capacity_lines(const SweepTable& t, const Units& u, plot::SwatchLegend* legend) {
  const double cap = u.mem(gpu_capacity_bytes(t));
  legend->add_line("GPU capacity (" + fixed(cap, 0) + " " + u.bytes + ")", 2, 2, "#000000");
  legend->add_line("less " + fixed(100 * t.base.headroom, 0) + "% headroom", 3, 2, "#555555");
}

std::string capacity_plot_elements(const SweepTable& t, const Units& u) {
  const double cap = u.mem(gpu_capacity_bytes(t));
  return num(cap) + " with lines dt 2 lw 2 lc rgb \"#000000\" notitle, \\\n  " +
         num(cap * (1 - t.base.headroom)) + " with lines dt 3 lw 2 lc rgb \"#555555\" notitle";
}

// Vertical lines at the GPU's capacity (dashed) and the usable part of it (dotted), for plots
// with memory on x.
std::string capacity_arrows(const SweepTable& t, const Units& u) {
  const double cap = u.mem(gpu_capacity_bytes(t));
  const double usable = cap * (1 - t.base.headroom);
  return "set arrow 1 from " + num(cap) + ", graph 0 to " + num(cap) +
         ", graph 1 nohead dt 2 lw 2 lc rgb \"#000000\"\n"
         "set arrow 2 from " +
         num(usable) + ", graph 0 to " + num(usable) +
         ", graph 1 nohead dt 3 lw 2 lc rgb \"#555555\"\n"
         "set label 1 \"GPU capacity\" at " +
         num(cap) + ", graph 0.5 rotate by 90 offset -1,0 center front\n";
}

std::string omitted(const std::string& what, const std::string& why) {
  return what + " is omitted: " + why + ".";
}

}  // namespace

Figure memory_figure(const SweepTable& t) {
  Figure f;
  f.id = "memory";
  f.heading = "Memory per GPU at the peak";
  std::vector<const SweepRow*> rows = valid_rows_in_order(t);
  if (rows.empty()) {
    f.note = omitted("The memory breakdown", "no variant ran");
    return f;
  }
  const std::size_t total = rows.size();
  if (rows.size() > static_cast<std::size_t>(kMaxBars)) rows.resize(kMaxBars);
  const Units u = report_units(t);
  f.note =
      "What holds each variant's per-GPU peak, stacked (" + u.bytes + " = 2^" +
      (u.bytes == "GiB" ? "30" : "20") +
      " bytes); the dashed line "
      "is the GPU's capacity, the dotted one the capacity less the headroom kept free. Shown: " +
      std::string(total > rows.size() ? "the " + std::to_string(rows.size()) + " best-ranked of " +
                                            std::to_string(total) + " variants, "
                                      : "") +
      "the variants by rank, then by step time.";

  std::vector<std::string> lines;
  double top = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    std::string line = std::to_string(i) + " " + plot::quoted(variant_name(*rows[i]));
    std::int64_t sum = 0;
    for (std::int64_t b : categories(rows[i]->result->breakdown)) {
      sum += b;
      line += " " + num(u.mem(sum));
    }
    top = std::max(top, u.mem(sum));
    lines.push_back(line);
  }
  // The capacity lines when they are near the bars: a capacity far above every peak would
  // flatten the bars at the bottom of the plot.
  const double cap = u.mem(gpu_capacity_bytes(t));
  const bool show_capacity = capacity_near(cap, top);
  if (show_capacity) {
    top = std::max(top, cap);
  } else {
    f.note += " Every peak is far below the GPU's " + fixed(cap, 0) + " " + u.bytes +
              ", so its capacity is not drawn.";
  }
  plot::SwatchLegend legend;
  for (int c = 0; c < plot::kFillCount; ++c)
    legend.add_fill(kCategoryNames[c], plot::fill_style(c));
  if (show_capacity) add_capacity_lines(t, u, &legend);

  std::string s = plot::preamble();
  s += plot::labels("GPU memory at the peak, per variant", "variant (#id, as in the table)",
                    "memory per GPU (" + u.bytes + ")");
  s += plot::datablock("mem", lines);
  s += legend.script();
  s += "set xrange [-0.6:" + num(static_cast<double>(rows.size()) - 0.4) + "]\n";
  s += "set yrange [0:" + num(top * 1.08) + "]\n";
  if (rows.size() > 16) s += "set xtics rotate by 90 right\n";
  s += "plot ";
  for (int c = 0; c < plot::kFillCount; ++c) {
    const std::string lo = c == 0 ? "(0)" : std::to_string(2 + c);
    const std::string cols = "1:(0):($1-0.38):($1+0.38):" + lo + ":" + std::to_string(3 + c) +
                             (c == 0 ? ":xtic(2)" : "");
    s += plot::filled_boxes("$mem", cols, plot::fill_style(c)) +
         (c + 1 < plot::kFillCount || show_capacity ? ", \\\n  " : "");
  }
  s += (show_capacity ? capacity_plot_elements(t, u) : std::string()) + "\n";
  f.script = s;

  Table table;
  table.caption = "Per-GPU memory at the peak (" + u.bytes + ")";
  table.header = {"variant"};
  for (const std::string& h : knob_headers(t)) table.header.push_back(h);
  for (const char* c : kCategoryNames) table.header.push_back(c);
  table.header.insert(table.header.end(), {"peak", "± peak (%)", "fits"});
  for (const SweepRow* r : rows) {
    std::vector<Cell> row = {number_cell(variant_name(*r), r->id)};
    for (Cell& c : knob_cells(*r)) row.push_back(std::move(c));
    for (std::int64_t b : categories(r->result->breakdown)) row.push_back(mem_cell(b, u));
    row.push_back(mem_cell(r->result->peak_bytes, u));
    row.push_back(percent_cell(r->result->memory_band));
    row.push_back(text_cell(fits_text(*r)));
    table.rows.push_back(std::move(row));
  }
  f.tables.push_back(std::move(table));
  return f;
}

Figure throughput_figure(const SweepTable& t) {
  Figure f;
  f.id = "throughput";
  f.heading = "Throughput against micro-batch";
  // (stage, micro-batch) -> the fastest variant that fits.
  std::map<std::pair<int, std::int64_t>, const SweepRow*> best;
  std::map<std::int64_t, int> micro_batches;
  for (const SweepRow& r : t.rows) {
    if (!r.result || !r.feasible) continue;
    const auto key = std::make_pair(r.result->zero_stage, r.result->micro_batch_per_gpu);
    auto [it, inserted] = best.emplace(key, &r);
    if (!inserted && r.result->tokens_per_s > it->second->result->tokens_per_s) it->second = &r;
    ++micro_batches[r.result->micro_batch_per_gpu];
  }
  if (micro_batches.size() < 2) {
    f.note =
        omitted("Throughput against micro-batch",
                micro_batches.empty() ? "no variant fits" : "fewer than two micro-batch sizes fit");
    return f;
  }
  f.note =
      "Cluster throughput of the fastest variant that fits, per ZeRO stage and micro-batch "
      "per GPU (its other knobs as in the table); the error bars are each prediction's "
      "uncertainty band, the measured error of its regime.";
  std::map<int, std::vector<std::string>> series;
  for (const auto& [key, r] : best) {
    series[key.first].push_back(num(static_cast<double>(key.second)) + " " +
                                num(r->result->tokens_per_s / 1e3) + " " +
                                num(r->result->tokens_per_s * r->result->time_band / 1e3));
  }
  const double lo = static_cast<double>(micro_batches.begin()->first);
  const double hi = static_cast<double>(micro_batches.rbegin()->first);
  std::string s = plot::preamble();
  s += plot::labels("Throughput against micro-batch, per ZeRO stage",
                    "micro-batch per GPU (samples)", "throughput (thousand tokens/s, all GPUs)");
  std::string tics;
  for (const auto& [mb, n] : micro_batches) {
    tics +=
        (tics.empty() ? "" : ", ") + plot::quoted(std::to_string(mb)) + " " + std::to_string(mb);
  }
  s += "set xtics (" + tics + ")\n";
  if (lo > 0 && hi / lo >= 4) {
    s += "set logscale x 2\nset xrange [" + num(lo / 1.3) + ":" + num(hi * 1.3) + "]\n";
  } else {
    const double pad = std::max(0.5, (hi - lo) * 0.08);
    s += "set xrange [" + num(lo - pad) + ":" + num(hi + pad) + "]\n";
  }
  s += "set yrange [0:*]\nset key top left box opaque\n";
  std::string plots;
  int i = 0;
  for (const auto& [stage, lines] : series) {
    s += plot::datablock("s" + std::to_string(stage), lines);
    plots += (plots.empty() ? "plot " : ", \\\n  ") + std::string("$s") + std::to_string(stage) +
             " using 1:2:3 with yerrorlines " + plot::line_spec(plot::line_style(i++)) + " title " +
             plot::quoted("ZeRO-" + std::to_string(stage));
  }
  f.script = s + plots + "\n";

  Table table;
  table.caption = "The fastest variant that fits, per ZeRO stage and micro-batch";
  const Units u = report_units(t);
  table.header = {"ZeRO stage", "micro-batch", "tokens/s",
                  "± time (%)", "samples/s",   u.flops + " per GPU",
                  "MFU (%)",    "step (ms)",   "peak (" + u.bytes + ")",
                  "± peak (%)", "variant"};
  for (const auto& [key, r] : best) {
    const VariantResult& v = *r->result;
    table.rows.push_back({count_cell(key.first), count_cell(static_cast<double>(key.second)),
                          count_cell(v.tokens_per_s), percent_cell(v.time_band),
                          count_cell(v.samples_per_s, 2), rate_cell(v.tflops_per_gpu, u),
                          percent_cell(v.mfu), ms_cell(v.step_s), mem_cell(v.peak_bytes, u),
                          percent_cell(v.memory_band),
                          keyed_text_cell(variant_description(t, *r), r->id)});
  }
  f.tables.push_back(std::move(table));
  return f;
}

Figure pareto_figure(const SweepTable& t) {
  Figure f;
  f.id = "pareto";
  f.heading = "Step time against memory: the Pareto front";
  const std::vector<const SweepRow*> rows = valid_rows_in_order(t);
  if (rows.size() < 2) {
    f.note = omitted("The Pareto plot", "it needs two variants that ran");
    return f;
  }
  f.note =
      "Every variant that ran (circles fit, crosses do not); the line joins the Pareto front, "
      "the variants no other beats on both step time and memory; the diamond is the winner.";
  std::vector<std::string> fits, oom, front, winner;
  const Units u = report_units(t);
  const double cap = u.mem(gpu_capacity_bytes(t));
  double right = 0;
  for (const SweepRow* r : rows) {
    right = std::max(right, u.mem(r->result->peak_bytes));
    const std::string point =
        num(u.mem(r->result->peak_bytes)) + " " + num(to_ms(r->result->step_s));
    (r->feasible ? fits : oom).push_back(point);
  }
  for (int id : t.pareto) {
    const SweepRow& r = *t.row(id);
    front.push_back(num(u.mem(r.result->peak_bytes)) + " " + num(to_ms(r.result->step_s)));
  }
  if (t.best) {
    const SweepRow& r = *t.row(*t.best);
    winner.push_back(num(u.mem(r.result->peak_bytes)) + " " + num(to_ms(r.result->step_s)) + " " +
                     plot::quoted("best " + variant_name(r)));
  }
  std::string s = plot::preamble();
  s += plot::labels("Step time against per-GPU peak memory",
                    "peak memory per GPU (" + u.bytes + ")", "step time (ms)");
  // The capacity lines when they are near the data: a capacity far beyond every peak would
  // squeeze the points into the left of the plot.
  const bool show_capacity = capacity_near(cap, right);
  if (show_capacity) right = std::max(right, cap);
  s +=
      "set key outside right top box\nset xrange [0:" + num(right * 1.05) + "]\nset yrange [0:*]\n";
  if (show_capacity) {
    s += capacity_arrows(t, u);
  } else {
    f.note += " Every peak is far below the GPU's " + fixed(cap, 0) + " " + u.bytes + ".";
  }
  std::string plots;
  auto add = [&](const std::string& name, const std::vector<std::string>& lines,
                 const std::string& style) {
    if (lines.empty()) return;
    s += plot::datablock(name, lines);
    plots += (plots.empty() ? "plot " : ", \\\n  ") + ("$" + name) + " " + style;
  };
  add("fits", fits, "using 1:2 with points pt 6 ps 1 lc rgb \"#777777\" title \"fits\"");
  add("oom", oom, "using 1:2 with points pt 2 ps 1 lc rgb \"#999999\" title \"does not fit\"");
  add("front", front,
      "using 1:2 with linespoints lc rgb \"#000000\" dt 1 lw 2 pt 7 ps 1 title \"Pareto front\"");
  add("best", winner,
      "using 1:2 with points pt 13 ps 2.5 lc rgb \"#440154\" title \"winner\", \\\n  $best "
      "using 1:2:3 with labels offset 1.5,1 left notitle");
  f.script = s + plots + "\n";

  Table table;
  table.caption = "The Pareto front, by peak memory";
  table.header = {"variant"};
  for (const std::string& h : knob_headers(t)) table.header.push_back(h);
  table.header.insert(table.header.end(), {"peak (" + u.bytes + ")", "± peak (%)", "step (ms)",
                                           "tokens/s", "± time (%)", "fits", "winner"});
  for (int id : t.pareto) {
    const SweepRow& r = *t.row(id);
    std::vector<Cell> row = {number_cell(variant_name(r), r.id)};
    for (Cell& c : knob_cells(r)) row.push_back(std::move(c));
    row.insert(row.end(), {mem_cell(r.result->peak_bytes, u), percent_cell(r.result->memory_band),
                           ms_cell(r.result->step_s), count_cell(r.result->tokens_per_s),
                           percent_cell(r.result->time_band), text_cell(fits_text(r)),
                           text_cell(t.best == id ? "yes" : "")});
    table.rows.push_back(std::move(row));
  }
  f.tables.push_back(std::move(table));
  return f;
}

}  // namespace zs::reports
