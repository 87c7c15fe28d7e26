// Validation files as `zerosim report` reads them (issue 28 items 7, 8, 10, 11): typed as
// strictly as configs, bounded so that the plots stay finite, validate's own large files read,
// and a step nothing measured shown as n/a.
#include "reports/validation_data.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "reports/plots.h"

namespace zs::reports {
namespace {

namespace fs = std::filesystem;
using json::Json;

Json point(const Json& step_s) {
  return {
      {"backend", "cpu"},
      {"model", {{"name", "tiny-gpt"}}},
      {"time", {{"step_s", step_s}}},
      {"memory", {{"gpu", {{"peak_bytes", nullptr}}}}},
      {"prediction",
       {{"zero_stage", 2},
        {"batch", {{"micro_batch_per_gpu", 1}, {"gradient_accumulation_steps", 1}}},
        {"memory",
         {{"gpu",
           {{"peak_bytes", 1000},
            {"capacity_bytes", 100000},
            {"oom", false},
            {"breakdown",
             {{"params_bytes", 1000},
              {"grads_bytes", 0},
              {"optimizer_states_bytes", 0},
              {"activations_bytes", 0},
              {"buffers_bytes", 0},
              {"other_bytes", 0}}}}}}},
        {"time",
         {{"step_s", 0.02},
          {"compute_s", 0.02},
          {"optimizer_s", 0},
          {"exposed_comm_s", 0},
          {"exposed_offload_s", 0},
          {"bottleneck", ""}}},
        {"throughput", {{"samples_per_s", 50}, {"tokens_per_s", 800}, {"tflops_per_gpu", 0.01}}}}}};
}

Result<ValidationPoint> parse(const Json& j) {
  auto doc = json::parse_text(j.dump(), "v.json");
  EXPECT_TRUE(doc.ok());
  return parse_validation_point(*doc);
}

TEST(ValidationData, NumbersMustBeNumbersWithinBounds) {
  ASSERT_TRUE(parse(point(0.01)).ok()) << parse(point(0.01)).status().message();
  const auto text = parse(point("0.01"));
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("time.step_s: expected a number"), std::string::npos)
      << text.status().message();
  const auto huge = parse(point(1e308));
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("1e+308 is not allowed"), std::string::npos)
      << huge.status().message();
}

TEST(ValidationData, AStepNothingMeasuredIsNotAnError) {
  auto zero = parse(point(0));
  ASSERT_TRUE(zero.ok());
  auto fine = parse(point(0.01));
  ASSERT_TRUE(fine.ok());
  const Figure f = validation_figure({*zero, *fine});
  ASSERT_EQ(f.tables.size(), 1u);
  EXPECT_EQ(f.tables[0].rows[0][6].text, "n/a");  // step error of the 0 s step
  EXPECT_NE(f.tables[0].rows[1][6].text, "n/a");
  EXPECT_FALSE(f.script.empty());  // the measured point is drawn
  const Figure none = validation_figure({*zero});
  EXPECT_TRUE(none.script.empty());
  EXPECT_NE(none.note.find("no file measured a step time"), std::string::npos) << none.note;
}

TEST(ValidationData, ReadsValidatesOwnLargeFiles) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("zs_vd_" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  Json j = point(0.01);
  // Over the 16 MiB of an input file, as `validate --steps 70000` writes.
  Json steps = Json::array();
  for (int i = 0; i < 300000; ++i) {
    steps.push_back({{"step", i}, {"loss", 5.5}, {"seconds", 0.0123456}, {"skipped", false}});
  }
  j["steps"] = steps;
  std::ofstream(dir / "long.json") << j.dump();
  ASSERT_GT(fs::file_size(dir / "long.json"), std::uintmax_t{16} << 20);
  const auto points = load_validation_dir(dir.string());
  ASSERT_TRUE(points.ok()) << points.status().message();
  EXPECT_EQ(points->size(), 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace zs::reports
