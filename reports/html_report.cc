#include "reports/html_report.h"

#include "common/units.h"
#include "reports/html_page.h"
#include "reports/plot_style.h"
#include "reports/plots.h"
#include "reports/report_format.h"

namespace zs::reports {
namespace {

using html::escape;

std::string fact(const std::string& name, const std::string& value) {
  return "<dt>" + escape(name) + "</dt><dd>" + escape(value) + "</dd>\n";
}

std::string count_rows(const SweepTable& t) {
  int ran = 0, fit = 0, invalid = 0;
  for (const SweepRow& r : t.rows) {
    ran += r.valid ? 1 : 0;
    fit += r.valid && r.feasible ? 1 : 0;
    invalid += r.valid ? 0 : 1;
  }
  return std::to_string(t.rows.size()) + " variant(s): " + std::to_string(ran) + " ran, " +
         std::to_string(fit) + " fit, " + std::to_string(invalid) + " invalid";
}

std::string facts(const SweepTable& t) {
  std::string s = "<dl class=\"facts\">\n";
  s += fact("command", "zerosim " + t.command);
  s += fact("config", t.base.config);
  s += fact("model", t.base.model);
  s += fact("cluster", t.base.cluster);
  s += fact("GPU", t.base.gpu + ", " + fixed(to_gib(gpu_capacity_bytes(t)), 1) + " GiB");
  s += fact("world size", std::to_string(t.base.world_size) + " GPUs");
  s += fact("sequence length", std::to_string(t.base.seq_len) + " tokens");
  s += fact("headroom", fixed(100 * t.base.headroom, 0) + "% of each GPU kept free");
  for (const Knob& k : t.varied) {
    std::string values;
    for (const json::Json& v : k.values)
      values += (values.empty() ? "" : ", ") +
                (v.is_number() ? plot::short_number(v.get<double>()) : knob_value_text(v));
    s += fact("varied " + k.key, values);
  }
  s += fact("variants", count_rows(t));
  return s + "</dl>\n";
}

std::string winner_section(const SweepTable& t) {
  std::string s = "<h3>Winner</h3>\n";
  if (!t.best) {
    s += "<p>No variant fits the GPU with the headroom kept free.</p>\n";
  } else {
    const SweepRow& b = *t.row(*t.best);
    const VariantResult& v = *b.result;
    const Units u = report_units(t);
    const std::string time_pm = " " + format_band(v.time_band);
    s += "<p><strong>" + escape(variant_description(t, b)) + "</strong>: step " +
         escape(fixed(to_ms(v.step_s), 1)) + " ms" + time_pm + ", " +
         escape(fixed(v.tokens_per_s, 0)) + " tokens/s" + time_pm + ", " +
         escape(fixed(u.rate(v.tflops_per_gpu), 1)) + " " + u.flops + " per GPU (MFU " +
         escape(fixed(100 * v.mfu, 1)) + "%), peak " + escape(fixed(u.mem(v.peak_bytes), 2)) + " " +
         u.bytes + " " + format_band(v.memory_band) + " per GPU.</p>\n";
    for (const SweepRow& r : t.rows) {
      if (!r.baseline || r.id == b.id) continue;
      if (!r.result) {
        s += "<p>The baseline (" + escape(variant_name(r)) + ") is invalid.</p>\n";
      } else {
        const double gain =
            r.result->tokens_per_s > 0 ? v.tokens_per_s / r.result->tokens_per_s : 0;
        s += "<p>The baseline, the config as given (" + escape(variant_description(t, r)) +
             "), runs at " + escape(fixed(r.result->tokens_per_s, 0)) + " tokens/s " +
             format_band(r.result->time_band) + " (the winner: " + escape(fixed(gain, 2)) +
             "x that) with a " + escape(fixed(to_ms(r.result->step_s), 1)) +
             " ms step, and peaks at " + escape(fixed(u.mem(r.result->peak_bytes), 2)) + " " +
             u.bytes + " " + format_band(r.result->memory_band) +
             " per GPU (fits: " + escape(fits_text(r)) + ").</p>\n";
      }
    }
    if (!v.bottleneck.empty()) s += "<p>" + escape(v.bottleneck) + "</p>\n";
  }
  if (!t.why.empty()) {
    s += "<ul class=\"why\">\n";
    for (const std::string& w : t.why) s += "<li>" + escape(w) + "</li>\n";
    s += "</ul>\n";
  }
  return s;
}

std::string tuned_config_section(const ReportInputs& in) {
  std::string s = "<h3>Tuned config</h3>\n";
  if (!in.tuned_config) {
    return s + "<p class=\"omitted\">No tuned config: " + escape(in.tuned_config_path) +
           " does not exist (it is written only when a variant fits).</p>\n";
  }
  const auto& args = in.table.trainer_args;
  const auto& needs = in.table.best_config_needs;
  std::string status;
  if (!args || !needs) {
    status =
        ", written before zerosim checked tuned configs against the HF Trainer: re-run the "
        "sweep for its launch flags";
  } else if (needs->empty()) {
    status =
        ", ready to use with the HF Trainer flags below (checked as "
        "HfTrainerDeepSpeedConfig fills it and as DeepSpeed reads it)";
  } else {
    status = ", NOT ready to use as it is";
  }
  s += "<p>" + escape(in.tuned_config_path) + escape(status) +
       ": <button type=\"button\" id=\"copy-config\" hidden>Copy</button></p>\n";
  if (needs && !needs->empty()) {
    s += "<ul class=\"needs\">\n";
    for (const std::string& n : *needs) s += "<li>" + escape(n) + "</li>\n";
    s += "</ul>\n";
  }
  if (args && !args->empty()) {
    std::string line;
    for (const std::string& a : *args) line += (line.empty() ? "" : " ") + a;
    s += "<p>HF Trainer flags it needs (\"auto\" keys are filled from them):</p>\n<pre "
         "id=\"trainer-args\">" +
         escape(line) + "</pre>\n";
  }
  return s + "<pre id=\"tuned-config\">" + escape(*in.tuned_config) + "</pre>\n";
}

Result<std::string> figure_section(const Figure& f, int index, SvgRenderer& renderer) {
  std::string s = "<section id=\"" + escape(f.id) + "\">\n<h2>" + escape(f.heading) + "</h2>\n";
  if (f.script.empty())
    return s + "<p class=\"note omitted\">" + escape(f.note) + "</p>\n</section>\n";
  s += "<p class=\"note\">" + escape(f.note) + "</p>\n";
  ZS_ASSIGN_OR_RETURN(const std::string svg, renderer.render(f.script));
  ZS_ASSIGN_OR_RETURN(const std::string inlined,
                      inline_svg(svg, "f" + std::to_string(index) + "-"));
  s += "<figure role=\"img\" aria-label=\"" + escape(f.heading) + "\">\n" + inlined +
       "\n</figure>\n";
  for (const Table& t : f.tables) s += html::table(t);
  return s + "</section>\n";
}

std::string table_section(const Figure& f) {
  std::string s = "<section id=\"" + escape(f.id) + "\">\n<h2>" + escape(f.heading) + "</h2>\n";
  s += "<p class=\"note\">" + escape(f.note) + "</p>\n";
  for (const Table& t : f.tables) s += html::table(t);
  return s + "</section>\n";
}

}  // namespace

std::vector<Figure> report_figures(const ReportInputs& in) {
  const SweepTable& t = in.table;
  std::vector<Figure> out = {memory_figure(t), throughput_figure(t)};
  for (Figure& f : knob_figures(t)) out.push_back(std::move(f));
  out.push_back(pareto_figure(t));
  out.push_back(timeline_figure(t));
  out.push_back(validation_figure(in.validation));
  out.push_back(variants_figure(t));
  out.push_back(invalid_figure(t));
  return out;
}

Result<std::string> render_report_html(const ReportInputs& in, SvgRenderer& renderer) {
  const SweepTable& t = in.table;
  const std::string title = "zerosim " + t.command + ": " + t.base.model + " on " + t.base.cluster;
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>" +
      escape(title) + "</title>\n<style>" + std::string(html::style_sheet()) +
      "</style>\n</head>\n<body>\n";
  page += "<header>\n<h1>" + escape(title) +
          "</h1>\n<p class=\"meta\">zerosim's predictions, read "
          "from " +
          escape(in.results_path) + ".</p>\n</header>\n";
  page += "<section id=\"summary\">\n<h2>Summary</h2>\n" + facts(t) + winner_section(t) +
          tuned_config_section(in) + "</section>\n";

  const std::vector<Figure> figures = report_figures(in);
  page += "<nav>\n<h2>Contents</h2>\n<ul>\n";
  for (const Figure& f : figures) {
    page += "<li><a href=\"#" + escape(f.id) + "\">" + escape(f.heading) + "</a>" +
            (f.script.empty() && f.tables.empty() ? " (omitted)" : "") + "</li>\n";
  }
  page += "</ul>\n</nav>\n";
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const Figure& f = figures[i];
    if (f.script.empty() && !f.tables.empty()) {
      page += table_section(f);
      continue;
    }
    ZS_ASSIGN_OR_RETURN(const std::string section,
                        figure_section(f, static_cast<int>(i), renderer));
    page += section;
  }
  page += "<footer>\n<p class=\"meta\">Made by <code>zerosim report</code> from " +
          escape(in.results_path) + " (" + escape(kSweepFormat) +
          "). The page is self-contained: it needs no network.</p>\n</footer>\n";
  page += "<script>" + std::string(html::script()) + "</script>\n</body>\n</html>\n";
  return page;
}

}  // namespace zs::reports
