#include "reports/report_format.h"

#include <algorithm>
#include <cstdio>

#include "reports/plot_style.h"

namespace zs::reports {
namespace {

std::string_view last_component(std::string_view key) {
  const std::size_t dot = key.rfind('.');
  return dot == std::string_view::npos ? key : key.substr(dot + 1);
}

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// A knob's value as tables print it: large numbers as DeepSpeed configs write them (5e8, not
// 500000000); results.csv keeps them exact.
std::string knob_display(const json::Json& v) {
  return v.is_number() ? plot::short_number(v.get<double>()) : knob_value_text(v);
}

}  // namespace

double to_gib(std::int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024 * 1024); }
double to_ms(double seconds) { return seconds * 1e3; }

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

Cell ms_cell(double seconds) { return number_cell(fixed(to_ms(seconds), 1), to_ms(seconds)); }
Cell count_cell(double v, int decimals) { return number_cell(fixed(v, decimals), v); }
Cell percent_cell(double fraction) { return number_cell(fixed(100 * fraction, 1), 100 * fraction); }

Units units_for(std::int64_t largest_bytes, double largest_tflops) {
  Units u;
  if (largest_bytes > 0 && largest_bytes < std::int64_t{1} << 30) {
    u.bytes_per_unit = 1024.0 * 1024;
    u.bytes = "MiB";
  }
  if (largest_tflops > 0 && largest_tflops < 1) {
    u.flops_per_tflops = 1e3;
    u.flops = "GFLOP/s";
  }
  return u;
}

Units report_units(const SweepTable& t) {
  std::int64_t peak = 0;
  double tflops = 0;
  for (const SweepRow& r : t.rows) {
    if (!r.result) continue;
    peak = std::max(peak, r.result->peak_bytes);
    tflops = std::max(tflops, r.result->tflops_per_gpu);
  }
  return units_for(peak, tflops);
}

bool capacity_near(double cap, double top) { return cap > 0 && cap <= 1.6 * top; }

Cell mem_cell(std::int64_t bytes, const Units& u) {
  return number_cell(fixed(u.mem(bytes), 2), u.mem(bytes));
}
Cell rate_cell(double tflops, const Units& u) {
  return number_cell(fixed(u.rate(tflops), 1), u.rate(tflops));
}

std::string knob_axis_label(std::string_view key) {
  const std::string name(last_component(key));
  std::string unit;
  if (contains(key, "bucket_size") || contains(key, "threshold") ||
      contains(key, "max_live_parameters") || contains(key, "max_reuse_distance")) {
    unit = "elements";
  } else if (name == "micro_batch" || name == "train_micro_batch_size_per_gpu") {
    unit = "samples per GPU";
  } else if (name == "grad_accum" || name == "gradient_accumulation_steps") {
    unit = "micro-steps per step";
  } else if (name == "stage") {
    unit = "ZeRO stage";
  }
  return unit.empty() ? name : name + " (" + unit + ")";
}

std::string variant_name(const SweepRow& row) { return "#" + std::to_string(row.id); }

std::string variant_description(const SweepTable& t, const SweepRow& row) {
  std::string out = variant_name(row);
  for (std::size_t k = 0; k < t.varied.size() && k < row.values.size(); ++k) {
    out += (k == 0 ? ": " : ", ") + std::string(last_component(t.varied[k].key)) + "=" +
           knob_display(row.values[k]);
  }
  return out;
}

std::string fits_text(const SweepRow& row) {
  if (!row.valid || !row.result) return "-";
  if (row.feasible) return "yes";
  return row.result->oom ? "no: OOM" : "no: headroom";
}

std::vector<std::string> knob_headers(const SweepTable& t) {
  std::vector<std::string> out;
  for (const Knob& k : t.varied) out.emplace_back(last_component(k.key));
  return out;
}

std::vector<Cell> knob_cells(const SweepRow& row) {
  std::vector<Cell> out;
  for (const json::Json& v : row.values) {
    if (v.is_number()) {
      out.push_back(number_cell(knob_display(v), v.get<double>()));
    } else {
      out.push_back(text_cell(knob_value_text(v)));
    }
  }
  return out;
}

std::vector<const SweepRow*> valid_rows_in_order(const SweepTable& t) {
  std::vector<const SweepRow*> out;
  std::vector<bool> taken(t.rows.size(), false);
  for (int id : t.ranking) {
    const std::size_t i = t.index_by_id.at(id);
    if (taken[i] || !t.rows[i].result) continue;
    taken[i] = true;
    out.push_back(&t.rows[i]);
  }
  std::vector<const SweepRow*> rest;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (!taken[i] && t.rows[i].result) rest.push_back(&t.rows[i]);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const SweepRow* a, const SweepRow* b) {
    if (a->result->step_s != b->result->step_s) return a->result->step_s < b->result->step_s;
    return a->id < b->id;
  });
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

std::int64_t gpu_capacity_bytes(const SweepTable& t) {
  if (t.base.gpu_memory_bytes > 0) return t.base.gpu_memory_bytes;
  for (const SweepRow& r : t.rows) {
    if (r.result) return r.result->capacity_bytes;
  }
  return 0;
}

}  // namespace zs::reports
