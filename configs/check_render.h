// How `zerosim check` prints its findings: a human report, or one JSON object.
#pragma once

#include <string>

#include "configs/check.h"

namespace zs::configs {

// The effective config with origins, the "auto" lines, then errors, warnings, lints and notes,
// and a one-line verdict.
std::string render_check_text(const LoadedConfig& lc, const CheckOptions& options);

// {"file", "deepspeed_version", "valid", "counts", "effective_config", "origins", "auto",
//  "diagnostics"}; deterministic key order.
json::Json render_check_json(const LoadedConfig& lc, const CheckOptions& options);

}  // namespace zs::configs
