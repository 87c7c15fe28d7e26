// End-to-end behaviour of `zerosim sweep` and `zerosim tune`: the files they write, their
// determinism, and bad input.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

using testing::run_zerosim;
using testing::write_temp;

constexpr const char* kConfig = R"({
  "train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto", "gradient_clipping": "auto",
  "bf16": {"enabled": "auto"},
  "optimizer": {"type": "AdamW", "params": {"lr": "auto", "weight_decay": "auto"}},
  "zero_optimization": {"stage": 2, "reduce_bucket_size": "auto", "overlap_comm": true,
                        "contiguous_gradients": true}
})";

std::string out_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + "zs_" + std::to_string(getpid()) + "_" + name;
  std::filesystem::remove_all(dir);
  return dir;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string cluster_args() {
  return " --model gpt2 --gpu a100-80gb --seq-len 128 --precision bf16";
}

TEST(SweepCli, WritesTheResultsAndABestConfigThatChecksClean) {
  const std::string cfg = write_temp("sweep.json", kConfig);
  const std::string dir = out_dir("sweep_out");
  const auto r = run_zerosim("sweep " + cfg + cluster_args() +
                             " --micro-batch 2 --grad-accum 1 --vary stage=1,2"
                             " --vary offload=none,optimizer+param --jobs 2 --out " +
                             dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("best: row"), std::string::npos) << r.output;

  const auto j = nlohmann::json::parse(read(dir + "/results.json"));
  EXPECT_EQ(j["format"], "zerosim.sweep/1");
  EXPECT_EQ(j["command"], "sweep");
  for (const char* k : {"config", "model", "cluster", "gpu", "world_size", "gpu_memory_bytes",
                        "seq_len", "headroom"}) {
    EXPECT_TRUE(j["base"].contains(k)) << k;
  }
  EXPECT_EQ(j["base"]["world_size"], 8);
  EXPECT_EQ(j["base"]["headroom"], 0.05);
  ASSERT_EQ(j["varied"].size(), 2u);
  EXPECT_EQ(j["varied"][0]["key"], "stage");
  EXPECT_EQ(j["varied"][0]["values"], nlohmann::json::parse("[1,2]"));
  ASSERT_EQ(j["rows"].size(), 5u);  // the baseline and 2 x 2 variants
  const auto& base = j["rows"][0];
  EXPECT_EQ(base["id"], 0);
  EXPECT_EQ(base["baseline"], true);
  EXPECT_EQ(base["values"]["stage"], 2);
  EXPECT_EQ(base["values"]["offload"], "none");
  int invalid = 0;
  for (const auto& row : j["rows"]) {
    if (row["status"] == "invalid") {
      ++invalid;
      EXPECT_FALSE(row.contains("result"));
      EXPECT_NE(row["error"].get<std::string>().find("offload_param"), std::string::npos);
    } else {
      EXPECT_EQ(row["status"], "ok");
      EXPECT_FALSE(row.contains("error"));
      EXPECT_TRUE(row["result"]["memory"]["gpu"].contains("peak_bytes"));
      EXPECT_TRUE(row["result"]["throughput"].contains("tokens_per_s"));
    }
  }
  EXPECT_EQ(invalid, 2);  // optimizer+param at stages 1 and 2
  ASSERT_FALSE(j["ranking"].empty());
  EXPECT_EQ(j["best"], j["ranking"][0]);
  EXPECT_FALSE(j["pareto"].empty());
  EXPECT_FALSE(j["why"].empty());
  ASSERT_FALSE(j["best_timeline"].empty());
  const auto& op = j["best_timeline"][0];
  for (const char* k : {"stream", "op", "name", "start_s", "end_s"}) EXPECT_TRUE(op.contains(k));

  std::istringstream csv(read(dir + "/results.csv"));
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header,
            "id,stage,offload,status,feasible,peak_bytes,capacity_bytes,oom,params_bytes,"
            "grads_bytes,optimizer_states_bytes,activations_bytes,buffers_bytes,other_bytes,"
            "step_s,compute_s,exposed_comm_s,exposed_offload_s,optimizer_s,other_s,samples_per_s,"
            "tokens_per_s,tflops_per_gpu,mfu,error");
  int lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  EXPECT_EQ(lines, 5);

  // The winner keeps the user's "auto" for the HF Trainer, and the flags it needs are named.
  const std::string best = dir + "/best_ds_config.json";
  const auto best_json = nlohmann::json::parse(read(best));
  EXPECT_EQ(best_json["optimizer"]["params"]["lr"], "auto") << best_json.dump();
  EXPECT_EQ(best_json["train_micro_batch_size_per_gpu"], "auto") << best_json.dump();
  EXPECT_EQ(best_json, j["best_config"]);
  ASSERT_TRUE(j["trainer_args"].is_array()) << j["trainer_args"].dump();
  EXPECT_EQ(j["trainer_args"][0], "--per_device_train_batch_size");
  EXPECT_TRUE(j["best_config_needs"].empty()) << j["best_config_needs"].dump();
  EXPECT_NE(r.output.find("HF Trainer flags it needs: --per_device_train_batch_size"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("best_ds_config.json is ready to use with those flags"),
            std::string::npos)
      << r.output;
  const auto check = run_zerosim("check " + best + " --gpu a100-80gb");
  EXPECT_EQ(check.exit_code, 0) << check.output;
}

