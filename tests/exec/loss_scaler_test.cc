#include "exec/loss_scaler.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace zs::exec {
namespace {

// One table row: the scaler's options, a step sequence ('O' overflow, '.' clean) and the
// scale after each update, derived by hand from the update rule in exec/loss_scaler.h.
struct Case {
  std::string name;
  LossScalerOptions options;
  std::string steps;
  std::vector<double> scales;
  bool exhausted_at_end = false;  // the last 'O' finds the scale at its minimum
};

LossScalerOptions opts(std::int64_t power, std::int64_t window, std::int64_t hysteresis,
                       bool consecutive, std::int64_t min_scale) {
  return {.initial_scale_power = power,
          .loss_scale_window = window,
          .hysteresis = hysteresis,
          .consecutive_hysteresis = consecutive,
          .min_loss_scale = min_scale};
}

const std::vector<Case>& cases() {
  static const std::vector<Case> kCases = {
      // Window 2, no hysteresis. From iter 0 (last overflow -1) the stable interval is 0, 1, 2:
      // doubling at iter 2 and 4; the overflow at iter 5 halves; then stable 0, 1, 2 again.
      {"window_growth",
       opts(4, 2, 1, false, 1),
       ".....O....",
       {16, 16, 32, 32, 64, 32, 32, 32, 64, 64}},
      // Hysteresis 2: the first overflow only uses up one unit (16 stays); without
      // consecutive_hysteresis the clean step at iter 1 does not refill it, so every later
      // overflow halves, down to min 1.
      {"hysteresis_2", opts(4, 1000, 2, false, 1), "O.OO.OO", {16, 16, 8, 4, 4, 2, 1}},
      // Same steps with consecutive_hysteresis: each clean step refills to 2, so an overflow
      // right after a clean step is absorbed and only the second in a row halves.
      {"hysteresis_2_consecutive",
       opts(4, 1000, 2, true, 1),
       "O.OO.OOO",
       {16, 16, 16, 8, 8, 8, 4, 2}},
      // Without consecutive_hysteresis the doubling refills it: overflow at iter 0 (h 2 -> 1),
      // stable interval 2 at iter 3 doubles and refills (h 2), so the overflow at iter 4 is
      // absorbed (h 1) and the one at iter 5 halves.
      {"growth_refills_hysteresis", opts(4, 2, 2, false, 1), "O...OO", {16, 16, 16, 32, 32, 16}},
      // min_loss_scale 3: 4 / 2 = 2 is floored to 3; the next overflow finds 3 == min with no
      // hysteresis: DeepSpeed raises, the scale stays 3.
      {"min_floor", opts(2, 1000, 1, false, 3), "OO", {3, 3}, true},
      // Hysteresis 2 at the floor: the first overflow is absorbed, the second raises.
      {"min_floor_hysteresis", opts(0, 1000, 2, false, 1), "OO", {1, 1}, true},
      // Growth works from the floor again: stable interval 1 after the overflow at iter 0.
      {"floor_then_growth", opts(1, 1, 1, false, 1), "O..O", {1, 1, 2, 1}},
  };
  return kCases;
}

TEST(DynamicLossScaler, ScaleSequencesMatchHandDerivations) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(c.steps.size(), c.scales.size());
    DynamicLossScaler scaler(c.options);
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      const bool overflow = c.steps[i] == 'O';
      EXPECT_EQ(scaler.update(overflow), overflow) << "step " << i;
      EXPECT_EQ(scaler.scale(), c.scales[i]) << "step " << i;
    }
    EXPECT_EQ(scaler.exhausted(), c.exhausted_at_end);
  }
}

