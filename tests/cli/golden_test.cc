// The golden end-to-end outputs of tests/golden/cases.tsv: every change to the Plan or the cost
// model shows up as a reviewed diff of tests/golden/*.txt. With ZS_UPDATE_GOLDEN=1 in the
// environment the test rewrites the files instead (scripts/update_golden.sh).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/file.h"
#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

struct GoldenCase {
  std::string name;
  std::string args;
};

std::string golden_dir() { return std::string(ZS_SOURCE_DIR) + "/tests/golden/"; }

std::vector<GoldenCase> read_cases() {
  std::vector<GoldenCase> cases;
  std::ifstream in(golden_dir() + "cases.tsv");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    cases.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return cases;
}

// Equal as JSON, doubles to 1e-9 relative (a build with other flags may round differently in
// the last bit). Appends the first differing path to *where.
bool json_equal(const nlohmann::json& a, const nlohmann::json& b, const std::string& path,
                std::string* where) {
  if (a.is_number_float() || b.is_number_float()) {
    if (!a.is_number() || !b.is_number()) return *where = path, false;
    const double x = a.get<double>(), y = b.get<double>();
    if (std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y))) return true;
    return *where = path + " (" + a.dump() + " vs " + b.dump() + ")", false;
  }
  if (a.type() != b.type()) return *where = path, false;
  if (a.is_object()) {
    if (a.size() != b.size()) return *where = path + " (keys)", false;
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return *where = path + "." + it.key(), false;
      if (!json_equal(*it, b[it.key()], path + "." + it.key(), where)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return *where = path + " (length)", false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!json_equal(a[i], b[i], path + "[" + std::to_string(i) + "]", where)) return false;
    }
    return true;
  }
  if (a != b) return *where = path + " (" + a.dump() + " vs " + b.dump() + ")", false;
  return true;
}

// The first line where two texts differ, for the failure message.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool ha = static_cast<bool>(std::getline(a, la));
    const bool hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "identical";
    if (!ha || !hb || la != lb) {
      return "line " + std::to_string(line) + ":\n  golden: " + (ha ? la : "<end>") +
             "\n  now:    " + (hb ? lb : "<end>");
    }
  }
}

TEST(Golden, CasesAreListed) { EXPECT_GE(read_cases().size(), 20u); }

TEST(Golden, OutputsMatchTheGoldenFiles) {
  const bool update = std::getenv("ZS_UPDATE_GOLDEN") != nullptr;
  for (const GoldenCase& c : read_cases()) {
    SCOPED_TRACE(c.name);
    // Relative paths in the arguments, and so in the outputs, are the source tree's.
    const auto r = testing::run_zerosim_in(ZS_SOURCE_DIR, c.args, /*with_stderr=*/false);
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.output;
    const std::string path = golden_dir() + c.name + ".txt";
    if (update) {
      std::ofstream(path, std::ios::binary) << r.output;
      continue;
    }
    const Result<std::string> golden = read_file(path);
    ASSERT_TRUE(golden.ok()) << golden.status().message() << ": run scripts/update_golden.sh";
    const std::string& want = *golden;
    ASSERT_FALSE(want.empty()) << path << " is empty: run scripts/update_golden.sh";
    if (c.args.find("--json") != std::string::npos) {
      std::string where;
      EXPECT_TRUE(
          json_equal(nlohmann::json::parse(want), nlohmann::json::parse(r.output), "$", &where))
          << path << " differs at " << where;
    } else {
      EXPECT_EQ(want, r.output) << path << " differs at " << first_difference(want, r.output);
    }
  }
}

}  // namespace
}  // namespace zs
