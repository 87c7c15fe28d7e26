// What each plot draws from the sweep: which rows, which series, and when it is omitted.
#include "reports/plots.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/reports/sweep_fixture.h"

namespace zs::reports {
namespace {

using json::Json;

SweepTable table_of(const Json& j) {
  auto doc = json::parse_text(j.dump(), "results.json");
  ZS_CHECK(doc.ok());
  auto t = parse_sweep_table(*doc);
  ZS_CHECK_MSG(t.ok(), t.ok() ? "" : t.status().message().c_str());
  return std::move(t).value();
}

SweepTable fixture() { return table_of(testing::fixture_json()); }

// The lines of data block $name in `script`.
std::vector<std::string> block(const std::string& script, const std::string& name) {
  const std::string head = "$" + name + " << EOD\n";
  std::size_t pos = script.find(head);
  if (pos == std::string::npos) return {};
  pos += head.size();
  std::vector<std::string> lines;
  while (true) {
    const std::size_t end = script.find('\n', pos);
    const std::string line = script.substr(pos, end - pos);
    if (line == "EOD" || end == std::string::npos) break;
    lines.push_back(line);
    pos = end + 1;
  }
  return lines;
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Plots, MemoryBarsForRowsThatRanOnly) {
  const Figure f = memory_figure(fixture());
  const std::vector<std::string> bars = block(f.script, "mem");
  ASSERT_EQ(bars.size(), 4u);  // rows 0-3; row 4 is invalid
  // Ranked rows first (2, 0, 1), then the one that does not fit.
  EXPECT_TRUE(bars[0].starts_with("0 \"#2\"")) << bars[0];
  EXPECT_TRUE(bars[3].starts_with("3 \"#3\"")) << bars[3];
  for (const std::string& b : bars) EXPECT_FALSE(has(b, "#4")) << b;
  // Cumulative tops: row 2 has 2, 1, 4, 12, 0.5, 1 GiB -> 20.5 GiB at the top.
  EXPECT_TRUE(bars[0].ends_with(" 20.5")) << bars[0];
  for (const char* label : {"parameters", "optimizer states", "activations", "GPU capacity (80"}) {
    EXPECT_TRUE(has(f.script, label)) << label;
  }
  EXPECT_TRUE(has(f.script, "set xlabel"));
  EXPECT_TRUE(has(f.script, "set ylabel \"memory per GPU (GiB)\""));
  ASSERT_EQ(f.tables.size(), 1u);
  EXPECT_EQ(f.tables[0].rows.size(), 4u);
  EXPECT_EQ(f.tables[0].rows[3].back().text, "no: OOM");
}

TEST(Plots, ThroughputPerStageFromVariantsThatFit) {
  const Figure f = throughput_figure(fixture());
  ASSERT_FALSE(f.script.empty()) << f.note;
  // One series (ZeRO-2): micro-batch 2 (row 0, faster than row 1) and 4 (row 2).
  // Each point's error bar is its band (0 in the fixture, written before bands existed).
  EXPECT_EQ(block(f.script, "s2"), (std::vector<std::string>{"2 819.2 0", "4 819.2 0"}));
  EXPECT_TRUE(has(f.script, "title \"ZeRO-2\""));
  EXPECT_TRUE(has(f.script, "using 1:2:3 with yerrorlines"));
  Json j = testing::fixture_json();
  for (auto& r : j["rows"]) {
    if (r.contains("result")) r["result"]["time"]["band"] = 0.25;
  }
  const Figure banded = throughput_figure(table_of(j));
  EXPECT_EQ(block(banded.script, "s2"),
            (std::vector<std::string>{"2 819.2 204.8", "4 819.2 204.8"}));
}

TEST(Plots, ThroughputIsOmittedWithOneMicroBatch) {
  Json j = testing::fixture_json();
  j["rows"][2]["feasible"] = false;  // only micro-batch 2 fits now
  j["ranking"] = {0, 1};
  j["pareto"] = {0};
  j["best"] = 0;
  const Figure f = throughput_figure(table_of(j));
  EXPECT_TRUE(f.script.empty());
  EXPECT_TRUE(has(f.note, "omitted")) << f.note;
}

TEST(Plots, OneKnobFigureEachWithTheWinnersSlice) {
  const std::vector<Figure> figures = knob_figures(fixture());
  ASSERT_EQ(figures.size(), 2u);
  const Figure& mb = figures[0];
  EXPECT_EQ(mb.id, "knob-0-micro-batch");
  // The winner is row 2 (overlap_comm true): the slice holds rows 0 and 2.
  EXPECT_EQ(block(mb.script, "slice").size(), 2u);
  EXPECT_EQ(block(mb.script, "oom").size(), 1u);
  EXPECT_EQ(block(mb.script, "fit").size(), 3u);
  EXPECT_TRUE(has(mb.script, "set xlabel \"micro_batch (samples per GPU)\""));
  EXPECT_TRUE(has(mb.script, "set ylabel \"step time (ms)\""));
  EXPECT_TRUE(has(mb.script, "set ylabel \"peak memory per GPU (GiB)\""));
  ASSERT_EQ(mb.tables.size(), 1u);
  EXPECT_EQ(mb.tables[0].rows.size(), 2u);  // 8 only appears in the invalid row
  const Figure& overlap = figures[1];
  EXPECT_TRUE(has(overlap.script, "set xtics (\"true\" 0, \"false\" 1)")) << overlap.script;
}

TEST(Plots, AKnobWithOneValueIsOmittedWithANote) {
  Json j = testing::fixture_json();
  for (Json& r : j["rows"]) r["values"]["overlap_comm"] = true;
  const std::vector<Figure> figures = knob_figures(table_of(j));
  ASSERT_EQ(figures.size(), 2u);
  EXPECT_TRUE(figures[1].script.empty());
  EXPECT_TRUE(has(figures[1].note, "only one of its values ran (true)")) << figures[1].note;
}

TEST(Plots, ParetoFrontAndWinner) {
  const Figure f = pareto_figure(fixture());
  EXPECT_EQ(block(f.script, "front").size(), 2u);
  EXPECT_EQ(block(f.script, "fits").size(), 3u);
  EXPECT_EQ(block(f.script, "oom").size(), 1u);
  EXPECT_TRUE(has(f.script, "\"best #2\""));
  EXPECT_EQ(f.tables[0].rows.size(), 2u);
}

// A tiny model's sizes and rates in MiB and GFLOP/s, not "0.00 GiB" and "0.0 TFLOP/s".
TEST(Plots, TinyModelsAreShownInMibAndGflops) {
  Json j = testing::fixture_json();
  for (Json& row : j["rows"]) {
    if (!row.contains("result")) continue;
    Json& gpu = row["result"]["memory"]["gpu"];
    gpu["peak_bytes"] = gpu["peak_bytes"].get<std::int64_t>() / 1024;
    for (auto& [k, v] : gpu["breakdown"].items()) v = v.get<std::int64_t>() / 1024;
    row["result"]["throughput"]["tflops_per_gpu"] = 0.05;
  }
  const SweepTable t = table_of(j);
  const Figure variants = variants_figure(t);
  const auto& header = variants.tables[0].header;
  const auto column = [&](const std::string& name) {
    return std::find(header.begin(), header.end(), name) - header.begin();
  };
  ASSERT_LT(column("peak (MiB)"), static_cast<long>(header.size()));
  ASSERT_LT(column("GFLOP/s per GPU"), static_cast<long>(header.size()));
  for (const auto& row : variants.tables[0].rows) {
    EXPECT_NE(row[column("peak (MiB)")].text, "0.00");
    EXPECT_EQ(row[column("GFLOP/s per GPU")].text, "50.0");
  }
  const Figure memory = memory_figure(t);
  EXPECT_TRUE(has(memory.tables[0].caption, "(MiB)"));
  EXPECT_TRUE(has(memory.script, "memory per GPU (MiB)"));
  // The 80 GiB capacity far above the bars is not drawn (it would flatten them).
  EXPECT_TRUE(has(memory.note, "far below"));
  EXPECT_TRUE(has(pareto_figure(t).script, "peak memory per GPU (MiB)"));
  // A sweep of a real model keeps GiB and TFLOP/s.
  const Figure big = variants_figure(fixture());
  EXPECT_NE(std::find(big.tables[0].header.begin(), big.tables[0].header.end(), "peak (GiB)"),
            big.tables[0].header.end());
}

// Bucket sizes in tables as configs write them (5e8), not 500000000; and every table of the
// sweep's figures carries the band of its time and memory figures.
TEST(Plots, TablesWriteLargeKnobsShortAndCarryTheBands) {
  Json j = testing::fixture_json();
  j["varied"][0] = {{"key", "zero_optimization.reduce_bucket_size"},
                    {"values", {200000000, 500000000, 8}}};
  for (Json& row : j["rows"]) {
    const int mb = row["values"]["micro_batch"].get<int>();
    row["values"].erase("micro_batch");
    row["values"]["zero_optimization.reduce_bucket_size"] = mb == 2   ? 200000000
                                                            : mb == 4 ? 500000000
                                                                      : 8;
  }
  const SweepTable t = table_of(j);
  const Figure variants = variants_figure(t);
  bool found = false;
  for (const auto& row : variants.tables[0].rows) {
    for (const Cell& c : row) found = found || c.text == "5e8";
    for (const Cell& c : row) EXPECT_NE(c.text, "500000000");
  }
  EXPECT_TRUE(found);
  for (const Figure& f : {variants_figure(fixture()), throughput_figure(fixture()),
                          pareto_figure(fixture()), memory_figure(fixture())}) {
    SCOPED_TRACE(f.id);
    ASSERT_FALSE(f.tables.empty());
    const auto& h = f.tables[0].header;
    EXPECT_NE(std::find(h.begin(), h.end(), "± peak (%)"), h.end());
    if (f.id != "memory") {
      EXPECT_NE(std::find(h.begin(), h.end(), "± time (%)"), h.end());
    }
  }
}

TEST(Plots, TimelineOneRowPerStreamAndTouchingOpsMerged) {
  Figure f = timeline_figure(fixture());
  EXPECT_EQ(block(f.script, "st0").size(), 6u);  // compute: 0.2 ms gaps stay apart
  EXPECT_EQ(block(f.script, "st1").size(), 1u);  // reduce
  EXPECT_TRUE(has(f.script, "set ytics (\"compute\" 1, \"reduce\" 0)"));
  Json j = testing::fixture_json();
  for (Json& s : j["best_timeline"]) {
    if (s["stream"] == "compute") s["end_s"] = s["start_s"].get<double>() + 0.002;
  }
  f = timeline_figure(table_of(j));
  EXPECT_EQ(block(f.script, "st0"), (std::vector<std::string>{"0 12"}));
  ASSERT_EQ(f.tables.size(), 2u);
  EXPECT_EQ(f.tables[0].rows[0][1].text, "6");  // compute's ops
}

// Repeated micro-steps are not listed: each fold is a labelled band, and the busy times count
// the repetitions, so the picture adds up to the step.
TEST(Plots, TimelineFoldsAreLabelledAndCounted) {
  Json j = testing::fixture_json();
  // The 6 compute ops (0-12 ms, 1.8 ms each) as one micro-step, repeated twice more after it.
  j["best_folds"] = {{{"segment", "micro_step.1-2"},
                      {"start_s", 0.012},
                      {"end_s", 0.036},
                      {"period_s", 0.012},
                      {"repeat", 2}}};
  const Figure f = timeline_figure(table_of(j));
  EXPECT_TRUE(has(f.script, "set object rect from 12,-0.6 to 36,"));
  EXPECT_TRUE(has(f.script, "\"micro_step.1-2\""));
  EXPECT_TRUE(has(f.script, "\"x2 more, 12 ms each\""));
  EXPECT_TRUE(has(f.note, "micro_step.1-2: 2 more repetitions")) << f.note;
  // Busy: 6 x 1.8 ms drawn, and twice again folded.
  EXPECT_EQ(f.tables[0].rows[0][2].text, "32.4");
}

TEST(Plots, TimelineIsOmittedWithoutAWinner) {
  Json j = testing::fixture_json();
  j["best"] = nullptr;
  const Figure f = timeline_figure(table_of(j));
  EXPECT_TRUE(f.script.empty());
  EXPECT_TRUE(has(f.note, "no winner")) << f.note;
}

TEST(Plots, ValidationPointsAndTheAgreementLine) {
  EXPECT_TRUE(validation_figure({}).script.empty());
  ValidationPoint cpu{"a.json", "cpu", "", "gpt2", 0.5, 0.4, std::nullopt, 1LL << 30};
  ValidationPoint gpu{"b.json", "cuda", "H100", "gpt2", 0.1, 0.11, 2LL << 30, 1LL << 31};
  Figure f = validation_figure({cpu});
  EXPECT_EQ(block(f.script, "steps"), (std::vector<std::string>{"500 400 \"1\""}));
  EXPECT_TRUE(block(f.script, "peaks").empty());
  EXPECT_TRUE(has(f.note, "Peak memory is not drawn")) << f.note;
  f = validation_figure({cpu, gpu});
  EXPECT_EQ(block(f.script, "peaks"), (std::vector<std::string>{"2 2 \"2\""}));
  EXPECT_TRUE(has(f.script, "title \"prediction = measurement\""));
  ASSERT_EQ(f.tables.size(), 1u);
  EXPECT_EQ(f.tables[0].rows[0][6].text, "-20.0");  // (400 - 500) / 500
}

TEST(Plots, InvalidRowsAreListedWithTheirReasons) {
  const Figure f = invalid_figure(fixture());
  ASSERT_EQ(f.tables.size(), 1u);
  ASSERT_EQ(f.tables[0].rows.size(), 1u);
  EXPECT_EQ(f.tables[0].rows[0][0].text, "#4");
  EXPECT_TRUE(has(f.tables[0].rows[0].back().text, "mismatch"));
  const Figure all = variants_figure(fixture());
  EXPECT_EQ(all.tables[0].rows.size(), 4u);
  // Each figure's band beside it, the tie marked, and one stage column: "ZeRO stage" here (the
  // fixture does not vary the stage), none of its own when the stage is a knob.
  const auto& header = all.tables[0].header;
  for (const char* h : {"± peak (%)", "± time (%)", "tie", "ZeRO stage"}) {
    EXPECT_NE(std::find(header.begin(), header.end(), h), header.end()) << h;
  }
  Json j = testing::fixture_json();
  j["varied"][1]["key"] = "stage";
  j["varied"][1]["values"] = {1, 2};
  for (auto& r : j["rows"]) {
    if (r["values"].contains("overlap_comm")) {
      r["values"].erase("overlap_comm");
      r["values"]["stage"] = 2;
    }
  }
  const Figure staged = variants_figure(table_of(j));
  const auto& h2 = staged.tables[0].header;
  EXPECT_EQ(std::count(h2.begin(), h2.end(), "stage"), 1);
  EXPECT_EQ(std::count(h2.begin(), h2.end(), "ZeRO stage"), 0);
}

TEST(Plots, NothingRanMeansNotesNotEmptyPlots) {
  Json j = testing::fixture_json();
  Json rows = Json::array({j["rows"][4]});
  j["rows"] = rows;
  j["ranking"] = Json::array();
  j["pareto"] = Json::array();
  j["best"] = nullptr;
  j["best_timeline"] = Json::array();
  const SweepTable t = table_of(j);
  EXPECT_TRUE(memory_figure(t).script.empty());
  EXPECT_TRUE(throughput_figure(t).script.empty());
  EXPECT_TRUE(knob_figures(t).empty());
  EXPECT_TRUE(pareto_figure(t).script.empty());
  EXPECT_FALSE(memory_figure(t).note.empty());
}

}  // namespace
}  // namespace zs::reports
