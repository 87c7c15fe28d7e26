// The Plan against real DeepSpeed. Every compact recording in tests/plan/oracle/traces/ (made by
// tests/plan/oracle/compact_traces.py from ../shared/deepspeed-oracle's runs of DeepSpeed on the
// CPU; tests/plan/oracle/README.md says how to re-record) is planned with the same config,
// model, world size, micro-batch, GA steps and sequence length, and must match:
//  - the traced optimizer step's collectives in issue order, per phase (fwd, bwd, step) and
//    micro-step: op, dtype, bytes and group size, exactly;
//  - the model-state bytes of the last rank (the rank the Plan describes) within 1% at four of
//    the oracle's snapshot points: before the step, after the last backward, at the inner
//    optimizer's step() and after the step. after_init is not compared: the optimizer creates
//    its states lazily at the first step, which the Plan, describing a steady-state step,
//    counts from the start.
// What the oracle cannot see (streams, overlap, offload copies, fp16 loss scaling, which this
// CPU cannot run) the Plan keeps taking from DeepSpeed's code; those parts are not tested here.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "models/model_spec.h"
#include "plan/plan.h"
#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

namespace fs = std::filesystem;

const char* const kPoints[] = {"before_traced_step", "traced_after_last_backward",
                               "traced_at_inner_optimizer_step", "after_traced_step"};

std::string oracle_dir() { return std::string(ZS_SOURCE_DIR) + "/tests/plan/oracle/"; }

std::vector<fs::path> trace_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(oracle_dir() + "traces")) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path =
      ::testing::TempDir() + "zs_oracle_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// The plan of the recorded run, or a failure message.
struct Planned {
  std::string error;
  PlannedText result;
};

Planned plan_trace(const nlohmann::json& t) {
  Planned out;
  const std::string name = t["trace"];
  auto model = models::load_hf_config(write_temp(name + "_model.json", t["model"].dump()));
  if (!model.ok()) return out.error = model.status().message(), out;
  const int world = t["world_size"];
  auto cluster = configs::make_cluster("a100-80gb", 1, world);
  if (!cluster.ok()) return out.error = cluster.status().message(), out;
  StepRequest r;
  r.config_path = write_temp(name + "_ds_config.json", t["ds_config"].dump());
  auto version = configs::parse_ds_version(t["versions"]["deepspeed"].get<std::string>());
  if (!version.ok()) return out.error = version.status().message(), out;
  r.check.version = *version;
  r.model = *model;
  r.cluster = *cluster;
  r.seq_len = t["seq_len"];
  auto result = plan_with_memory(r);
  if (!result.ok()) return out.error = result.status().message(), out;
  out.result = std::move(result).value();
  return out;
}

// The micro-step a segment named "micro_step.F" or "micro_step.F-L" starts with; -1 for the
// step segment.
int first_micro_step(const std::string& segment) {
  const std::string prefix = "micro_step.";
  if (segment.rfind(prefix, 0) != 0) return -1;
  return std::stoi(segment.substr(prefix.size()));
}

// The Plan's collectives in the compact recordings' form, repeated segments expanded.
std::vector<std::string> plan_collectives(const Plan& plan) {
  std::vector<std::string> out;
  for (const Segment& s : plan.segments) {
    const int first = first_micro_step(s.name);
    for (int r = 0; r < s.repeat; ++r) {
      for (int id = s.first_op; id < s.end_op; ++id) {
        const Op& op = plan.ops[id];
        const auto* c = std::get_if<CollectiveWork>(&op.work);
        if (c == nullptr) continue;
        std::ostringstream line;
        if (first < 0) {
          line << "step " << plan.micro_steps - 1;  // the oracle's micro counter at the step
        } else {
          line << (op.phase == Phase::kForward ? "fwd " : "bwd ") << first + r;
        }
        line << " " << collective_name(c->kind) << " " << dtype_name(c->dtype) << " " << c->bytes
             << " " << c->group_size;
        out.push_back(line.str());
      }
    }
  }
  return out;
}

// Bytes of every live buffer that is not an activation, on any device (the oracle's CPU run
// has one pool), at the four compared points.
std::map<std::string, Bytes> plan_model_state_bytes(const Plan& plan) {
  const int n = static_cast<int>(plan.ops.size());
  int last_backward = -1, optimizer = -1;
  for (const Segment& s : plan.segments) {
    if (first_micro_step(s.name) >= 0) last_backward = s.end_op - 1;
  }
  for (int id = 0; id < n && optimizer < 0; ++id) {
    if (std::holds_alternative<OptimizerWork>(plan.ops[id].work)) optimizer = id;
  }
  // Live while op `op` runs (-1: before the step), or, `after`, once its frees are done too.
  auto live = [&](int op, bool after) {
    Bytes total = 0;
    for (const Buffer& b : plan.buffers) {
      if (b.category == Category::kActivations) continue;
      // hpZ's secondary partitions are not in the oracle's storage walk (its traces show them
      // only as zero3_params.ds_secondary_numel).
      if (plan.name(b.name) == "params.hpz_secondary") continue;
      if (live_during(b, op) && !(after && b.free_op == op)) total += b.bytes;
    }
    return total;
  };
  return {{"before_traced_step", live(-1, false)},
          {"traced_after_last_backward", live(last_backward, true)},
          {"traced_at_inner_optimizer_step", live(optimizer, false)},
          {"after_traced_step", live(n - 1, true)}};
}

