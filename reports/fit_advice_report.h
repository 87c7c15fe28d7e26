// How `zerosim simulate` prints the changes that make an out-of-memory config fit
// (tuning/fit_advice.h): one line per change with its predicted peak and throughput, each with
// its band, against the config as given.
#pragma once

#include <string>

#include "common/json_reader.h"
#include "tuning/fit_advice.h"

namespace zs::reports {

// "" when advice has no changes and nothing was tried (the config fits).
// base_tokens_per_s: the config as given, for the cost of each change (0: not shown).
std::string render_fit_advice_text(const tuning::FitAdvice& advice, double base_tokens_per_s);

// {"tried", "fitting", "changes": [{"text", "changes", "gpu_peak_bytes", "memory_band",
// "step_s", "tokens_per_s", "time_band", "micro_batch", "grad_accum"}]}
json::Json render_fit_advice_json(const tuning::FitAdvice& advice);

}  // namespace zs::reports
