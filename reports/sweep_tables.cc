// variants_figure and invalid_figure (reports/plots.h): the tables without plots.
#include <algorithm>

#include "reports/plots.h"
#include "reports/report_format.h"

namespace zs::reports {

Figure variants_figure(const SweepTable& t) {
  Figure f;
  f.id = "variants";
  f.heading = "Every variant";
  std::vector<const SweepRow*> rows = valid_rows_in_order(t);
  if (rows.empty()) {
    f.note = "No variant ran.";
    return f;
  }
  const std::size_t total = rows.size();
  if (rows.size() > static_cast<std::size_t>(kMaxTableRows)) rows.resize(kMaxTableRows);
  f.note =
      "The variants that ran: ranked ones first (best first), then the others by step time. "
      "±: the uncertainty band of each figure (its regime's measured error); \"tie\": "
      "within the band of the fastest, where the model cannot tell the rows apart." +
      std::string(total > rows.size() ? " The first " + std::to_string(rows.size()) + " of " +
                                            std::to_string(total) + "; results.csv lists them all."
                                      : "");
  // One stage column: the knob's when the sweep varied it.
  const bool stage_knob =
      std::any_of(t.varied.begin(), t.varied.end(), [](const Knob& k) { return k.key == "stage"; });
  const Units u = report_units(t);
  Table table;
  table.header = {"rank", "variant"};
  for (const std::string& h : knob_headers(t)) table.header.push_back(h);
  if (!stage_knob) table.header.push_back("ZeRO stage");
  table.header.insert(
      table.header.end(),
      {"fits", "peak (" + u.bytes + ")", "± peak (%)", "step (ms)", "tokens/s", "± time (%)",
       u.flops + " per GPU", "MFU (%)", "exposed comm (ms)", "baseline", "tie"});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& r = *rows[i];
    const VariantResult& v = *r.result;
    const bool ranked = i < t.ranking.size();
    std::vector<Cell> row = {ranked ? count_cell(static_cast<double>(i + 1)) : text_cell("-"),
                             number_cell(variant_name(r), r.id)};
    for (Cell& c : knob_cells(r)) row.push_back(std::move(c));
    const bool tied = std::find(t.tied.begin(), t.tied.end(), r.id) != t.tied.end();
    if (!stage_knob) row.push_back(count_cell(v.zero_stage));
    row.insert(row.end(),
               {text_cell(fits_text(r)), mem_cell(v.peak_bytes, u), percent_cell(v.memory_band),
                ms_cell(v.step_s), count_cell(v.tokens_per_s), percent_cell(v.time_band),
                rate_cell(v.tflops_per_gpu, u), percent_cell(v.mfu), ms_cell(v.exposed_comm_s),
                text_cell(r.baseline ? "yes" : ""), text_cell(tied ? "tie" : "")});
    table.rows.push_back(std::move(row));
  }
  f.tables.push_back(std::move(table));
  return f;
}

Figure invalid_figure(const SweepTable& t) {
  Figure f;
  f.id = "invalid";
  f.heading = "Invalid variants";
  Table table;
  table.header = {"variant"};
  for (const std::string& h : knob_headers(t)) table.header.push_back(h);
  table.header.push_back("why it did not run");
  for (const SweepRow& r : t.rows) {
    if (r.valid) continue;
    std::vector<Cell> row = {number_cell(variant_name(r), r.id)};
    for (Cell& c : knob_cells(r)) row.push_back(std::move(c));
    row.push_back(text_cell(r.error.empty() ? "(no reason given)" : r.error));
    table.rows.push_back(std::move(row));
  }
  if (table.rows.empty()) {
    f.note = "Every variant ran: none was rejected as an invalid config.";
    return f;
  }
  f.note = std::to_string(table.rows.size()) +
           " variant(s) are configs DeepSpeed would reject; they are not plotted.";
  f.tables.push_back(std::move(table));
  return f;
}

}  // namespace zs::reports
