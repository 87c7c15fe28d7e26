// A Chrome trace (the JSON Trace Event Format that chrome://tracing and ui.perfetto.dev load) of
// one simulated step: a track per stream with every op (name, work, bytes), a track per link
// with the flows it carried, and GPU memory allocated as a counter track. A repeated segment
// (uniform micro-steps) is drawn once per repetition, shifted by the repetition's period, up to
// kDrawnRepetitions; past that, the first kDrawnRepetitions - 1 and the last are drawn and the
// ones between are a single span on a "folded repetitions" track, so that the trace's size does
// not grow with gradient accumulation. Deterministic.
#pragma once

#include <string>

#include "common/status.h"
#include "plan/plan.h"
#include "sim/step_time.h"

namespace zs::sim {

inline constexpr int kDrawnRepetitions = 8;

std::string trace_json(const plan::Plan& plan, const StepTime& time);

// Writes trace_json to `path` as common/output_file.h writes outputs (atomically, or through a
// device or link). kIoError naming --trace and the path when it cannot be written.
Status write_trace(const std::string& path, const plan::Plan& plan, const StepTime& time);

}  // namespace zs::sim
