// Benchmark: full simulations per second on one core: read and check the config, build the
// Plan, replay it for memory and for time (the discrete-event engine). Two rates per case:
//  - cold: every simulation starts from the model spec (what one `zerosim simulate` does);
//  - sweep: the model graph of the first simulation is shared, as a sweep over ZeRO settings
//    for one model and workload shares it (SimulationRequest::graph).
// A benchmark, not a test: it asserts nothing.
//
// Usage: simulate_speed [SOURCE_DIR] [SECONDS_PER_CASE=1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "sim/simulate.h"

namespace {

struct Case {
  const char* name;
  const char* config;  // relative to the source dir
  const char* model;
  const char* gpu;
  int nodes;
  int micro_batch;
  int grad_accum;
  int seq_len;
  bool checkpointing;
};

const Case kCases[] = {
    {"ZeRO-3, Llama-2 70B, 64 x H100, GA 8, no offload", "bench/configs/zero3_no_offload.json",
     "llama2-70b", "h100", 8, 0, 0, 4096, true},
    {"ZeRO-2, GPT-2 1.5B, 8 x A100", "bench/configs/zero2.json", "gpt2-xl", "a100-80gb", 1, 0, 0,
     1024, false},
    {"seed004 ZeRO-2, Llama-2 7B, 8 x A100", "configs/examples/seed004_review_original.json",
     "llama2-7b", "a100-80gb", 1, 0, 0, 4096, true},
    {"seed000 ZeRO-3 offload, Llama-2 7B, 8 x H100", "configs/examples/seed000_zero3_offload_auto.json",
     "llama2-7b", "h100", 1, 4, 2, 4096, true},
    {"seed002 ZeRO-2 offload, GPT-2 1.5B, 8 x A100", "configs/examples/seed002_zero2_offload_auto.json",
     "gpt2-xl", "a100-80gb", 1, 8, 1, 1024, false},
    {"ZeRO-3, Llama-2 70B, 64 x H100, GA 8", "configs/examples/seed004_zero3_offload_advice.json",
     "llama2-70b", "h100", 8, 1, 8, 4096, true},
};

}  // namespace

int main(int argc, char** argv) {
  const std::string root = argc > 1 ? argv[1] : ".";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  std::printf("%-52s %6s %10s %10s %9s %10s\n", "case", "mode", "sims/s", "ms each",
              "plan ops", "step s");
  for (const Case& c : kCases) {
    zs::sim::SimulationRequest r;
    r.config_path = root + "/" + c.config;
    auto model = zs::models::resolve_model(c.model);
    auto cluster = zs::configs::make_cluster(c.gpu, c.nodes, 8);
    if (!model.ok() || !cluster.ok()) {
      std::fprintf(stderr, "%s: bad case\n", c.name);
      return 1;
    }
    r.model = *model;
    r.cluster = *cluster;
    r.seq_len = c.seq_len;
    r.activation_checkpointing = c.checkpointing;
    if (c.micro_batch > 0) r.check.micro_batch = c.micro_batch;
    if (c.grad_accum > 0) r.check.grad_accum = c.grad_accum;
    r.check.precision = zs::configs::Precision::kBf16;
    for (const bool sweep : {false, true}) {
      r.graph = nullptr;
      int runs = 0;
      std::size_t ops = 0;
      double step_s = 0;
      const auto start = std::chrono::steady_clock::now();
      double elapsed = 0;
      while (elapsed < seconds || runs < 3) {
        auto result = zs::sim::simulate(r);
        if (!result.ok()) {
          std::fprintf(stderr, "%s: %s\n", c.name, result.status().message().c_str());
          return 1;
        }
        ops = result->built.plan.ops.size();
        step_s = result->time.step_s;
        if (sweep) r.graph = result->built.layout.graph;
        ++runs;
        elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      std::printf("%-52s %6s %10.1f %10.3f %9zu %10.3f\n", c.name, sweep ? "sweep" : "cold",
                  runs / elapsed, 1e3 * elapsed / runs, ops, step_s);
    }
  }
  return 0;
}
