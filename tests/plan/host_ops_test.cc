// The Plan's host work against real DeepSpeed's. Every recording in tests/plan/oracle/host_ops/
// (scripts/record_host_ops.py: DeepSpeed 0.19.6 on this machine's CPU, two ranks, one traced
// optimizer step; tests/plan/oracle/README.md says how to re-record) is planned with the same
// config, model, world size, micro-batch, GA steps and sequence length, and per phase of the
// step (engine forward, backward, step) the Plan's host model (plan/host_ops.h) must give:
//  - the ATen calls that reach the dispatcher, collectives apart, within 5% of DeepSpeed's;
//  - the host-device syncs (.item() of device tensors, synchronize(), blocking copies) within
//    5% or one, and the tensors made from Python values, which sync on CUDA only; stage 3's
//    throttles, which wait only when the GPU lags, are not among them (HostOps::waits);
//  - the collectives exactly (plan_oracle_test checks them one by one).
// The Plan describes the last rank: the recordings' rank-1 totals are the reference. Per-call
// counts were read off the GPT-2 recordings at GA 1 (plan/host_ops.cc, models/eager_dispatch.cc);
// Llama, Qwen2, BLOOM, Falcon, DeepSeek, GA 3, four layers and rank 1's partition are what tests
// them; a ZeRO-1/2 bucket's reduction is counted per slice, as stage_1_and_2.py cuts gradients at
// the partition boundaries, from every recording's op_sites.
#include "plan/host_ops.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> recordings() {
  std::vector<fs::path> files;
  const std::string dir = std::string(ZS_SOURCE_DIR) + "/tests/plan/oracle/host_ops";
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      ::testing::TempDir() + "zs_host_ops_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The recorded run's config as zerosim reads it: the config as given with the batch the run
// used and the optimizer DeepSpeed built (torch's AdamW, or DeepSpeedCPUAdam with offload).
nlohmann::json config_of(const nlohmann::json& meta) {
  nlohmann::json c = meta["ds_config_as_given"];
  c["train_micro_batch_size_per_gpu"] = meta["micro_batch"];
  c["gradient_accumulation_steps"] = meta["gradient_accumulation_steps"];
  c["optimizer"] = {{"type", "AdamW"}, {"params", {{"lr", 1e-3}, {"torch_adam", true}}}};
  return c;
}

struct Recorded {
  double calls[kHostPhaseCount] = {0, 0, 0};  // ATen calls, collectives apart
  double syncs[kHostPhaseCount] = {0, 0, 0};
  double collectives[kHostPhaseCount] = {0, 0, 0};
  // Tensors made from Python values (torch.tensor(x, device=...), the from_py class): on CUDA a
  // blocking host-to-device copy, a sync the CPU recording cannot see.
  double from_python[kHostPhaseCount] = {0, 0, 0};
};

// The last rank's per-phase totals over the step's micro-steps.
Recorded recorded(const nlohmann::json& r) {
  Recorded out;
  const char* phases[] = {"forward", "backward", "step"};
  const auto& last = r["other_rank_totals"];
  EXPECT_EQ(last["rank"].get<int>(), r["meta"]["world_size"].get<int>() - 1);
  for (const auto& micro : last["micro"]) {
    for (int ph = 0; ph < kHostPhaseCount; ++ph) {
      const auto& p = micro[phases[ph]];
      const double coll = p.contains("cls") ? p["cls"].value("collective", 0.0) : 0.0;
      out.calls[ph] += p["aten"].get<double>() - coll;
      out.collectives[ph] += coll;
      out.syncs[ph] += p.value("syncs_blocking", 0.0);
      out.from_python[ph] += p.contains("cls") ? p["cls"].value("from_py", 0.0) : 0.0;
    }
  }
  return out;
}

TEST(HostOps, ThePlanMakesDeepSpeedsCallsPerPhase) {
  const auto files = recordings();
  ASSERT_FALSE(files.empty());
  std::string table = "recording: phase calls recorded/planned, syncs recorded/planned\n";
  int checked = 0;
  for (const fs::path& f : files) {
    std::ifstream in(f);
    const nlohmann::json r = nlohmann::json::parse(in);
    const auto& meta = r["meta"];
    if (!meta.value("ok", false)) continue;  // a run DeepSpeed could not make: nothing to hold
    const std::string name = f.stem().string();
    SCOPED_TRACE(name);
    auto model =
        models::load_hf_config(write_temp(name + "_model.json", meta["model_spec"].dump()));
    ASSERT_TRUE(model.ok()) << model.status().message();
    auto cluster = configs::make_cluster("a100-80gb", 1, meta["world_size"].get<int>());
    ASSERT_TRUE(cluster.ok()) << cluster.status().message();
    StepRequest q;
    q.config_path = write_temp(name + "_ds.json", config_of(meta).dump());
    q.model = *model;
    q.cluster = *cluster;
    q.seq_len = meta["seq_len"];
    auto result = plan_with_memory(q);
    ASSERT_TRUE(result.ok()) << result.status().message();
    const auto& built = result->built;
    const auto planned = host_ops_by_phase(built.plan, *built.layout.graph);
    const Recorded rec = recorded(r);
    table += name + ":";
    for (int ph = 0; ph < kHostPhaseCount; ++ph) {
      const auto& p = planned[ph];
      const double calls = static_cast<double>(p.calls());
      const double syncs = static_cast<double>(p.syncs);
      EXPECT_LE(std::fabs(calls - rec.calls[ph]), 0.05 * rec.calls[ph])
          << "phase " << ph << ": recorded " << rec.calls[ph] << ", planned " << calls;
      EXPECT_LE(std::fabs(syncs - rec.syncs[ph]),
                std::max(1.0, 0.05 * rec.syncs[ph]) + rec.from_python[ph])
          << "phase " << ph << ": recorded syncs " << rec.syncs[ph] << ", planned " << syncs;
      EXPECT_EQ(static_cast<double>(p.collectives), rec.collectives[ph]) << "phase " << ph;
      char cell[96];
      std::snprintf(cell, sizeof cell, "  %.0f/%.0f (%+.1f%%) %.0f/%.0f", rec.calls[ph], calls,
                    rec.calls[ph] > 0 ? 100 * (calls / rec.calls[ph] - 1) : 0.0, rec.syncs[ph],
                    syncs);
      table += cell;
    }
    table += "\n";
    ++checked;
  }
  std::printf("%s", table.c_str());
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace zs::plan
