// End to end, round 3 of probing the commands (issue 28, reports/reliability.md): calibrate,
// validate and run, and report on validation files. Each test names the items it pins.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/cli/probe_fixture.h"
#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

namespace fs = std::filesystem;
using testing::run_zerosim;

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

class Reliability3 : public testing::ProbeFixture {
 protected:
  void SetUp() override {
    ProbeFixture::SetUp();
    cluster_ = write("cpu.cluster.json",
                     R"({"gpu": {"name": "one core", "backend": "cpu", "fp32_flops_per_s": 4e10,
      "hbm_bytes": 4294967296, "hbm_bw_bytes_per_s": 2e10, "sm_count": 1, "pcie_gen": 1,
      "pcie_bw_bytes_per_s": 1e10},
    "node": {"name": "host", "max_gpus_per_node": 2, "nic_count": 0, "nic_bw_bytes_per_s": 1e9,
      "host_memory_bytes": 8589934592, "cpu_cores": 2}, "gpus_per_node": 1})");
  }
  // A short validate of a tiny GPT on the CPU backend against `cluster_`, with `extra` flags.
  std::string validate(const std::string& extra) const {
    return "validate " + c_ + " --model tiny-gpt --seq-len 16 --steps 3 --warmup 1 --cluster " +
           cluster_ + " --tolerance 10 " + extra;
  }

  std::string cluster_;
};

// Items 2, 14, 15: calibrate refuses outputs it could not write, or that are one file, before it
// measures anything (no "calibrate:" progress line is printed).
TEST_F(Reliability3, CalibrateChecksItsOutputsBeforeMeasuring) {
  fs::create_directories(dir_ + "/d");
  fs::create_symlink(dir_ + "/nowhere/x.json", dir_ + "/dangling.json");
  const std::string same = dir_ + "/same.json";
  const struct {
    std::string args, message;
  } cases[] = {
      {"-o " + same + " --cluster-out " + same, "are the same file"},
      {"-o /dev/null", "is a device, not a file"},
      {"-o ''", "an output file name is required"},
      {"-o " + dir_ + "/d", "is a directory"},
      {"-o " + dir_ + "/dangling.json", "symbolic link to a file that does not exist"},
      {"-o " + dir_ + "/missing/p.json", "does not exist"},
      {"-o " + dir_ + "/p.json --cluster-out " + dir_ + "/d", "--cluster-out"},
  };
  for (const auto& c : cases) {
    const auto r = run_zerosim("calibrate --repeats 100 " + c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, c.message)) << c.args << "\n" << r.output;
    EXPECT_FALSE(has(r.output, "calibrate: ")) << "measured before refusing: " << r.output;
  }
  EXPECT_FALSE(fs::exists(same));
}

// Item 13: both files or neither: a cluster file that cannot be written leaves no profile.
TEST_F(Reliability3, CalibrateWritesBothFilesOrNeither) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  const std::string profile = dir_ + "/half.json";
  const auto r =
      run_zerosim("calibrate --repeats 1 --rounds 1 -o " + profile + " --cluster-out /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "/dev/full")) << r.output;
  EXPECT_FALSE(fs::exists(profile));
}

// Item 9: calibrate takes --collective-timeout, checked like run's.
TEST_F(Reliability3, CalibrateTakesACollectiveTimeout) {
  const auto bad = run_zerosim("calibrate --collective-timeout 0 -o " + dir_ + "/p.json");
  EXPECT_EQ(bad.exit_code, 1) << bad.output;
  EXPECT_TRUE(has(bad.output, "--collective-timeout")) << bad.output;
  EXPECT_TRUE(has(run_zerosim("calibrate --help").output, "--collective-timeout"));
}

// Item 4: validate on the CPU backend compares with a prediction for CPU ranks, not an H100.
TEST_F(Reliability3, CpuValidateNeedsTheCpuCluster) {
  const auto r =
      run_zerosim("validate " + c_ + " --model tiny-gpt --seq-len 16 --steps 2 -o " + dir_ + "/v");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "--cluster PROFILE.cluster.json")) << r.output;
  EXPECT_FALSE(has(r.output, "verdict:")) << r.output;
  EXPECT_FALSE(fs::exists(dir_ + "/v"));  // item 16: no folder left behind
}

