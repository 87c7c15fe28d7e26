// Benchmark: full simulations per second on one core: read and check the config, build the
// Plan, replay it for memory and for time (the discrete-event engine). Two rates per case:
//  - cold: every simulation starts from the model spec (what one `zerosim simulate` does);
//  - sweep: as `zerosim sweep` runs each variant: the model graph of a first simulation is
//    shared, as a sweep over ZeRO settings for one model and workload shares it
//    (SimulationRequest::graph) with its kernels priced once (SimulationRequest::priced_model),
//    and the plan carries no op names, which a sweep never prints (SimulationRequest::op_names);
//    the config file is parsed once and each simulation checks its own copy of the document,
//    as a sweep copies and edits it per variant (SimulationRequest::config_document).
//    The predicted numbers are the same in both modes.
// Rates are per second of this process's CPU time (CLOCK_PROCESS_CPUTIME_ID), which is what "on
// one core" means and what other processes on a shared machine disturb least. A shared virtual
// machine still runs the same code up to 1.5x faster or slower from one second to the next, so
// each case is timed in kWindows windows and the table prints the median window's rate and the
// slowest and fastest windows.
// A benchmark, not a test: it asserts nothing.
//
// Usage: simulate_speed [SOURCE_DIR] [SECONDS_PER_CASE=1] [CASE_INDEX [RUNS]]
// CASE_INDEX (0-based) runs one case only, in sweep mode, for profiling; RUNS fixes the number
// of timed simulations instead (for instruction counts under a profiler).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "common/process.h"
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
    {"seed000 ZeRO-3 offload, Llama-2 7B, 8 x H100",
     "configs/examples/seed000_zero3_offload_auto.json", "llama2-7b", "h100", 1, 4, 2, 4096, true},
    {"seed002 ZeRO-2 offload, GPT-2 1.5B, 8 x A100",
     "configs/examples/seed002_zero2_offload_auto.json", "gpt2-xl", "a100-80gb", 1, 8, 1, 1024,
     false},
    {"ZeRO-3, Llama-2 70B, 64 x H100, GA 8", "configs/examples/seed004_zero3_offload_advice.json",
     "llama2-70b", "h100", 8, 1, 8, 4096, true},
};

constexpr int kWindows = 5;
}  // namespace

int main(int argc, char** argv) {
  zs::keep_freed_memory();
  const std::string root = argc > 1 ? argv[1] : ".";
  const double seconds = argc > 2 ? std::atof(argv[2]) : 1.0;
  const int only = argc > 3 ? std::atoi(argv[3]) : -1;
  const int fixed_runs = argc > 4 ? std::atoi(argv[4]) : 0;
  std::printf("%-52s %6s %10s %17s %10s %9s %10s\n", "case", "mode", "sims/s", "(slowest-fastest)",
              "ms each", "plan ops", "step s");
  int index = -1;
  for (const Case& c : kCases) {
    if (++index != only && only >= 0) continue;
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
    auto document = zs::json::parse_file(r.config_path);
    if (!document.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name, document.status().message().c_str());
      return 1;
    }
    for (const bool sweep : {false, true}) {
      if (only >= 0 && !sweep) continue;
      r.graph = nullptr;
      r.priced_model = nullptr;
      r.config_document = nullptr;
      r.op_names = !sweep;
      r.allocator_near_capacity_only = sweep;
      if (sweep) {
        // The sweep's shared model graph is built once, outside the timed loop.
        auto first = zs::sim::simulate(r);
        if (first.ok()) {
          r.graph = first->built.layout.graph;
          r.priced_model = first->time.priced_model;
        }
      }
      std::size_t ops = 0;
      double step_s = 0;
      double rates[kWindows];
      const int windows = fixed_runs > 0 ? 1 : kWindows;
      for (int w = 0; w < windows; ++w) {
        int runs = 0;
        const double start = zs::process_cpu_seconds();
        double elapsed = 0;
        while (fixed_runs > 0 ? runs < fixed_runs : (elapsed < seconds / kWindows || runs < 3)) {
          if (sweep) r.config_document = std::make_shared<zs::json::Document>(*document);
          auto result = zs::sim::simulate(r);
          if (!result.ok()) {
            std::fprintf(stderr, "%s: %s\n", c.name, result.status().message().c_str());
            return 1;
          }
          ops = result->built.plan.ops.size();
          step_s = result->time.step_s;
          ++runs;
          elapsed = zs::process_cpu_seconds() - start;
        }
        rates[w] = runs / elapsed;
      }
      std::sort(rates, rates + windows);
      const double median = rates[windows / 2];
      char spread[40];
      std::snprintf(spread, sizeof spread, "(%.0f-%.0f)", rates[0], rates[windows - 1]);
      std::printf("%-52s %6s %10.1f %17s %10.3f %9zu %10.3f\n", c.name, sweep ? "sweep" : "cold",
                  median, spread, 1e3 / median, ops, step_s);
    }
  }
  return 0;
}
