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

// Table cells that sort by their value.
Cell gib_cell(std::int64_t bytes);            // "12.34"
Cell ms_cell(double seconds);                 // "123.4"
Cell count_cell(double v, int decimals = 0);  // "12345"
Cell percent_cell(double fraction);           // "41.2"

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
