// Fit advice on configs that run out of memory: every change it names fits, changes a knob that
// applies and is not already set, keeps the global batch, and comes in order; a config that fits
// gets none.
#include "tuning/fit_advice.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "reports/fit_advice_report.h"
#include "tests/tuning/sweep_test_util.h"
#include "tuning/ranking.h"

namespace zs::tuning {
namespace {

// Llama-2 7B at micro-batch 16 x 2048 tokens on 8 A100 80GB: 190 GiB per GPU without
// checkpointing, far over.
SweepSetup oom_setup(const std::string& zero) {
  SweepSetup s = sweep_setup(R"({"train_micro_batch_size_per_gpu": 16,
    "gradient_accumulation_steps": 4, "bf16": {"enabled": true},
    "zero_optimization": )" + zero +
                                 "}",
                             "llama2-7b", 8, 2048);
  s.headroom = 0.08;
  s.jobs = 2;
  return s;
}

void expect_sound(const FitAdvice& advice, const SweepSetup& s) {
  ASSERT_FALSE(advice.changes.empty());
  EXPECT_GE(advice.fitting, static_cast<std::int64_t>(advice.changes.size()));
  EXPECT_GE(advice.tried, advice.fitting);
  std::set<std::vector<std::string>> knob_sets;
  for (const FitChange& c : advice.changes) {
    SCOPED_TRACE(c.text);
    EXPECT_TRUE(is_feasible(c.row, s.headroom));
    EXPECT_FALSE(c.changes.empty());
    EXPECT_FALSE(c.text.empty());
    EXPECT_EQ(c.row.metrics.train_batch_size, 16 * 4 * 8);  // the global batch kept
    EXPECT_GT(c.row.metrics.band, 0);
    std::vector<std::string> knobs;
    for (const std::string& ch : c.changes) knobs.push_back(ch.substr(0, ch.find('=')));
    EXPECT_TRUE(knob_sets.insert(knobs).second) << "two changes of the same knobs";
    // Parameter offload only at stage 3.
    const bool param_offload =
        std::find(c.changes.begin(), c.changes.end(), "offload=optimizer+param") != c.changes.end();
    if (param_offload) {
      EXPECT_EQ(c.row.values[0], 3);
    }
  }
}

TEST(FitAdvice, NamesOnlyChangesThatFitAndKeepTheGlobalBatch) {
  const SweepSetup s = oom_setup(R"({"stage": 2})");
  auto advice = changes_that_fit(s, 3);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  expect_sound(*advice, s);
  EXPECT_EQ(advice->changes.size(), 3u);
  // The first is choose_winner's: no other fitting change is faster by more than its band.
  const FitChange& first = advice->changes[0];
  for (const FitChange& c : advice->changes) {
    EXPECT_LE(c.row.metrics.tokens_per_s,
              first.row.metrics.tokens_per_s * (1 + c.row.metrics.band) + 1e-9);
  }
  // Stage 2 to 3 is a change it may make; stage 0 or 1 never (they need more memory).
  for (const FitChange& c : advice->changes) {
    for (const std::string& ch : c.changes) {
      EXPECT_NE(ch, "stage=0");
      EXPECT_NE(ch, "stage=1");
      EXPECT_NE(ch, "checkpointing=false");
    }
  }
}

TEST(FitAdvice, NeverRecommendsWhatIsAlreadyOn) {
  SweepSetup s = oom_setup(R"({"stage": 3, "offload_optimizer": {"device": "cpu"}})");
  s.base.activation_checkpointing = true;
  s.base.check.micro_batch = 64;  // out of memory even with checkpointing
  s.base.check.grad_accum = 1;
  auto advice = changes_that_fit(s, 3);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  ASSERT_FALSE(advice->changes.empty());
  for (const FitChange& c : advice->changes) {
    SCOPED_TRACE(c.text);
    EXPECT_TRUE(is_feasible(c.row, s.headroom));
    for (const std::string& ch : c.changes) {
      EXPECT_NE(ch.rfind("checkpointing", 0), 0u) << "checkpointing is already on";
      EXPECT_NE(ch.rfind("stage", 0), 0u) << "stage 3 is the highest";
      EXPECT_NE(ch, "offload=optimizer") << "the optimizer is already offloaded";
    }
  }
}

TEST(FitAdvice, AConfigThatFitsGetsNone) {
  SweepSetup s = sweep_setup(R"({"train_micro_batch_size_per_gpu": 1,
    "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 1}})");
  auto advice = changes_that_fit(s, 3);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  EXPECT_TRUE(advice->changes.empty());
  EXPECT_EQ(advice->tried, 0);
  EXPECT_EQ(reports::render_fit_advice_text(*advice, 1.0), "");
}

TEST(FitAdvice, SaysSoWhenNothingFits) {
  // Llama-2 70B on one GPU whose node has 16 GiB of host memory: nothing holds its states.
  SweepSetup s = sweep_setup(R"({"train_micro_batch_size_per_gpu": 1,
    "gradient_accumulation_steps": 1, "bf16": {"enabled": true},
    "zero_optimization": {"stage": 0}})",
                             "llama2-70b", 1, 2048);
  s.base.cluster.node.host_memory_bytes = 16 * kGiB;
  auto advice = changes_that_fit(s, 3);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  EXPECT_TRUE(advice->changes.empty());
  EXPECT_GT(advice->tried, 0);
  EXPECT_EQ(advice->fitting, 0);
  const std::string text = reports::render_fit_advice_text(*advice, 1.0);
  EXPECT_NE(text.find("none of them"), std::string::npos) << text;
  EXPECT_EQ(reports::render_fit_advice_json(*advice)["changes"].size(), 0u);
}

TEST(FitAdvice, TextAndJsonCarryTheBands) {
  const SweepSetup s = oom_setup(R"({"stage": 2})");
  auto advice = changes_that_fit(s, 2);
  ASSERT_TRUE(advice.ok()) << advice.status().message();
  ASSERT_EQ(advice->changes.size(), 2u);
  const std::string text = reports::render_fit_advice_text(*advice, 1000.0);
  EXPECT_NE(text.find("cheapest: " + advice->changes[0].text), std::string::npos) << text;
  EXPECT_NE(text.find("GiB ±8%"), std::string::npos) << text;
  EXPECT_NE(text.find("tokens/s ±"), std::string::npos) << text;
  const json::Json j = reports::render_fit_advice_json(*advice);
  ASSERT_EQ(j["changes"].size(), 2u);
  EXPECT_EQ(j["changes"][0]["text"], advice->changes[0].text);
  EXPECT_GT(j["changes"][0]["time_band"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(j["changes"][0]["memory_band"].get<double>(), 0.08);
  EXPECT_EQ(j["changes"][0]["gpu_peak_bytes"], advice->changes[0].row.metrics.gpu_peak_bytes);
}

}  // namespace
}  // namespace zs::tuning
