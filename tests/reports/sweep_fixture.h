// A small results.json (format "zerosim.sweep/1") for the report's unit tests, built in code so
// that each test can change one thing: micro_batch 2 and 4 by overlap_comm true and false
// (rows 0-3, row 3 does not fit), and row 4 invalid. Numbers are made up but consistent: the
// breakdown sums to the peak.
#pragma once

#include <string>

#include "common/json_reader.h"

namespace zs::testing {

inline json::Json fixture_result(int micro_batch, bool overlap, bool oom) {
  const std::int64_t gib = 1LL << 30;
  const std::int64_t act = micro_batch * 3 * gib + (oom ? 70 * gib : 0);
  const std::int64_t peak = 2 * gib + gib + 4 * gib + act + gib / 2 + gib;
  const double step_s = 0.010 * micro_batch + (overlap ? 0.0 : 0.004);
  return {{"zero_stage", 2},
          {"batch", {{"micro_batch_per_gpu", micro_batch}, {"gradient_accumulation_steps", 1}}},
          {"memory",
           {{"gpu",
             {{"peak_bytes", peak},
              {"capacity_bytes", 80 * gib},
              {"oom", oom},
              {"breakdown",
               {{"params_bytes", 2 * gib},
                {"grads_bytes", gib},
                {"optimizer_states_bytes", 4 * gib},
                {"activations_bytes", act},
                {"buffers_bytes", gib / 2},
                {"other_bytes", gib}}}}}}},
          {"time",
           {{"step_s", step_s},
            {"compute_s", 0.009 * micro_batch},
            {"optimizer_s", 0.0005},
            {"exposed_comm_s", overlap ? 0.0 : 0.004},
            {"exposed_offload_s", 0.0},
            {"other_s", 0.0005},
            {"bottleneck", "Compute-bound."}}},
          {"throughput",
           {{"samples_per_s", 8 * micro_batch / step_s},
            {"tokens_per_s", 8 * micro_batch * 1024 / step_s},
            {"tflops_per_gpu", 100.0},
            {"mfu", 0.32}}}};
}

// The fixture as a JSON value; tests edit it and dump it.
inline json::Json fixture_json() {
  using json::Json;
  Json rows = Json::array();
  int id = 0;
  for (int mb : {2, 4}) {
    for (bool overlap : {true, false}) {
      const bool oom = mb == 4 && !overlap;
      rows.push_back({{"id", id},
                      {"values", {{"micro_batch", mb}, {"overlap_comm", overlap}}},
                      {"status", "ok"},
                      {"feasible", !oom},
                      {"baseline", id == 0},
                      {"result", fixture_result(mb, overlap, oom)}});
      ++id;
    }
  }
  rows.push_back({{"id", 4},
                  {"values", {{"micro_batch", 8}, {"overlap_comm", true}}},
                  {"status", "invalid"},
                  {"error", "ds.json: error[batch]: train_batch_size <mismatch> & more"},
                  {"feasible", false},
                  {"baseline", false}});
  Json timeline = Json::array();
  for (int i = 0; i < 6; ++i) {
    timeline.push_back({{"stream", "compute"},
                        {"op", i},
                        {"name", "fwd." + std::to_string(i)},
                        {"start_s", 0.002 * i},
                        {"end_s", 0.002 * i + 0.0018}});
  }
  timeline.push_back({{"stream", "reduce"},
                      {"op", 6},
                      {"name", "reduce.bucket0"},
                      {"start_s", 0.004},
                      {"end_s", 0.009}});
  return {{"format", "zerosim.sweep/1"},
          {"command", "sweep"},
          {"base",
           {{"config", "ds<1>.json"},
            {"model", "gpt2"},
            {"cluster", "1 x 8 a100-80gb (8 GPUs)"},
            {"gpu", "a100-80gb"},
            {"world_size", 8},
            {"gpu_memory_bytes", 80LL << 30},
            {"seq_len", 1024},
            {"headroom", 0.05}}},
          {"varied",
           {{{"key", "micro_batch"}, {"values", {2, 4, 8}}},
            {{"key", "overlap_comm"}, {"values", {true, false}}}}},
          {"rows", rows},
          {"ranking", {2, 0, 1}},
          {"pareto", {0, 2}},
          {"best", 2},
          {"why", {"micro_batch: 2 -> 4 raises throughput"}},
          {"best_timeline", timeline}};
}

inline std::string fixture_text() { return fixture_json().dump(1); }

}  // namespace zs::testing