TEST(DynamicLossScaler, ExhaustionLeavesTheStateUntouched) {
  DynamicLossScaler scaler(opts(0, 1000, 1, false, 1));
  EXPECT_EQ(scaler.scale(), 1.0);
  EXPECT_TRUE(scaler.update(true));
  EXPECT_TRUE(scaler.exhausted());
  EXPECT_EQ(scaler.scale(), 1.0);
  EXPECT_EQ(scaler.iteration(), 0);  // DeepSpeed raises before cur_iter += 1
  EXPECT_DEATH(scaler.update(false), "minimum");
}

TEST(DynamicLossScaler, HysteresisCountsDown) {
  DynamicLossScaler scaler(opts(10, 1000, 3, false, 1));
  EXPECT_EQ(scaler.hysteresis_left(), 3);
  scaler.update(true);
  scaler.update(true);
  EXPECT_EQ(scaler.hysteresis_left(), 1);
  EXPECT_EQ(scaler.scale(), 1024.0);
  scaler.update(true);
  EXPECT_EQ(scaler.scale(), 512.0);
  EXPECT_EQ(scaler.iteration(), 3);
}

configs::DsConfig fp16_config() {
  configs::DsConfig c;
  c.fp16.enabled = true;
  return c;
}

TEST(LossScalerOptions, DefaultsAreDeepSpeeds) {
  const Result<LossScalerOptions> o = loss_scaler_options(fp16_config());
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->initial_scale_power, 16);
  EXPECT_EQ(o->loss_scale_window, 1000);
  EXPECT_EQ(o->hysteresis, 2);
  EXPECT_FALSE(o->consecutive_hysteresis);
  EXPECT_EQ(o->min_loss_scale, 1);
  EXPECT_EQ(DynamicLossScaler(*o).scale(), 65536.0);
}

TEST(LossScalerOptions, ReadsTheFp16Block) {
  configs::DsConfig c = fp16_config();
  c.fp16.initial_scale_power = 12;
  c.fp16.loss_scale_window = 500;
  c.fp16.hysteresis = 4;
  c.fp16.consecutive_hysteresis = true;
  c.fp16.min_loss_scale = 8;
  c.fp16.scaler_keys_given = true;
  const Result<LossScalerOptions> o = loss_scaler_options(c);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->initial_scale_power, 12);
  EXPECT_EQ(o->loss_scale_window, 500);
  EXPECT_EQ(o->hysteresis, 4);
  EXPECT_TRUE(o->consecutive_hysteresis);
  EXPECT_EQ(o->min_loss_scale, 8);
}

TEST(LossScalerOptions, OldZeroWithoutScalerKeysUsesTheClassDefaults) {
  configs::DsConfig c = fp16_config();
  c.version = {0, 16, 4};
  c.zero.stage = 2;
  const Result<LossScalerOptions> o = loss_scaler_options(c);
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->initial_scale_power, 32);
  EXPECT_EQ(o->hysteresis, 1);
  c.fp16.scaler_keys_given = true;  // any key written: the block's values, defaults included
  EXPECT_EQ(loss_scaler_options(c)->initial_scale_power, 16);
  EXPECT_EQ(loss_scaler_options(c)->hysteresis, 2);
}

TEST(LossScalerOptions, RejectsWhatIsNotADynamicScaler) {
  configs::DsConfig off;
  EXPECT_NE(loss_scaler_options(off).status().message().find("fp16.enabled = false"),
            std::string::npos);
  configs::DsConfig fixed = fp16_config();
  fixed.fp16.loss_scale = 128.0;
  EXPECT_NE(loss_scaler_options(fixed).status().message().find("fp16.loss_scale = 128"),
            std::string::npos);
  configs::DsConfig window = fp16_config();
  window.fp16.loss_scale_window = 0;
  const Status s = loss_scaler_options(window).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("fp16.loss_scale_window = 0"), std::string::npos) << s.message();
  configs::DsConfig floor = fp16_config();
  floor.fp16.min_loss_scale = 0;
  EXPECT_NE(loss_scaler_options(floor).status().message().find("fp16.min_loss_scale = 0"),
            std::string::npos);
}

}  // namespace
}  // namespace zs::exec