// Item 5: --world that disagrees with the processes running is an error, as in simulate.
TEST_F(Reliability3, WorldThatDisagreesWithTheRanksIsRefused) {
  const auto run = run_zerosim("run " + c_ + " --model tiny-gpt --seq-len 16 --steps 1 --world 4");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_TRUE(has(run.output, "--world 4 disagrees with the 1 process(es)")) << run.output;
  const auto val = run_zerosim(validate("--world 3 -o " + dir_ + "/v"));
  EXPECT_EQ(val.exit_code, 1) << val.output;
  EXPECT_TRUE(has(val.output, "--world 3 disagrees")) << val.output;
}

// Items 6 and 16: a destination validate cannot write is refused before the training, and a
// failed validate leaves no new folder.
TEST_F(Reliability3, ValidateChecksItsDestinationBeforeTraining) {
  write("file", "x");
  fs::create_directories(dir_ + "/D/x.json");
  const struct {
    std::string args, message;
  } cases[] = {
      {"-o " + dir_ + "/file/sub", "is not a directory"},
      {"-o " + dir_ + "/D --name x", "is a directory"},
      {"-o " + dir_ + "/v --name " + std::string(300, 'n'), "--name: 300 characters is too long"},
  };
  for (const auto& c : cases) {
    const auto r = run_zerosim(validate(c.args));
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_TRUE(has(r.output, c.message)) << c.args << "\n" << r.output;
    EXPECT_FALSE(has(r.output, "step   0")) << "trained before refusing: " << r.output;
  }
  EXPECT_FALSE(fs::exists(dir_ + "/v"));
  // A failure after the checks (a --data file too short for one sequence) leaves no folder.
  const std::string text = write("short.txt", "abc");
  const auto late = run_zerosim(validate("--data " + text + " -o " + dir_ + "/late"));
  EXPECT_EQ(late.exit_code, 1) << late.output;
  EXPECT_FALSE(fs::exists(dir_ + "/late"));
}

// Item 21: --steps 2 without --warmup runs (the default warm-up gives way), and item 22's
// --steps default in validate's help is the one it runs.
TEST_F(Reliability3, ShortValidateRunsWithoutAWarmupFlag) {
  const auto r = run_zerosim("validate " + c_ + " --model tiny-gpt --seq-len 16 --steps 2 " +
                             "--tolerance 10 --cluster " + cluster_ + " -o " + dir_ + "/v");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "verdict")) << r.output;
  // A relative -o that does not exist yet is made in the working directory.
  const auto rel = testing::run_zerosim_in(
      dir_,
      "validate c.json --model tiny-gpt --seq-len 16 --steps 2 --tolerance 10 --cluster " +
          cluster_ + " -o rel --name r",
      true);
  EXPECT_EQ(rel.exit_code, 0) << rel.output;
  EXPECT_TRUE(fs::exists(dir_ + "/rel/r.json")) << rel.output;
  const std::string help = run_zerosim("validate --help").output;
  EXPECT_TRUE(has(help, "optimizer steps (default 8)")) << help;
  EXPECT_FALSE(has(help, "(default 10)")) << help;
}

// Item 22: a CPU cluster has no CUDA context or NCCL, and simulate says so.
TEST_F(Reliability3, ACpuClusterHasNoCudaContext) {
  const auto r =
      run_zerosim("simulate " + c_ + " --model tiny-gpt --seq-len 16 --cluster " + cluster_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(has(r.output, "no CUDA context or NCCL on CPU ranks")) << r.output;
  EXPECT_FALSE(has(r.output, "CUDA context 400")) << r.output;
}

// Item 3: a CPU profile without its backend stamp still cannot price a GPU.
TEST_F(Reliability3, CpuRatesAreRefusedForAGpuCluster) {
  const std::string p =
      write("p.json", R"({"cpu_attention_pair_s": [1e-9, 2e-9], "mpi_latency_s": 1e-6})");
  const auto r = run_zerosim("simulate " + c_ + " --model gpt2 --gpu a100-80gb --profile " + p);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "cpu_attention_pair_s: a CPU rank's rate")) << r.output;
  EXPECT_TRUE(has(r.output, "mpi_latency_s: a CPU rank's rate")) << r.output;
}

// Item 17: a number that is not finite is named as written, not "null".
TEST_F(Reliability3, NonFiniteProfileValuesAreNamedAsWritten) {
  for (const char* literal : {"NaN", "1e999", "-1e999", "Infinity"}) {
    const std::string p = write("p.json", std::string(R"({"hbm_efficiency": )") + literal + "}");
    const auto r = run_zerosim("simulate " + c_ + " --model gpt2 --gpu a100-80gb --profile " + p);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_TRUE(has(r.output, std::string("hbm_efficiency: found ") + literal)) << r.output;
  }
}

}  // namespace
}  // namespace zs