TEST(SweepCli, OneOrTwoJobsWriteByteIdenticalResults) {
  const std::string cfg = write_temp("jobs.json", kConfig);
  std::string json[2], csv[2];
  for (int jobs : {1, 2}) {
    const std::string dir = out_dir("jobs_" + std::to_string(jobs));
    const auto r = run_zerosim("sweep " + cfg + cluster_args() +
                               " --vary micro_batch=1..8:x2 --vary overlap_comm=true,false"
                               " --vary zero_optimization.reduce_bucket_size=5e6,5e7"
                               " --global-batch 64 --jobs " +
                               std::to_string(jobs) + " --out " + dir);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    json[jobs - 1] = read(dir + "/results.json");
    csv[jobs - 1] = read(dir + "/results.csv");
  }
  EXPECT_FALSE(json[0].empty());
  EXPECT_EQ(json[0], json[1]);
  EXPECT_EQ(csv[0], csv[1]);
  // micro-batch 1 x 8 GPUs needs 8 steps of accumulation for 64 samples: every row keeps it.
  const auto j = nlohmann::json::parse(json[0]);
  for (const auto& row : j["rows"]) {
    if (row["status"] == "ok") {
      EXPECT_EQ(row["result"]["batch"]["train_batch_size"], 64);
    }
  }
}

