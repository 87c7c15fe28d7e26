// Numbers and names as the HTML report prints them in tables, notes and axis labels. Sizes are
// shown in GiB (2^30 bytes, as nvidia-smi and torch.cuda report them), times in milliseconds.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "reports/figure.h"
#include "reports/sweep_table.h"

namespace zs::reports {

double to_gib(std::int64_t bytes);
double to_ms(double seconds);

// printf("%.*f") in the C locale.
std::string fixed(double v, int decimals);

// The units a report shows sizes and FLOP rates in: GiB and TFLOP/s, or MiB and GFLOP/s when
// every figure of the sweep is below one of the larger unit (a tiny model would read "0.00 GiB"
// and "0.0 TFLOP/s").
struct Units {
  double bytes_per_unit = 1024.0 * 1024 * 1024;
  std::string bytes = "GiB";
  double flops_per_tflops = 1;  // displayed = TFLOP/s x this
  std::string flops = "TFLOP/s";

  double mem(std::int64_t b) const { return static_cast<double>(b) / bytes_per_unit; }
  double rate(double tflops) const { return tflops * flops_per_tflops; }
};
// The units for figures whose largest are `largest_bytes` and `largest_tflops` (0: none).
Units units_for(std::int64_t largest_bytes, double largest_tflops);
// From the valid rows' peaks and rates (the GPU's capacity does not keep GiB: a 16 MiB model on
// an 80 GiB GPU is shown in MiB).
Units report_units(const SweepTable& t);

// Whether a plot of memory up to `top` draws the GPU's capacity `cap` (same unit): only near the
// data, since a capacity far above it would squeeze the data into the bottom or left.
bool capacity_near(double cap, double top);

// Table cells that sort by their value.
Cell ms_cell(double seconds);                       // "123.4"
Cell count_cell(double v, int decimals = 0);        // "12345"
Cell percent_cell(double fraction);                 // "41.2"
Cell mem_cell(std::int64_t bytes, const Units& u);  // "12.34" in u.bytes
Cell rate_cell(double tflops, const Units& u);      // "123.4" in u.flops

// The knob key as an axis label: its last path component with a unit where it has one
// ("reduce_bucket_size (elements)", "micro_batch (samples per GPU)").
std::string knob_axis_label(std::string_view key);

// "#3" and "#3: stage=2, micro_batch=4" (knobs by their last path component).
std::string variant_name(const SweepRow& row);
std::string variant_description(const SweepTable& t, const SweepRow& row);

// Whether it fits: "yes", "no: OOM", or "no: headroom" (fits the GPU but not with the
// headroom kept free).
std::string fits_text(const SweepRow& row);

// Header cells for the varied knobs, and one row's values (numbers sort numerically).
std::vector<std::string> knob_headers(const SweepTable& t);
std::vector<Cell> knob_cells(const SweepRow& row);

// Valid rows as the report lists them: the ranking first (best first), then the other valid
// rows by step time, then by id.
std::vector<const SweepRow*> valid_rows_in_order(const SweepTable& t);

// The GPU's capacity in bytes: base.gpu_memory_bytes, or, when that is 0, the first valid
// row's memory.gpu.capacity_bytes (0 when there is none).
std::int64_t gpu_capacity_bytes(const SweepTable& t);

}  // namespace zs::reports
