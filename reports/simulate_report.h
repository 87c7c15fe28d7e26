// How `zerosim simulate` prints its result: a human summary with the memory breakdown table, or
// one JSON object with the keys ../shared/DESIGN.md lists (bytes, seconds).
#pragma once

#include <string>

#include "common/json_reader.h"
#include "sim/simulate.h"

namespace zs::reports {

std::string render_simulation_text(const sim::SimulationResult& r,
                                   const sim::SimulationRequest& request);

// memory.gpu.{peak_bytes, capacity_bytes, oom, model_states_bytes, headroom_bytes, peak_phase,
// peak_op, breakdown.{params_bytes, grads_bytes, optimizer_states_bytes, activations_bytes,
// buffers_bytes, other_bytes}}, memory.cpu.{peak_bytes, capacity_bytes, oom, pinned_bytes,
// breakdown}, time.{step_s, compute_s, optimizer_s, exposed_comm_s, exposed_offload_s, other_s,
// comm_busy_s, offload_busy_s, cpu_optimizer_s, bottleneck[, overflow_step_s]},
// throughput.{samples_per_s, tokens_per_s, tflops_per_gpu, mfu}, cost_profile, model.params,
// world_size, batch.*, plan.*, warnings.
json::Json render_simulation_json(const sim::SimulationResult& r,
                                  const sim::SimulationRequest& request);
// The same object as compact JSON text, written without building it (json::JsonWriter): what
// render_simulation_json(...).dump(-1, ' ', false, replace) prints, at a fraction of the cost,
// for a sweep's thousands of rows.
std::string render_simulation_json_text(const sim::SimulationResult& r,
                                        const sim::SimulationRequest& request);

}  // namespace zs::reports