TEST(SweepCli, BadInputIsExitOneNamingTheFlagAndNothingIsWritten) {
  const std::string cfg = write_temp("bad.json", kConfig);
  const std::string dir = out_dir("bad_out");
  const std::string base = "sweep " + cfg + cluster_args() + " --out " + dir;
  auto r = run_zerosim(base + " --vary stage=7");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--vary stage=7: 7 is not allowed; expected a ZeRO stage from 0 to 3"),
            std::string::npos)
      << r.output;
  r = run_zerosim(base + " --vary zero_optimization.reduce_bucket_size=5e7,big");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--vary zero_optimization.reduce_bucket_size=big: "
                          "zero_optimization.reduce_bucket_size:"),
            std::string::npos)
      << r.output;
  r = run_zerosim(base + " --vary micro_batch=16..1:x2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("the start is above the end"), std::string::npos) << r.output;
  r = run_zerosim(base + " --vary ofload=none");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("did you mean \"offload\"?"), std::string::npos) << r.output;
  r = run_zerosim("sweep /nonexistent/ds.json" + cluster_args() + " --vary stage=1 --out " + dir);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("/nonexistent/ds.json"), std::string::npos) << r.output;
  r = run_zerosim(base + " --vary stage=1 --headroom 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("--headroom"), std::string::npos) << r.output;
  r = run_zerosim(base + " --micro-batch 2 --vary train_micro_batch_size_per_gpu=1,2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("vary micro_batch instead"), std::string::npos) << r.output;
  r = run_zerosim(base + " --global-batch 64 --vary grad_accum=1,2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  r = run_zerosim(base);  // --vary is required: a usage error
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

TEST(SweepCli, NoFeasibleVariantIsAResult) {
  const std::string cfg = write_temp("nofit.json", R"({"train_micro_batch_size_per_gpu": 1,
      "bf16": {"enabled": true}, "zero_optimization": {"stage": 0}})");
  const std::string dir = out_dir("nofit_out");
  const auto r = run_zerosim("sweep " + cfg +
                             " --model llama2-7b --gpu v100-32gb --gpus-per-node 1 --seq-len 256"
                             " --vary stage=0,1 --out " +
                             dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no variant fits"), std::string::npos) << r.output;
  const auto j = nlohmann::json::parse(read(dir + "/results.json"));
  EXPECT_TRUE(j["best"].is_null());
  EXPECT_TRUE(j["ranking"].empty());
  EXPECT_TRUE(j["best_timeline"].empty());
  EXPECT_FALSE(std::filesystem::exists(dir + "/best_ds_config.json"));
}

TEST(TuneCli, WritesTheSameFilesWithTheTrainerFlags) {
  const std::string cfg = write_temp("tune.json", kConfig);
  const std::string dir = out_dir("tune_out");
  // fp32 (bf16 "auto", no --precision).
  const auto r = run_zerosim("tune " + cfg + " --model gpt2 --gpu a100-80gb --seq-len 128" +
                             " --micro-batch 1 --grad-accum 2 --budget 12 --max-micro-batch 2"
                             " --jobs 2 --out " +
                             dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(read(dir + "/results.json"));
  EXPECT_EQ(j["command"], "tune");
  EXPECT_EQ(j["rows"][0]["baseline"], true);
  EXPECT_LE(j["rows"].size(), 13u);
  EXPECT_EQ(j["varied"].size(), 8u);
  ASSERT_FALSE(j["best"].is_null());
  const auto best = nlohmann::json::parse(read(dir + "/best_ds_config.json"));
  EXPECT_EQ(best["train_batch_size"], "auto");  // the Trainer fills it: 1 x 2 x 8 = 16 kept
  const auto& args = j["trainer_args"];
  ASSERT_TRUE(args.is_array()) << j.dump();
  const auto ga = std::find(args.begin(), args.end(), "--gradient_accumulation_steps");
  ASSERT_NE(ga, args.end()) << args.dump();
  const auto mb = std::find(args.begin(), args.end(), "--per_device_train_batch_size");
  ASSERT_NE(mb, args.end()) << args.dump();
  EXPECT_EQ(std::stoi((mb + 1)->get<std::string>()) * std::stoi((ga + 1)->get<std::string>()), 2)
      << args.dump();
  EXPECT_EQ(run_zerosim("check " + dir + "/best_ds_config.json --gpu a100-80gb").exit_code, 0);
}

// The README's example (the bundled seed 004 config, Llama-2 7B on eight A100 80GB): no
// variant clears the band of a GPU-bound step, so tune keeps the user's values and says why.
TEST(TuneCli, KeepsTheUsersValuesWhereTheGainIsInsideTheBand) {
  const std::string dir = out_dir("tune_band_out");
  const auto r = run_zerosim("tune " + std::string(ZS_SOURCE_DIR) +
                             "/configs/examples/seed004_review_original.json --model llama2-7b "
                             "--gpu a100-80gb --seq-len 2048 --precision bf16 --micro-batch 4 "
                             "--jobs 2 --out " +
                             dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(read(dir + "/results.json"));
  EXPECT_EQ(j["best"], 0) << r.output;
  ASSERT_TRUE(j["winner"].is_object());
  EXPECT_NE(j["winner"]["fastest"], 0);  // a faster row exists, inside the band
  EXPECT_EQ(j["winner"]["band"], 0.19);
  EXPECT_EQ(j["winner"]["changes"], 0);
  const double fastest =
      j["rows"][j["winner"]["fastest"].get<int>()]["result"]["throughput"]["tokens_per_s"]
          .get<double>();
  const double kept = j["rows"][0]["result"]["throughput"]["tokens_per_s"].get<double>();
  EXPECT_GE(kept, fastest * (1 - 0.19));
  EXPECT_GT(fastest, kept);
  EXPECT_NE(r.output.find("tie: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("the config as given stays"), std::string::npos) << r.output;
  EXPECT_EQ(j["why"][0].get<std::string>().rfind("tie: ", 0), 0u);
}

}  // namespace
}  // namespace zs
