// What the reader fuzzers share: a whole simulation of whatever the fuzzed reader accepted, so
// that a value it lets through (a rate, a size) also goes through the model graph, the plan, the
// memory replay and the engine, where a bad one would crash, wrap or hang.
#pragma once

#include <memory>
#include <string>

#include "common/json_reader.h"
#include "sim/simulate.h"

namespace zs::fuzz {

// ZeRO stage `stage` in bf16 with small buckets (many collectives), micro-batch 1, and overlap
// and offload on at stage 3 (the most links and streams).
inline std::shared_ptr<const json::Document> fuzz_config(int stage) {
  const std::string text =
      R"({"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 2,
          "bf16": {"enabled": true}, "zero_optimization": {"stage": )" +
      std::to_string(stage) +
      R"(, "reduce_bucket_size": 100000, "allgather_bucket_size": 100000)" +
      (stage == 3 ? R"(, "offload_optimizer": {"device": "cpu"}, "overlap_comm": true)" : "") +
      "}}";
  auto doc = json::parse_text(text, "fuzz_ds_config.json");
  return std::make_shared<const json::Document>(std::move(doc).value());
}

// Simulates `request` with the config of `stage`; the outcome (a result or a Status) is
// discarded: the fuzzer looks for crashes, sanitizer reports, check failures and hangs.
inline void simulate_quietly(sim::SimulationRequest request, int stage) {
  request.config_document = fuzz_config(stage);
  request.config_path = request.config_document->source;
  request.op_names = false;
  auto r = sim::simulate(request);
  (void)r;
}

}  // namespace zs::fuzz