// Where two collective lists first differ, with the counts per phase, for the failure message.
std::string describe_difference(const std::vector<std::string>& want,
                                const std::vector<std::string>& got) {
  std::ostringstream s;
  std::size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  s << "DeepSpeed issues " << want.size() << " collectives, the Plan " << got.size()
    << "; first difference at #" << i << ":\n  deepspeed: " << (i < want.size() ? want[i] : "-")
    << "\n  plan:      " << (i < got.size() ? got[i] : "-");
  for (std::size_t k = i + 1; k < std::min(i + 4, std::max(want.size(), got.size())); ++k) {
    s << "\n  then " << (k < want.size() ? want[k] : "-") << " | "
      << (k < got.size() ? got[k] : "-");
  }
  return s.str();
}

struct Outcome {
  bool collectives_match = false;
  std::string collectives;
  std::vector<std::string> memory;  // one line per point off by more than 1%
};

Outcome compare(const nlohmann::json& t) {
  Outcome o;
  const Planned p = plan_trace(t);
  if (!p.error.empty()) {
    o.collectives = "not planned: " + p.error;
    o.memory.push_back(o.collectives);
    return o;
  }
  const Plan& plan = p.result.built.plan;
  const std::vector<std::string> want = t["collectives"];
  const std::vector<std::string> got = plan_collectives(plan);
  o.collectives_match = want == got;
  if (!o.collectives_match) o.collectives = describe_difference(want, got);
  const std::map<std::string, Bytes> mine = plan_model_state_bytes(plan);
  const int last_rank = t["world_size"].get<int>() - 1;
  for (const char* point : kPoints) {
    const double oracle = t["memory"][point]["per_rank"][last_rank].get<double>();
    const double planned = static_cast<double>(mine.at(point));
    if (std::abs(planned - oracle) > 0.01 * oracle) {
      std::ostringstream line;
      line << point << ": DeepSpeed " << static_cast<long long>(oracle) << " bytes, the Plan "
           << static_cast<long long>(planned) << " (" << (planned - oracle) / oracle * 100 << "%)";
      o.memory.push_back(line.str());
    }
  }
  return o;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

TEST(Oracle, TheSuiteCoversWhatTheIssueAsks) {
  std::set<int> stages, worlds;
  std::set<std::string> families;
  // Stage-3 MoE runs with DeepSpeed's default leaf modules and with zero_optimization.leaf_module
  // set (the MoE block not a leaf, or other modules leaves).
  int moe_default_leaves = 0, moe_configured_leaves = 0, dense_configured_leaves = 0;
  int traces = 0;
  for (const fs::path& f : trace_files()) {
    const nlohmann::json t = read_json(f);
    ++traces;
    const nlohmann::json& zero = t["ds_config"]["zero_optimization"];
    stages.insert(zero.value("stage", 0));
    worlds.insert(t["world_size"].get<int>());
    const std::string family = t["model"]["model_type"].get<std::string>();
    families.insert(family);
    if (zero.value("stage", 0) != 3) continue;
    const bool configured = zero.contains("leaf_module");
    const bool moe = family == "mixtral" || family == "qwen3_moe" || family == "qwen2_moe";
    if (moe) (configured ? moe_configured_leaves : moe_default_leaves)++;
    if (!moe && configured) ++dense_configured_leaves;
  }
  EXPECT_GE(traces, 60);
  EXPECT_EQ(stages, (std::set<int>{0, 1, 2, 3}));
  EXPECT_TRUE(worlds.count(2) && worlds.count(4));
  // Every family zerosim reads (models/model_spec.h) has recordings.
  for (const std::string_view family : models::model_type_names()) {
    EXPECT_TRUE(families.count(std::string(family))) << family;
  }
  EXPECT_GE(moe_default_leaves, 2);
  EXPECT_GE(moe_configured_leaves, 2);
  EXPECT_GE(dense_configured_leaves, 1);
}

// tests/plan/oracle/known_differences.txt: "TRACE collectives|memory REASON" per line, for
// what the Plan does not model yet. A listed difference must still be there (a fix removes its
// line), and everything not listed must match.
std::map<std::string, std::string> known_differences() {
  std::map<std::string, std::string> known;
  std::ifstream in(oracle_dir() + "known_differences.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string trace, what;
    fields >> trace >> what;
    known[trace + " " + what] = line;
  }
  return known;
}

TEST(Oracle, EveryRecordingMatchesThePlan) {
  const std::map<std::string, std::string> known = known_differences();
  int matched = 0, traces = 0;
  for (const fs::path& f : trace_files()) {
    const nlohmann::json t = read_json(f);
    const std::string name = t["trace"];
    SCOPED_TRACE(name);
    const Outcome o = compare(t);
    ++traces;
    matched += o.collectives_match && o.memory.empty();
    std::printf("%-40s collectives %s, model states %s\n", name.c_str(),
                o.collectives_match ? "match" : "DIFFER", o.memory.empty() ? "match" : "DIFFER");
    if (known.count(name + " collectives")) {
      EXPECT_FALSE(o.collectives_match)
          << "the collectives match now: remove the line from known_differences.txt";
    } else {
      EXPECT_TRUE(o.collectives_match) << o.collectives;
    }
    if (known.count(name + " memory")) {
      EXPECT_FALSE(o.memory.empty())
          << "the model states match now: remove the line from known_differences.txt";
    } else {
      for (const std::string& m : o.memory) ADD_FAILURE() << m;
    }
  }
  std::printf("%d of %d recordings match the Plan in collectives and model states\n", matched,
              traces);
}

}  // namespace
}  // namespace zs::plan
