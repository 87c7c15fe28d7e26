// A Chrome trace (the JSON Trace Event Format that chrome://tracing and ui.perfetto.dev load) of
// one simulated step: a track per stream with every op (name, work, bytes), a track per link
// with the flows it carried, and GPU memory allocated as a counter track. Repeated micro-steps
// appear once per repetition, shifted by the repetition's period. Deterministic.
#pragma once

#include <string>

#include "common/status.h"
#include "plan/plan.h"
#include "sim/step_time.h"

namespace zs::sim {

std::string trace_json(const plan::Plan& plan, const StepTime& time);

// Writes trace_json to `path` through a temporary file renamed into place, so a failure
// leaves no half-written file. kIoError naming the path when it cannot be written.
Status write_trace(const std::string& path, const plan::Plan& plan, const StepTime& time);

}  // namespace zs::sim
