// Benchmark: variants simulated per second by a 10,000-variant `zerosim sweep`, with 1 and with 2
// threads (SweepSetup::jobs). Each variant is what the sweep does for a row: edit the parsed
// config in memory, check it, plan it, replay memory and time, render its `simulate --json`
// object; model graphs and their pricing are shared per workload (tuning/sweep.h). The ranking and
// the winner's explanation (a few more simulations) are included; writing files is not.
// Rates are per second of wall-clock time (the threads run in parallel), so a loaded machine
// lowers them; the ratio of the two rates is the parallel speed-up. The process's CPU time
// (CLOCK_PROCESS_CPUTIME_ID) is printed too: variants per CPU-second that stay the same with 2
// jobs mean the threads do not slow each other down, whatever else the machine is running.
// A benchmark, not a test: it asserts nothing.
//
// Usage: sweep_speed [SOURCE_DIR] [MODEL=gpt2-xl]
// The sweep: bench/configs/zero2.json on MODEL, 8 x A100 80GB, sequence 1024, varying
//   stage=0..3 x overlap_comm=true,false x micro_batch=1..16:x2 x
//   zero_optimization.reduce_bucket_size=1e6..2.5e8:+1e6  (4 x 2 x 5 x 250 = 10,000 variants).
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "common/process.h"
#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "reports/simulate_report.h"
#include "tuning/sweep.h"

namespace {

double wall_seconds() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}
}  // namespace

int main(int argc, char** argv) {
  zs::keep_freed_memory();
  const std::string root = argc > 1 ? argv[1] : ".";
  const std::string model_name = argc > 2 ? argv[2] : "gpt2-xl";
  const std::string config = root + "/bench/configs/zero2.json";
  auto doc = zs::json::parse_file(config);
  auto model = zs::models::resolve_model(model_name);
  auto cluster = zs::configs::make_cluster("a100-80gb", 1, 8);
  if (!doc.ok() || !model.ok() || !cluster.ok()) {
    std::fprintf(stderr, "sweep_speed: cannot read %s or model %s\n", config.c_str(),
                 model_name.c_str());
    return 1;
  }
  zs::tuning::SweepSetup setup;
  setup.base.config_path = config;
  setup.base.config_document = std::make_shared<const zs::json::Document>(std::move(*doc));
  setup.base.model = *model;
  setup.base.cluster = *cluster;
  setup.base.seq_len = 1024;
  setup.base.op_names = false;
  for (const char* spec : {"stage=0..3", "overlap_comm=true,false", "micro_batch=1..16:x2",
                           "zero_optimization.reduce_bucket_size=1e6..2.5e8:+1e6"}) {
    auto axis = zs::tuning::parse_vary(spec);
    if (!axis.ok()) {
      std::fprintf(stderr, "%s\n", axis.status().message().c_str());
      return 1;
    }
    setup.axes.push_back(std::move(*axis));
  }
  setup.render = [](const zs::sim::SimulationResult& r, const zs::sim::SimulationRequest& q) {
    return zs::reports::render_simulation_json_text(r, q);
  };
  std::printf("sweep of %lld variants: %s on %s, 8 x a100-80gb, seq 1024\n",
              static_cast<long long>(zs::tuning::variant_count(setup.axes)), config.c_str(),
              model_name.c_str());
  std::printf("%6s %10s %12s %10s %14s %10s %10s\n", "jobs", "wall s", "variants/s", "cpu s",
              "per cpu-s", "invalid", "feasible");
  double rate_1 = 0;
  for (int jobs : {1, 2}) {
    setup.jobs = jobs;
    const double start = wall_seconds();
    const double cpu_start = zs::process_cpu_seconds();
    auto out = zs::tuning::run_sweep(setup);
    const double elapsed = wall_seconds() - start;
    const double cpu = zs::process_cpu_seconds() - cpu_start;
    if (!out.ok()) {
      std::fprintf(stderr, "%s\n", out.status().message().c_str());
      return 1;
    }
    int invalid = 0;
    for (const auto& r : out->rows) invalid += r.ok ? 0 : 1;
    const double rate = static_cast<double>(out->rows.size()) / elapsed;
    if (jobs == 1) rate_1 = rate;
    std::printf("%6d %10.2f %12.1f %10.2f %14.1f %10d %10zu\n", jobs, elapsed, rate, cpu,
                static_cast<double>(out->rows.size()) / cpu, invalid, out->ranking.size());
    if (jobs == 2) std::printf("speed-up with 2 jobs: %.2fx\n", rate / rate_1);
  }
  return 0;
}
