// The validate verdict's text: the calibration spread tells the machine's noise from error.
#include "cli/validation.h"

#include <gtest/gtest.h>

namespace zs::cli {
namespace {

TEST(Validation, TheCalibrationSpreadTellsNoiseFromError) {
  Validation v;
  v.timed_steps = 4;
  v.measured_step_s = 0.100;
  v.predicted_step_s = 0.108;
  v.step_error = 0.08;
  EXPECT_EQ(validation_text(v, 0.25).find("calibration rounds"), std::string::npos);
  v.calibration_spread = 0.12;
  std::string text = validation_text(v, 0.25);
  EXPECT_NE(text.find("disagreed by 12.0%"), std::string::npos) << text;
  EXPECT_NE(text.find("within that is the machine's noise"), std::string::npos) << text;
  v.step_error = -0.30;
  text = validation_text(v, 0.25);
  EXPECT_NE(text.find("within 25%: NO"), std::string::npos) << text;
  EXPECT_NE(text.find("beyond that is the model's, not noise"), std::string::npos) << text;
}

}  // namespace
}  // namespace zs::cli
