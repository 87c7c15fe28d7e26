// End-to-end behaviour of `zerosim run` on the CPU backend.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

using testing::run_zerosim;
using testing::write_temp;

const char* kConfig = R"({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 1,
  "bf16": {"enabled": true}, "optimizer": {"type": "AdamW", "params": {"lr": 2e-3}},
  "zero_optimization": {"stage": 2}})";

TEST(RunCli, JsonHasSimulatesKeysMeasuredAndThePrediction) {
  const std::string cfg = write_temp("run.json", kConfig);
  const std::string data = write_temp("run.txt", std::string(400, 'a') + "bcdefgh");
  const auto r = run_zerosim("run " + cfg + " --model tiny-gpt --seq-len 16 --steps 3 --data " +
                             data + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["backend"], "cpu");
  EXPECT_EQ(j["world_size"], 1);
  EXPECT_EQ(j["batch"]["train_batch_size"], 2);
  EXPECT_GT(j["time"]["step_s"].get<double>(), 0);
  EXPECT_GT(j["throughput"]["tokens_per_s"].get<double>(), 0);
  EXPECT_GT(j["memory"]["cpu"]["peak_bytes"].get<double>(), 0);
  EXPECT_TRUE(j["throughput"]["mfu"].is_null());
  ASSERT_EQ(j["steps"].size(), 3u);
  // The prediction is simulate's JSON, and the measured timeline uses its plan's op ids.
  const auto& p = j["prediction"];
  EXPECT_GT(p["time"]["step_s"].get<double>(), 0);
  const int ops = p["plan"]["ops"].get<int>();
  ASSERT_FALSE(j["timeline"].empty());
  for (const auto& t : j["timeline"]) {
    EXPECT_GE(t["op"].get<int>(), 0);
    EXPECT_LT(t["op"].get<int>(), ops);
  }
}

// Without CUDA in the build or a device on the machine, exit 1 with a message saying which;
// with a device, a CUDA run reporting the allocator's peak.
TEST(RunCli, CudaBackendRunsOrSaysWhyNot) {
  const std::string cfg = write_temp("run_cuda.json", kConfig);
  const auto r =
      run_zerosim("run " + cfg + " --model tiny-gpt --seq-len 16 --steps 2 --json --backend cuda");
  if (r.exit_code == 0) {
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["backend"], "cuda");
    EXPECT_GT(j["memory"]["gpu"]["peak_bytes"].get<double>(), 0);
    EXPECT_LE(j["memory"]["gpu"]["peak_bytes"].get<double>(),
              j["memory"]["gpu"]["peak_reserved_bytes"].get<double>());
    return;
  }
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const bool no_cuda = r.output.find("this zerosim was built without CUDA") != std::string::npos;
  const bool no_device = r.output.find("this machine has no CUDA device") != std::string::npos;
  EXPECT_TRUE(no_cuda || no_device) << r.output;
  EXPECT_NE(r.output.find("use --backend cpu"), std::string::npos) << r.output;
}

// calibrate --backend cuda: without a device, exit 1 saying so before anything runs; a CPU-only
// flag is refused with it, and --gpu without it.
TEST(RunCli, CalibrateCudaSaysWhyNotAndRefusesTheOtherBackendsFlags) {
  const std::string out = ::testing::TempDir() + "calibrate_cuda.json";
  auto r = run_zerosim("calibrate --backend cuda -o " + out);
  if (r.exit_code != 0) {
    EXPECT_EQ(r.exit_code, 1) << r.output;
    const bool no_cuda = r.output.find("this zerosim was built without CUDA") != std::string::npos;
    const bool no_device = r.output.find("this machine has no CUDA device") != std::string::npos;
    EXPECT_TRUE(no_cuda || no_device) << r.output;
  }
  r = run_zerosim("calibrate --backend cuda --cluster-out c.json -o " + out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--cluster-out: only with --backend cpu"), std::string::npos) << r.output;
  r = run_zerosim("calibrate --gpu h100 -o " + out);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--gpu: only with --backend cuda"), std::string::npos) << r.output;
}

TEST(RunCli, BadBackendsAndInputsExitOne) {
  const std::string cfg = write_temp("run_bad.json", kConfig);
  auto r = run_zerosim("run " + cfg + " --model tiny-gpt --backend tpu");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("expected cpu or cuda"), std::string::npos) << r.output;
  r = run_zerosim("run " + cfg + " --model tiny-gpt --steps 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--steps"), std::string::npos) << r.output;
  r = run_zerosim("run " + cfg + " --model tiny-gpt --data /nonexistent/text");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("/nonexistent/text"), std::string::npos) << r.output;
  r = run_zerosim("run " + cfg + " --model tiny-gpt --gpu h100 --gpus-per-node 8");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("the cluster has 8 GPUs and 1 process runs: start one process per GPU "
                          "(mpirun -np 8 zerosim run ...)"),
            std::string::npos)
      << r.output;
  // With a cluster file, the way out is the file (--gpus-per-node cannot join --cluster): the
  // advice must not send the user back and forth between the two messages.
  const std::string two = write_temp("two_cores.cluster.json", R"({"gpu": {"name": "one core",
      "backend": "cpu", "fp32_flops_per_s": 4e10, "hbm_bytes": 4294967296,
      "hbm_bw_bytes_per_s": 2e10, "sm_count": 1, "pcie_gen": 1, "pcie_bw_bytes_per_s": 1e10},
    "node": {"name": "host", "max_gpus_per_node": 2, "nic_count": 0, "nic_bw_bytes_per_s": 1e9,
      "host_memory_bytes": 8589934592, "cpu_cores": 2}, "gpus_per_node": 2})");
  r = run_zerosim("validate " + cfg + " --model tiny-gpt --cluster " + two);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("(mpirun -np 2 zerosim validate ...) or use a cluster file whose "
                          "\"gpus_per_node\" is 1"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("--gpus-per-node"), std::string::npos) << r.output;
  r = run_zerosim("run " + cfg + " --model tiny-gpt --collective-timeout 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--collective-timeout"), std::string::npos) << r.output;
}

TEST(RunCli, StartedByALauncherItsMpiDoesNotKnowExitsOneSayingSo) {
  // The launcher's variables say 2 processes, but MPI starts this one alone (a singleton):
  // training the whole batch alone is not the run the config describes.
  // It starts MPI to find that out: OpenMPI's own allocations at MPI_Finalize are not ours, so
  // LeakSanitizer is off for it (as for tests/exec_mpi).
  const std::string cfg = write_temp("run_ranks.json", kConfig);
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    auto r = testing::run_command(
        std::string("ASAN_OPTIONS=\"$ASAN_OPTIONS:detect_leaks=0\" env ") + var + "=2 " +
        ZS_ZEROSIM_BIN + " run " + cfg + " --model tiny-gpt --steps 1 2>&1");
    EXPECT_EQ(r.exit_code, 1) << var;
    EXPECT_NE(r.output.find("started as one of 2 processes by a launcher (mpirun, srun), but MPI "
                            "sees a world of 1"),
              std::string::npos)
        << r.output;
  }
  // One process of one is a plain run.
  auto one = testing::run_command(std::string("env OMPI_COMM_WORLD_SIZE=1 ") + ZS_ZEROSIM_BIN +
                                  " run " + cfg + " --model tiny-gpt --steps 1 2>&1");
  EXPECT_EQ(one.exit_code, 0) << one.output;
}

}  // namespace
}  // namespace zs
