// knob_figures (reports/plots.h): step time and per-GPU peak against each varied knob.
#include <algorithm>
#include <cmath>

#include "reports/plot_style.h"
#include "reports/plots.h"
#include "reports/report_format.h"

namespace zs::reports {
namespace {

using json::Json;
using plot::num;

// The row whose other knobs the slice follows: the winner, or else the fastest valid row.
const SweepRow* reference_row(const SweepTable& t) {
  if (t.best) return t.row(*t.best);
  const SweepRow* out = nullptr;
  for (const SweepRow& r : t.rows) {
    if (r.result && (out == nullptr || r.result->step_s < out->result->step_s)) out = &r;
  }
  return out;
}

// The knob's distinct values among valid rows: in the order "varied" lists them, then any
// others in row order.
std::vector<Json> distinct_values(const SweepTable& t, std::size_t k) {
  std::vector<Json> seen;
  for (const SweepRow& r : t.rows) {
    if (r.result && std::find(seen.begin(), seen.end(), r.values[k]) == seen.end()) {
      seen.push_back(r.values[k]);
    }
  }
  std::vector<Json> out;
  for (const Json& v : t.varied[k].values) {
    if (std::find(seen.begin(), seen.end(), v) != seen.end() &&
        std::find(out.begin(), out.end(), v) == out.end()) {
      out.push_back(v);
    }
  }
  for (const Json& v : seen) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

bool same_except(const SweepRow& a, const SweepRow& b, std::size_t k) {
  for (std::size_t j = 0; j < a.values.size(); ++j) {
    if (j != k && a.values[j] != b.values[j]) return false;
  }
  return true;
}

// An HTML id from a knob key: lowercase letters and digits, other runs as '-'.
std::string slug(std::string_view key) {
  std::string out;
  for (char c : key) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (c >= 'A' && c <= 'Z') {
      out += static_cast<char>(c - 'A' + 'a');
    } else if (alnum) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  return out;
}

struct Axis {
  bool numeric = true;
  std::vector<Json> values;
  double x(const Json& v) const {
    if (numeric) return v.get<double>();
    return static_cast<double>(std::find(values.begin(), values.end(), v) - values.begin());
  }
};

std::string x_axis_script(const Axis& axis) {
  std::string tics;
  for (const Json& v : axis.values) {
    const std::string label =
        axis.numeric ? plot::short_number(v.get<double>()) : knob_value_text(v);
    tics += (tics.empty() ? "" : ", ") + plot::quoted(label) + " " + num(axis.x(v));
  }
  std::string s = "set xtics (" + tics + ")\n";
  if (axis.values.size() > 8) s += "set xtics rotate by 45 right\n";
  if (!axis.numeric) {
    return s + "set xrange [-0.5:" + num(static_cast<double>(axis.values.size()) - 0.5) + "]\n";
  }
  double lo = 1e308, hi = -1e308;
  for (const Json& v : axis.values) {
    lo = std::min(lo, v.get<double>());
    hi = std::max(hi, v.get<double>());
  }
  if (lo > 0 && hi / lo >= 10) {
    return s + "set logscale x\nset xrange [" + num(lo / 1.5) + ":" + num(hi * 1.5) + "]\n";
  }
  const double pad = std::max((hi - lo) * 0.08, std::fabs(hi) * 0.05 + 0.5);
  return s + "set xrange [" + num(lo - pad) + ":" + num(hi + pad) + "]\n";
}

// The panel's plot command; `column` 2 is step time, 3 peak memory.
std::string panel_plot(int column, bool has_fit, bool has_oom, const SweepRow& ref, bool winner) {
  const std::string c = "1:" + std::to_string(column);
  std::string s = "plot ";
  if (has_fit) {
    s += "$fit using " + c +
         " with points pt 6 ps 1 lc rgb \"#888888\" title \"variants that fit\", \\\n  ";
  }
  if (has_oom) {
    s += "$oom using " + c +
         " with points pt 2 ps 1 lc rgb \"#aaaaaa\" title \"variants that do not fit\", \\\n  ";
  }
  const std::string band = std::to_string(column + 2);
  s += "$slice using " + c + ":" + band + " with yerrorlines " +
       plot::line_spec(plot::line_style(0)) + " title " +
       plot::quoted("other knobs as in " + variant_name(ref));
  s += ", \\\n  $ref using " + c + " with points pt 13 ps 2.2 lc rgb \"#440154\" title " +
       plot::quoted(variant_name(ref) + (winner ? " (the winner)" : " (the fastest)"));
  return s + "\n";
}

Figure knob_figure(const SweepTable& t, std::size_t k, const SweepRow& ref) {
  const std::string& key = t.varied[k].key;
  Figure f;
  f.id = "knob-" + std::to_string(k) + "-" + slug(key);
  f.heading = "Step time and memory against " + key;
  Axis axis;
  axis.values = distinct_values(t, k);
  if (axis.values.size() < 2) {
    f.note = "The plot against " + key + " is omitted: " +
             (axis.values.empty()
                  ? std::string("no variant ran")
                  : "only one of its values ran (" + knob_value_text(axis.values[0]) + ")") +
             ".";
    return f;
  }
  for (const Json& v : axis.values) axis.numeric = axis.numeric && v.is_number();
  f.note = "Left, step time; right, per-GPU peak, against " + key +
           ". Grey: every variant "
           "(circles fit, crosses do not); the line: the variants whose other knobs are those of " +
           variant_name(ref) + (t.best ? ", the winner" : ", the fastest") +
           ", its error bars the prediction's uncertainty band. Near the peaks, the dashed line is "
           "the GPU's capacity, the dotted one that less the headroom.";

  const Units u = report_units(t);
  std::vector<std::string> fit, oom, slice, reference;
  std::vector<const SweepRow*> slice_rows;
  // x, step (ms), peak (u.bytes), and each one's band (sim/uncertainty.h), drawn as error bars.
  auto point = [&](const SweepRow& r) {
    const VariantResult& v = *r.result;
    return num(axis.x(r.values[k])) + " " + num(to_ms(v.step_s)) + " " + num(u.mem(v.peak_bytes)) +
           " " + num(to_ms(v.step_s) * v.time_band) + " " +
           num(u.mem(v.peak_bytes) * v.memory_band);
  };
  double top_mem = 0;
  double step_lo = 1e308, step_hi = 0;  // ms, bands included
  for (const SweepRow& r : t.rows) {
    if (!r.result) continue;
    (r.feasible ? fit : oom).push_back(point(r));
    top_mem = std::max(top_mem, u.mem(r.result->peak_bytes));
    const double ms = to_ms(r.result->step_s);
    step_lo = std::min(step_lo, ms * (1 - r.result->time_band));
    step_hi = std::max(step_hi, ms * (1 + r.result->time_band));
    if (same_except(r, ref, k)) slice_rows.push_back(&r);
  }
  std::stable_sort(slice_rows.begin(), slice_rows.end(), [&](const SweepRow* a, const SweepRow* b) {
    return axis.x(a->values[k]) < axis.x(b->values[k]);
  });
  for (const SweepRow* r : slice_rows) slice.push_back(point(*r));
  reference.push_back(point(ref));

  std::string s = plot::preamble(plot::kWidthPx, 400);
  s += plot::datablock("slice", slice) + plot::datablock("ref", reference);
  if (!fit.empty()) s += plot::datablock("fit", fit);
  if (!oom.empty()) s += plot::datablock("oom", oom);
  // Two panels side by side at fixed places, and the key to the right of both, where it
  // covers no point.
  s += "set multiplot title " + plot::quoted(key + ": step time and memory") + " font \",13\"\n";
  s += "set tmargin at screen 0.8\nset bmargin at screen " +
       num(axis.values.size() > 8 ? 0.26 : 0.16) + "\n";
  s += x_axis_script(axis);
  // Step times within a third of each other start the axis near them, not at 0, where the
  // differences (and their bands) would be flat lines.
  const bool close = step_hi > 0 && step_lo > 0 && step_hi < 1.33 * step_lo;
  s += close ? "set yrange [" + num(step_lo * 0.97) + ":" + num(step_hi * 1.03) + "]\nunset key\n"
             : "set yrange [0:*]\nunset key\n";
  s += "set lmargin at screen 0.11\nset rmargin at screen 0.39\n";
  s += plot::labels("step time", knob_axis_label(key), "step time (ms)");
  s += panel_plot(2, !fit.empty(), !oom.empty(), ref, t.best.has_value());
  s += "set yrange [0:*]\n";
  s += "set lmargin at screen 0.49\nset rmargin at screen 0.77\n";
  s += "set key at screen 0.79, screen 0.8 left top Left reverse samplen 2\n";
  s += plot::labels("peak memory per GPU", knob_axis_label(key),
                    "peak memory per GPU (" + u.bytes + ")");
  const double cap = u.mem(gpu_capacity_bytes(t));
  if (capacity_near(cap, top_mem)) {
    s += "set yrange [0:" + num(std::max(cap, top_mem) * 1.05) + "]\n";
    s += "set arrow 1 from graph 0, first " + num(cap) + " to graph 1, first " + num(cap) +
         " nohead dt 2 lw 2 lc rgb \"#000000\"\n";
    s += "set arrow 2 from graph 0, first " + num(cap * (1 - t.base.headroom)) +
         " to graph 1, first " + num(cap * (1 - t.base.headroom)) +
         " nohead dt 3 lw 2 lc rgb \"#555555\"\n";
  }
  s += panel_plot(3, !fit.empty(), !oom.empty(), ref, t.best.has_value());
  s += "unset multiplot\n";
  f.script = s;

  Table table;
  table.caption = "Against " + key + ": the variants whose other knobs are those of " +
                  variant_name(ref) + ", and the fastest variant that fits for each value";
  table.header = {
      key,          "variant", "step (ms)",         "± time (%)",    "peak (" + u.bytes + ")",
      "± peak (%)", "fits",    "fastest that fits", "its step (ms)", "its peak (" + u.bytes + ")"};
  for (const Json& v : axis.values) {
    std::vector<Cell> row = {v.is_number()
                                 ? number_cell(plot::short_number(v.get<double>()), v.get<double>())
                                 : text_cell(knob_value_text(v))};
    const auto in_slice = std::find_if(slice_rows.begin(), slice_rows.end(),
                                       [&](const SweepRow* r) { return r->values[k] == v; });
    if (in_slice != slice_rows.end()) {
      const SweepRow& r = **in_slice;
      row.insert(row.end(), {number_cell(variant_name(r), r.id), ms_cell(r.result->step_s),
                             percent_cell(r.result->time_band), mem_cell(r.result->peak_bytes, u),
                             percent_cell(r.result->memory_band), text_cell(fits_text(r))});
    } else {
      row.insert(row.end(), {text_cell("-"), text_cell("-"), text_cell("-"), text_cell("-"),
                             text_cell("-"), text_cell("-")});
    }
    const SweepRow* fastest = nullptr;
    for (const SweepRow& r : t.rows) {
      if (r.result && r.feasible && r.values[k] == v &&
          (fastest == nullptr || r.result->step_s < fastest->result->step_s)) {
        fastest = &r;
      }
    }
    if (fastest != nullptr) {
      row.insert(row.end(),
                 {keyed_text_cell(variant_description(t, *fastest), fastest->id),
                  ms_cell(fastest->result->step_s), mem_cell(fastest->result->peak_bytes, u)});
    } else {
      row.insert(row.end(), {text_cell("none fits"), text_cell("-"), text_cell("-")});
    }
    table.rows.push_back(std::move(row));
  }
  f.tables.push_back(std::move(table));
  return f;
}

}  // namespace

std::vector<Figure> knob_figures(const SweepTable& t) {
  std::vector<Figure> out;
  const SweepRow* ref = reference_row(t);
  if (ref == nullptr) return out;
  for (std::size_t k = 0; k < t.varied.size(); ++k) out.push_back(knob_figure(t, k, *ref));
  return out;
}

}  // namespace zs::reports
