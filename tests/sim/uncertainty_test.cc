// The uncertainty bands: the committed ones, and the regime a step falls in.
#include "sim/uncertainty.h"

#include <gtest/gtest.h>

#include "common/json_reader.h"

namespace zs::sim {
namespace {

// The bands carry the committed derivation (configs/profiles/uncertainty_bands.json, made by
// scripts/calibrate_published.sh from the fit's left-out residuals): a refit whose bands are not
// copied into uncertainty.cc fails here.
TEST(Uncertainty, BandsAreTheCommittedDerivation) {
  auto doc =
      json::parse_file(std::string(ZS_SOURCE_DIR) + "/configs/profiles/uncertainty_bands.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const json::Json& regimes = doc->root["regimes"];
  int rows = 0;
  for (Regime r : {Regime::kGpuBound, Regime::kHostBound, Regime::kOffload}) {
    const std::string name(regime_name(r));
    SCOPED_TRACE(name);
    ASSERT_TRUE(regimes.contains(name));
    const Band b = time_band(r);
    EXPECT_DOUBLE_EQ(b.fraction, regimes[name]["band"].get<double>());
    EXPECT_EQ(b.rows, regimes[name]["rows"].get<int>());
    // 2 in 3 of the rows stay within it: the band covers the 68th percentile it rounds up.
    EXPECT_GE(b.fraction, regimes[name]["p68_left_out"].get<double>());
    EXPECT_LT(b.fraction - regimes[name]["p68_left_out"].get<double>(), 0.01);
    rows += b.rows;
  }
  // Every time row of the fit is in one regime.
  auto fit =
      json::parse_file(std::string(ZS_SOURCE_DIR) + "/configs/profiles/published_runs_fit.json");
  ASSERT_TRUE(fit.ok()) << fit.status().message();
  EXPECT_EQ(rows, fit->root["rows"].get<int>());
  EXPECT_GT(memory_band().fraction, 0);
}

// The CPU backend's band is the committed derivation from its validate runs.
TEST(Uncertainty, TheCpuBackendBandComesFromItsValidateRuns) {
  auto doc =
      json::parse_file(std::string(ZS_SOURCE_DIR) + "/configs/profiles/cpu_backend_band.json");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const Band b = time_band(Regime::kCpuBackend);
  EXPECT_DOUBLE_EQ(b.fraction, doc->root["band"].get<double>());
  EXPECT_EQ(b.rows, doc->root["rows"].get<int>());
  EXPECT_EQ(b.rows, static_cast<int>(doc->root["runs"].size()));
  EXPECT_GE(b.fraction, doc->root["p68"].get<double>());
  EXPECT_LT(b.fraction - doc->root["p68"].get<double>(), 0.01);
  StepTime t;
  t.step_s = 1.0;
  t.cpu_backend = true;
  EXPECT_EQ(classify_regime(t, true), Regime::kCpuBackend);
  EXPECT_EQ(regime_name(Regime::kCpuBackend), "cpu-backend");
}

TEST(Uncertainty, ARegimeIsOffloadThenHostIdleThenGpu) {
  StepTime t;
  t.step_s = 1.0;
  t.host.gpu_idle_s = 0.2;
  EXPECT_EQ(classify_regime(t, false), Regime::kGpuBound);
  EXPECT_EQ(classify_regime(t, true), Regime::kOffload);
  t.host.gpu_idle_s = kHostBoundIdleFraction;
  EXPECT_EQ(classify_regime(t, false), Regime::kHostBound);
  EXPECT_EQ(classify_regime(t, true), Regime::kOffload);
}

}  // namespace
}  // namespace zs::sim
