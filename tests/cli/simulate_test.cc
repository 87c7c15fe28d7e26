// End-to-end behaviour of `zerosim simulate`.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

using testing::run_zerosim;
using testing::write_temp;

std::string source(const std::string& rel) { return std::string(ZS_SOURCE_DIR) + "/" + rel; }

// The ZeRO paper's worked example through the JSON contract key memory.gpu.model_states_bytes.
TEST(SimulateCli, ZeroPaperModelStatesThroughTheJsonKey) {
  const double expected_gb[] = {120.0, 31.4, 16.6, 1.9};
  for (int stage = 0; stage <= 3; ++stage) {
    const std::string cfg =
        write_temp("zero_paper_" + std::to_string(stage) + ".json",
                   R"({"train_micro_batch_size_per_gpu": 1, "fp16": {"enabled": true},
            "optimizer": {"type": "Adam", "params": {"lr": 1e-4}},
            "zero_optimization": {"stage": )" +
                       std::to_string(stage) + "}}");
    const auto r = run_zerosim("simulate " + cfg + " --model " +
                               source("tests/plan/data/zero_paper_7.5b.json") +
                               " --gpu v100-32gb --nodes 8 --seq-len 512 --json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto j = nlohmann::json::parse(r.output);
    EXPECT_EQ(j["world_size"], 64);
    const double gb = j["memory"]["gpu"]["model_states_bytes"].get<double>() / 1e9;
    const double digits = stage == 0 ? 1.0 : 0.1;
    EXPECT_NEAR(std::round(gb / digits) * digits, expected_gb[stage], 1e-9) << stage;
  }
}

// --fail-on-oom gates CI on the verdict: exit 3 on a predicted OOM, the output printed as usual;
// without the flag, or when the config fits, exit 0.
TEST(SimulateCli, FailOnOomExitsThreeOnAPredictedOom) {
  const std::string cfg = write_temp("oom_gate.json", R"({"train_micro_batch_size_per_gpu": 1,
      "fp16": {"enabled": true}, "zero_optimization": {"stage": 0}})");
  const std::string oom = "simulate " + cfg + " --model llama2-7b --gpu v100-32gb --seq-len 256";
  const auto gated = run_zerosim(oom + " --fail-on-oom");
  EXPECT_EQ(gated.exit_code, 3) << gated.output;
  EXPECT_NE(gated.output.find("Step time"), std::string::npos) << gated.output;
  const auto gated_json = run_zerosim(oom + " --fail-on-oom --json");
  EXPECT_EQ(gated_json.exit_code, 3) << gated_json.output;
  EXPECT_TRUE(nlohmann::json::parse(gated_json.output)["memory"]["gpu"]["oom"].get<bool>());
  EXPECT_EQ(run_zerosim(oom).exit_code, 0);
  const auto fits =
      run_zerosim("simulate " + cfg + " --model gpt2 --gpu a100-80gb --seq-len 256 --fail-on-oom");
  EXPECT_EQ(fits.exit_code, 0) << fits.output;
}

// On a predicted OOM, simulate names the cheapest change that fits with its predicted memory
// (tuning/fit_advice.h), and prints no reserved figure the allocator never reaches.
TEST(SimulateCli, AnOomNamesTheCheapestChangeThatFits) {
  const std::string cfg = write_temp("oom_advice.json", R"({"train_micro_batch_size_per_gpu": 16,
      "gradient_accumulation_steps": 4, "bf16": {"enabled": true},
      "zero_optimization": {"stage": 2}})");
  const std::string oom =
      "simulate " + cfg + " --model llama2-7b --gpu a100-80gb --gpus-per-node 8 --seq-len 2048";
  const auto text = run_zerosim(oom);
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("OUT OF MEMORY"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("What would fit"), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("cheapest: "), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("none: the caching allocator runs out of memory"), std::string::npos);
  const auto json = run_zerosim(oom + " --json");
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const auto j = nlohmann::json::parse(json.output);
  const auto& changes = j["fit_advice"]["changes"];
  ASSERT_FALSE(changes.empty());
  const long capacity = j["memory"]["gpu"]["capacity_bytes"].get<long>();
  for (const auto& c : changes) {
    EXPECT_LT(c["gpu_peak_bytes"].get<long>(), capacity) << c.dump();
    EXPECT_EQ(c["micro_batch"].get<long>() * c["grad_accum"].get<long>(), 16 * 4) << c.dump();
  }
  // A config that fits gets no advice.
  const auto fits = run_zerosim(
      "simulate " + cfg + " --model gpt2 --gpu a100-80gb --seq-len 256 --micro-batch 1 --json");
  ASSERT_EQ(fits.exit_code, 0) << fits.output;
  EXPECT_FALSE(nlohmann::json::parse(fits.output).contains("fit_advice"));
}

