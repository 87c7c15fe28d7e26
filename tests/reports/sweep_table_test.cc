// Reading results.json back: the typed rows, and errors that name the file, line and JSON path.
#include "reports/sweep_table.h"

#include <gtest/gtest.h>

#include "tests/reports/sweep_fixture.h"

namespace zs::reports {
namespace {

using json::Json;

Result<SweepTable> parse(const Json& j) {
  auto doc = json::parse_text(j.dump(1), "out/results.json");
  if (!doc.ok()) return doc.status();
  return parse_sweep_table(*doc);
}

TEST(SweepTable, ReadsTheFixture) {
  const auto t = parse(testing::fixture_json());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->command, "sweep");
  EXPECT_EQ(t->base.model, "gpt2");
  EXPECT_EQ(t->base.world_size, 8);
  EXPECT_DOUBLE_EQ(t->base.headroom, 0.05);
  ASSERT_EQ(t->varied.size(), 2u);
  EXPECT_EQ(t->varied[0].key, "micro_batch");
  ASSERT_EQ(t->rows.size(), 5u);
  const SweepRow& r3 = *t->row(3);
  EXPECT_TRUE(r3.valid);
  EXPECT_FALSE(r3.feasible);
  ASSERT_TRUE(r3.result.has_value());
  EXPECT_TRUE(r3.result->oom);
  EXPECT_EQ(r3.result->micro_batch_per_gpu, 4);
  EXPECT_EQ(r3.values[1], Json(false));
  const MemoryBreakdown& b = r3.result->breakdown;
  EXPECT_EQ(b.params_bytes + b.grads_bytes + b.optimizer_states_bytes + b.activations_bytes +
                b.buffers_bytes + b.other_bytes,
            r3.result->peak_bytes);
  const SweepRow& invalid = *t->row(4);
  EXPECT_FALSE(invalid.valid);
  EXPECT_FALSE(invalid.result.has_value());
  EXPECT_NE(invalid.error.find("mismatch"), std::string::npos);
  EXPECT_EQ(t->ranking, (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(t->best, 2);
  ASSERT_EQ(t->best_timeline.size(), 7u);
  EXPECT_EQ(t->best_timeline[6].stream, "reduce");
  EXPECT_EQ(t->row(99), nullptr);
}

TEST(SweepTable, NullBestMeansNoWinner) {
  Json j = testing::fixture_json();
  j["best"] = nullptr;
  const auto t = parse(j);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_FALSE(t->best.has_value());
}

TEST(SweepTable, WrongFormatNamesTheKeyAndWhatIsAllowed) {
  Json j = testing::fixture_json();
  j["format"] = "zerosim.sweep/9";
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("out/results.json:"), std::string::npos) << m;
  EXPECT_NE(m.find("format"), std::string::npos) << m;
  EXPECT_NE(m.find("zerosim.sweep/9"), std::string::npos) << m;
  EXPECT_NE(m.find("\"zerosim.sweep/1\""), std::string::npos) << m;
}

TEST(SweepTable, MissingFormatIsAnError) {
  Json j = testing::fixture_json();
  j.erase("format");
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("format: missing"), std::string::npos)
      << t.status().message();
}

TEST(SweepTable, MissingNestedKeyNamesItsJsonPathAndLine) {
  Json j = testing::fixture_json();
  j["rows"][1]["result"]["time"].erase("step_s");
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("rows[1].result.time.step_s: missing; expected a number"), std::string::npos)
      << m;
  EXPECT_NE(m.find("out/results.json:"), std::string::npos) << m;
}

TEST(SweepTable, WrongTypeNamesThePathAndTheValue) {
  Json j = testing::fixture_json();
  j["rows"][0]["result"]["memory"]["gpu"]["peak_bytes"] = "lots";
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("rows[0].result.memory.gpu.peak_bytes"), std::string::npos) << m;
  EXPECT_NE(m.find("lots"), std::string::npos) << m;
}

TEST(SweepTable, RankingMustNameRowsThatRan) {
  Json j = testing::fixture_json();
  j["ranking"] = {2, 4, 17};
  j["best"] = 4;
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("ranking[1]: row 4 is invalid"), std::string::npos) << m;
  EXPECT_NE(m.find("ranking[2]: 17 names no row"), std::string::npos) << m;
  EXPECT_NE(m.find("best: row 4 is invalid"), std::string::npos) << m;
}

TEST(SweepTable, RepeatedIdsAndBadStatusAreErrors) {
  Json j = testing::fixture_json();
  j["rows"][1]["id"] = 0;
  j["rows"][2]["status"] = "maybe";
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  const std::string& m = t.status().message();
  EXPECT_NE(m.find("rows[1].id: row id 0 repeats"), std::string::npos) << m;
  EXPECT_NE(m.find("rows[2].status: \"maybe\" is not allowed"), std::string::npos) << m;
}

TEST(SweepTable, ManyErrorsAreCutShort) {
  Json j = testing::fixture_json();
  for (int i = 0; i < 30; ++i) j["best_timeline"].push_back({{"op", i}});
  const auto t = parse(j);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("more error(s)"), std::string::npos);
}

TEST(SweepTable, MalformedJsonIsAParseError) {
  auto doc = json::parse_text("{\"format\": \"zerosim.sweep/1\",", "r.json");
  EXPECT_FALSE(doc.ok());
  const auto t = load_sweep_table(::testing::TempDir() + "/no_such_results.json");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kNotFound);
}

TEST(SweepTable, KnobValueText) {
  EXPECT_EQ(knob_value_text(Json(500000000)), "500000000");
  EXPECT_EQ(knob_value_text(Json(5e8)), "500000000");
  EXPECT_EQ(knob_value_text(Json(0.9)), "0.9");
  EXPECT_EQ(knob_value_text(Json(true)), "true");
  EXPECT_EQ(knob_value_text(Json("cpu")), "cpu");
  EXPECT_EQ(knob_value_text(Json()), "-");
}

}  // namespace
}  // namespace zs::reports