// Where the config leaves precision to "auto" and no --seq-len is given, simulate says what it
// assumes at the top and takes the common training choice, not fp32 at the model's context.
TEST(SimulateCli, StatesTheScenarioItAssumes) {
  const std::string cfg = write_temp("assume.json", R"({"train_micro_batch_size_per_gpu": 1,
      "bf16": {"enabled": "auto"}, "fp16": {"enabled": "auto"}, "zero_optimization": {"stage": 2}})");
  const auto a100 = run_zerosim("simulate " + cfg + " --model mistral-7b --gpu a100-80gb --json");
  ASSERT_EQ(a100.exit_code, 0) << a100.output;
  const auto j = nlohmann::json::parse(a100.output);
  EXPECT_EQ(j["seq_len"], 2048);  // not mistral-7b's 32,768
  EXPECT_EQ(j["precision"], "bf16");
  ASSERT_EQ(j["assumed"].size(), 2u) << j["assumed"].dump();
  EXPECT_NE(j["assumed"][1].get<std::string>().find("--precision fp32"), std::string::npos);
  // Text: the assumptions come first. A V100 has no bf16: fp16.
  const auto v100 = run_zerosim("simulate " + cfg + " --model gpt2 --gpu v100-32gb");
  ASSERT_EQ(v100.exit_code, 0) << v100.output;
  EXPECT_EQ(v100.output.rfind("assumed: sequence 1024 tokens", 0), 0u) << v100.output;
  EXPECT_NE(v100.output.find("assumed: precision fp16"), std::string::npos) << v100.output;
  // Given explicitly, nothing is assumed.
  const auto given = run_zerosim(
      "simulate " + cfg + " --model gpt2 --gpu a100-80gb --seq-len 512 --precision fp32 --json");
  ASSERT_EQ(given.exit_code, 0) << given.output;
  const auto g = nlohmann::json::parse(given.output);
  EXPECT_TRUE(g["assumed"].empty());
  EXPECT_EQ(g["precision"], "fp32");
}

// Every command lists its exit codes in --help.
TEST(SimulateCli, EveryCommandsHelpListsItsExitCodesAndTypes) {
  for (const char* cmd :
       {"check", "simulate", "run", "validate", "report", "sweep", "tune", "calibrate"}) {
    const auto r = run_zerosim(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.output.find("Exit codes:"), std::string::npos) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("2  usage error"), std::string::npos) << cmd;
    // Every value is named for what it takes (INT, FILE, fp32|fp16|bf16, ...), none as TEXT.
    EXPECT_EQ(r.output.find(" TEXT"), std::string::npos) << cmd << "\n" << r.output;
  }
  EXPECT_NE(run_zerosim("simulate --help").output.find("--seq-len INT"), std::string::npos);
  EXPECT_NE(run_zerosim("simulate --help").output.find("3  --fail-on-oom"), std::string::npos);
  EXPECT_NE(run_zerosim("validate --help").output.find("4  the measured step time"),
            std::string::npos);
}

TEST(SimulateCli, JsonHasTheContractKeysAndIsDeterministic) {
  const std::string args =
      "simulate " + source("configs/examples/seed004_review_original.json") +
      " --model llama2-7b --gpu a100-80gb --checkpointing --seq-len 2048 --json";
  const auto a = run_zerosim(args);
  const auto b = run_zerosim(args);
  ASSERT_EQ(a.exit_code, 0) << a.output;
  EXPECT_EQ(a.output, b.output);
  const auto j = nlohmann::json::parse(a.output);
  EXPECT_EQ(j["model"]["params"], 6738415616LL);
  EXPECT_EQ(j["world_size"], 8);
  EXPECT_EQ(j["batch"]["micro_batch_per_gpu"], 8);
  EXPECT_EQ(j["batch"]["gradient_accumulation_steps"], 4);
  EXPECT_EQ(j["batch"]["train_batch_size"], 256);
  const auto& gpu = j["memory"]["gpu"];
  for (const char* k : {"peak_bytes", "capacity_bytes", "oom", "model_states_bytes"}) {
    EXPECT_TRUE(gpu.contains(k)) << k;
  }
  std::int64_t sum = 0;
  for (const char* k : {"params_bytes", "grads_bytes", "optimizer_states_bytes",
                        "activations_bytes", "buffers_bytes", "other_bytes"}) {
    ASSERT_TRUE(gpu["breakdown"].contains(k)) << k;
    sum += gpu["breakdown"][k].get<std::int64_t>();
  }
  EXPECT_EQ(sum, gpu["peak_bytes"].get<std::int64_t>());
  EXPECT_TRUE(j["memory"]["cpu"].contains("peak_bytes"));
  EXPECT_TRUE(j["memory"]["cpu"].contains("oom"));
}

TEST(SimulateCli, PredictedOomIsAResultNotAnError) {
  const auto r = run_zerosim("simulate " + source("configs/examples/seed004_review_original.json") +
                             " --model llama2-7b --gpu a100-80gb");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("OUT OF MEMORY"), std::string::npos) << r.output;
}

// Every valid bundled example gives a plausible result: it runs, the peak is positive and below
// ten times the GPU, model states are under the peak.
TEST(SimulateCli, EveryValidExampleSimulates) {
  const char* examples[] = {"seed000_zero3_offload_auto.json",   "seed001_reference_fp16_adam.json",
                            "seed001_flops_profiler.json",       "seed002_zero2_offload_auto.json",
                            "seed004_review_original.json",      "seed004_review_optimized.json",
                            "seed004_zero3_offload_advice.json", "seed004_cpu_offload_advice.json"};
  for (const char* e : examples) {
    const auto r = run_zerosim("simulate " + source(std::string("configs/examples/") + e) +
                               " --model llama2-7b --gpu h100 --micro-batch 2 --grad-accum 2 "
                               "--precision bf16 --seq-len 2048 --checkpointing --json");
    ASSERT_EQ(r.exit_code, 0) << e << "\n" << r.output;
    const auto j = nlohmann::json::parse(r.output);
    const double peak = j["memory"]["gpu"]["peak_bytes"].get<double>();
    const double cap = j["memory"]["gpu"]["capacity_bytes"].get<double>();
    EXPECT_GT(peak, 1e9) << e;
    EXPECT_LT(peak, 10 * cap) << e;
    EXPECT_LE(j["memory"]["gpu"]["model_states_bytes"].get<double>(), peak) << e;
  }
}

TEST(SimulateCli, BadInputExitsOneWithAClearMessage) {
  const std::string ok = source("configs/examples/seed004_review_original.json");
  struct Case {
    std::string args;
    std::string expect;
  };
  const Case cases[] = {
      {"simulate " + ok + " --gpu a100-80gb", "simulate needs --model"},
      {"simulate " + ok + " --model gpt2", "simulate needs a cluster"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --seq-len 0",
       "--seq-len: 0 is out of range"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --seq-len 4096",
       "seq_len"},  // GPT-2's learned positions stop at 1024
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --attention fast", "--attention"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --fragmentation 2", "--fragmentation"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --straggler 0.5", "--straggler"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --profile " +
           write_temp("bad_profile.json", R"({"hbm_efficiency": 2})"),
       "hbm_efficiency: found 2"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --trace /nonexistent-dir/t.json",
       "--trace: /nonexistent-dir/t.json: error[file]: cannot create a temporary file"},
      {"simulate " + ok + " --model gpt2 --gpu a100-80gb --gpus-per-node 4",
       "train_batch_size 256 != micro_batch_per_gpu 8"},
      {"simulate " + source("configs/examples/seed000_zero3_offload_auto.json") +
           " --model gpt2 --gpu a100-80gb",
       "train_micro_batch_size_per_gpu is not known"},
      {"simulate " + source("configs/examples/seed004_review_high_performance.json") +
           " --model gpt2 --gpu a100-80gb",
       "error[unknown-optimizer]: optimizer.type"},
  };
  for (const Case& c : cases) {
    const auto r = run_zerosim(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.args << "\n" << r.output;
  }
}

TEST(SimulateCli, TimeKeysAndATraceFile) {
  const std::string trace = write_temp("trace.json", "");
  const auto r =
      run_zerosim("simulate " + source("configs/examples/seed004_review_original.json") +
                  " --model gpt2-xl --gpu a100-80gb --seq-len 1024 --json --trace " + trace);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  for (const char* k : {"step_s", "compute_s", "exposed_comm_s", "exposed_offload_s", "optimizer_s",
                        "bottleneck"}) {
    EXPECT_TRUE(j["time"].contains(k)) << k;
  }
  for (const char* k : {"samples_per_s", "tokens_per_s", "tflops_per_gpu", "mfu"}) {
    EXPECT_GT(j["throughput"][k].get<double>(), 0) << k;
  }
  // The host's time and DeepSpeed's calls (stage 2: a gradient hook per parameter).
  const auto& host = j["time"]["host"];
  EXPECT_GT(host["busy_s"].get<double>(), 0);
  EXPECT_GT(host["model_calls"].get<long>(), 0);
  EXPECT_GT(host["deepspeed"]["zero12.grad_hook"]["calls"].get<long>(), 0);
  EXPECT_EQ(host["deepspeed"]["zero3.module_hooks"]["calls"].get<long>(), 0);
  EXPECT_GE(j["memory"]["gpu"]["reserved_bytes"].get<long>(),
            j["memory"]["gpu"]["peak_bytes"].get<long>());
  std::ifstream in(trace);
  const auto t = nlohmann::json::parse(in);
  std::set<std::string> phases, tracks;
  for (const auto& e : t["traceEvents"]) {
    phases.insert(e["ph"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"]);
  }
  EXPECT_TRUE(phases.count("X") && phases.count("C") && phases.count("M"));
  EXPECT_TRUE(tracks.count("stream compute"));
  EXPECT_TRUE(tracks.count("link nccl"));
  EXPECT_TRUE(tracks.count("link pcie"));
  EXPECT_TRUE(tracks.count("host issues (launches, DeepSpeed hooks)"));
  int hook_issues = 0;
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X" && e.contains("args") && e["args"].contains("zero12.grad_hook"))
      ++hook_issues;
  }
  EXPECT_GT(hook_issues, 0);
}

}  // namespace
}  // namespace zs
