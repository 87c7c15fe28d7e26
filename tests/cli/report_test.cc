// End-to-end behaviour of `zerosim report`: bad input, and the report of a real sweep rendered
// by headless Chromium (Debian's chromium package, installed by scripts/ensure_deps.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/cli/png_reader.h"
#include "tests/cli/run_zerosim.h"

namespace zs {
namespace {

namespace fs = std::filesystem;
using testing::run_zerosim;

// A fresh directory for one test (ctest runs test processes in parallel), removed at the end
// unless the test failed, to be looked at.
class TestDir {
 public:
  explicit TestDir(const std::string& name)
      : path_((fs::path(::testing::TempDir()) /
               ("zs_report_" + std::to_string(getpid()) + "_" + name))
                  .string()) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TestDir() {
    if (!::testing::Test::HasFailure()) {
      std::error_code ec;
      fs::remove_all(path_, ec);
    }
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// Only the output file's own name may be there afterwards: no half-written file, no temp.
void expect_no_output(const std::string& dir) {
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_FALSE(has(e.path().filename().string(), "report.html")) << e.path();
  }
}

// A results.json with no rows: valid, and nothing to plot.
std::string empty_results() {
  return R"json({"format": "zerosim.sweep/1", "command": "sweep",
  "base": {"config": "ds.json", "model": "gpt2", "cluster": "1 x 8 a100-80gb (8 GPUs)",
           "gpu": "a100-80gb", "world_size": 8, "gpu_memory_bytes": 85899345920, "seq_len": 1024,
           "headroom": 0.05},
  "varied": [], "rows": [], "ranking": [], "pareto": [], "best": null, "why": [],
  "best_timeline": []})json";
}

TEST(ReportCli, MissingDirectoryIsBadInput) {
  const TestDir test_dir("missing");
  const std::string& dir = test_dir.path();
  const auto r = run_zerosim("report " + dir + "/nope -o " + dir + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, dir + "/nope: error[file]: no such directory or file")) << r.output;
  expect_no_output(dir);
}

TEST(ReportCli, DirectoryWithoutResultsIsBadInput) {
  const TestDir test_dir("noresults");
  const std::string& dir = test_dir.path();
  const auto r = run_zerosim("report " + dir + " -o " + dir + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, dir + "/results.json: error[file]: no results.json")) << r.output;
  expect_no_output(dir);
}

TEST(ReportCli, MalformedResultsNamesFileAndPosition) {
  const TestDir test_dir("malformed");
  const std::string& dir = test_dir.path();
  write(dir + "/results.json", "{\"format\": \"zerosim.sweep/1\",\n  \"rows\": [\n");
  const auto r = run_zerosim("report " + dir + " -o " + dir + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, dir + "/results.json:3:")) << r.output;
  expect_no_output(dir);
}

TEST(ReportCli, WrongFormatNamesTheJsonPath) {
  const TestDir test_dir("format");
  const std::string& dir = test_dir.path();
  std::string text = empty_results();
  text.replace(text.find("zerosim.sweep/1"), 15, "zerosim.check/1");
  write(dir + "/results.json", text);
  const auto r = run_zerosim("report " + dir + "/results.json -o " + dir + "/report.html");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output,
                  "results.json:1:2: error[bad-format]: format: \"zerosim.check/1\" is "
                  "not allowed; expected \"zerosim.sweep/1\""))
      << r.output;
  expect_no_output(dir);
}

TEST(ReportCli, MissingGnuplotNamesThePackage) {
  const TestDir test_dir("nognuplot");
  const std::string& dir = test_dir.path();
  write(dir + "/results.json", empty_results());
  // The shell finds the binary by its absolute path; zerosim then searches this PATH.
  const std::string cmd = "PATH=" + dir + "/empty-bin " + std::string(ZS_ZEROSIM_BIN) + " report " +
                          dir + " -o " + dir + "/report.html > " + dir + "/out.txt 2>&1";
  const int status = std::system(cmd.c_str());
  testing::RunResult r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, read(dir + "/out.txt")};
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(has(r.output, "gnuplot-nox")) << r.output;
  expect_no_output(dir);
}

TEST(ReportCli, AResultsJsonPathWithNothingToPlot) {
  const TestDir test_dir("empty");
  const std::string& dir = test_dir.path();
  write(dir + "/results.json", empty_results());
  const auto r = run_zerosim("report " + dir + "/results.json -o " + dir + "/report.html");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string html = read(dir + "/report.html");
  EXPECT_FALSE(has(html, "<svg"));
  EXPECT_TRUE(has(html, "The memory breakdown is omitted: no variant ran."));
  EXPECT_TRUE(has(html, "No tuned config"));
  EXPECT_EQ(run_zerosim("report " + dir).exit_code, 2);  // -o is required
}

// The path of the first of `names` on PATH, or "".
std::string find_on_path(std::initializer_list<const char*> names) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* n : names) {
      const std::string candidate = (dir.empty() ? "." : dir) + "/" + n;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

// A `zerosim run --json` shaped validation file around a real prediction: the measured numbers
// are made up (10% slower, 5% more memory) and the device says so; the report's test needs
// points, not a GPU.
std::string synthetic_validation(const std::string& prediction_json) {
  const nlohmann::json prediction = nlohmann::json::parse(prediction_json);
  nlohmann::json v;
  v["backend"] = "cuda";
  v["device"] = "synthetic (test fixture)";
  v["model"] = prediction["model"];
  v["time"]["step_s"] = prediction["time"]["step_s"].get<double>() * 1.1;
  v["memory"]["gpu"]["peak_bytes"] =
      static_cast<std::int64_t>(prediction["memory"]["gpu"]["peak_bytes"].get<double>() * 1.05);
  v["prediction"] = prediction;
  return v.dump(2);
}

// The section with HTML id `id`.
std::string section(const std::string& html, const std::string& id) {
  const std::size_t start = html.find("<section id=\"" + id + "\">");
  if (start == std::string::npos) return "";
  return html.substr(start, html.find("</section>", start) - start);
}

TEST(ReportCli, RealSweepRendersInHeadlessChromium) {
  const std::string chromium = find_on_path({"chromium", "chromium-browser"});
  if (chromium.empty()) {
    FAIL() << "chromium is not installed (or not on PATH); this test renders the report with it: "
              "run scripts/ensure_deps.sh, which installs Debian's chromium package";
  }
  const TestDir test_dir("chromium");
  const std::string& dir = test_dir.path();
  const std::string cfg = dir + "/ds.json";
  write(cfg, R"({"train_micro_batch_size_per_gpu": 4, "gradient_accumulation_steps": 1,
    "bf16": {"enabled": true}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
    "zero_optimization": {"stage": 2, "overlap_comm": true, "reduce_bucket_size": 5e8}})");
  const std::string sweep_dir = dir + "/sweep";
  const auto sweep = run_zerosim("sweep " + cfg +
                                 " --model gpt2 --gpu a100-80gb --jobs 2 "
                                 "--vary micro_batch=4,8 --vary overlap_comm=true,false "
                                 "--vary zero_optimization.reduce_bucket_size=5e7,5e8 "
                                 "--vary offload=none,optimizer+param --out " +
                                 sweep_dir);
  ASSERT_EQ(sweep.exit_code, 0) << sweep.output;
  const auto sim = run_zerosim("simulate " + cfg + " --model gpt2 --gpu a100-80gb --json");
  ASSERT_EQ(sim.exit_code, 0) << sim.output;
  fs::create_directories(sweep_dir + "/validation");
  write(sweep_dir + "/validation/gpt2_zero2.json", synthetic_validation(sim.output));
  // And a real one: `zerosim validate` trains a tiny GPT on the CPU backend against the
  // prediction for a CPU device (the development VM's calibration, the default for one). The
  // synthetic cluster is far from this machine: --tolerance 10 keeps the verdict (and exit 0).
  const std::string cpu_cluster = dir + "/cpu.cluster.json";
  write(cpu_cluster, R"({"gpu": {"name": "one core", "backend": "cpu", "fp32_flops_per_s": 4e10,
      "hbm_bytes": 4294967296, "hbm_bw_bytes_per_s": 2e10, "sm_count": 1, "pcie_gen": 1,
      "pcie_bw_bytes_per_s": 1e10},
    "node": {"name": "host", "max_gpus_per_node": 2, "nic_count": 0, "nic_bw_bytes_per_s": 1e9,
      "host_memory_bytes": 8589934592, "cpu_cores": 2}, "gpus_per_node": 1})");
  const auto run =
      run_zerosim("validate " + cfg +
                  " --model tiny-gpt --steps 3 --warmup 1 --seq-len 16 "
                  "--micro-batch 1 --tolerance 10 --cluster " +
                  cpu_cluster + " -o " + sweep_dir + "/validation --name tiny_gpt_cpu");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("verdict: step time"), std::string::npos) << run.output;
  // --tolerance gates CI: a verdict of NO exits 4, and the file is written all the same.
  const auto strict =
      run_zerosim("validate " + cfg +
                  " --model tiny-gpt --steps 3 --warmup 1 --seq-len 16 --micro-batch 1 "
                  "--tolerance 1e-9 --cluster " +
                  cpu_cluster + " -o " + dir + "/strict --name strict");
  EXPECT_EQ(strict.exit_code, 4) << strict.output;
  EXPECT_NE(strict.output.find(": NO)"), std::string::npos) << strict.output;
  EXPECT_TRUE(fs::exists(dir + "/strict/strict.json"));

  const std::string html_path = dir + "/report.html";
  const auto report = run_zerosim("report " + sweep_dir + " -o " + html_path);
  ASSERT_EQ(report.exit_code, 0) << report.output;
  const std::string html = read(html_path);
  // The same input gives the same bytes (results.json given directly this time).
  const auto again = run_zerosim("report " + sweep_dir + "/results.json -o " + dir + "/again.html");
  ASSERT_EQ(again.exit_code, 0) << again.output;
  EXPECT_TRUE(read(dir + "/again.html") == html);

  // One SVG per expected plot, each with its axes labelled (gnuplot's <text> elements).
  struct Expected {
    const char* id;
    std::vector<const char*> labels;
  };
  const std::vector<Expected> plots = {
      {"memory", {"variant (#id, as in the table)", "memory per GPU (GiB)"}},
      {"throughput", {"micro-batch per GPU (samples)", "throughput (thousand tokens/s, all GPUs)"}},
      {"knob-0-micro-batch",
       {"micro_batch (samples per GPU)", "step time (ms)", "peak memory per GPU (GiB)"}},
      {"knob-1-overlap-comm", {"overlap_comm", "step time (ms)", "peak memory per GPU (GiB)"}},
      {"knob-2-zero-optimization-reduce-bucket-size",
       {"reduce_bucket_size (elements)", "step time (ms)", "peak memory per GPU (GiB)"}},
      {"pareto", {"peak memory per GPU (GiB)", "step time (ms)"}},
      {"timeline", {"time from the start of the step (ms)", "stream"}},
      {"validation", {"measured (ms)", "predicted (ms)", "measured (GiB)", "predicted (GiB)"}}};
  std::size_t svgs = 0;
  for (std::size_t pos = html.find("<svg "); pos != std::string::npos;
       pos = html.find("<svg ", pos + 1)) {
    ++svgs;
  }
  EXPECT_EQ(svgs, plots.size());
  for (const Expected& p : plots) {
    const std::string s = section(html, p.id);
    ASSERT_TRUE(has(s, "<svg class=\"plot\"")) << p.id;
    for (const char* label : p.labels) {
      EXPECT_TRUE(has(s, std::string("<text>") + label + "</text>")) << p.id << ": " << label;
    }
  }
  EXPECT_TRUE(has(html, "<pre id=\"tuned-config\">"));
  EXPECT_TRUE(has(section(html, "validation"), "<td>tiny_gpt_cpu.json</td><td>cpu</td>"));
  // Parameter offload below stage 3 is invalid: those rows are listed with the reason and
  // plotted nowhere; offload itself has one value that ran, so its plot is a note.
  const auto results = nlohmann::json::parse(read(sweep_dir + "/results.json"));
  int invalid = 0;
  for (const auto& row : results["rows"]) {
    if (row["status"] != "invalid") continue;
    ++invalid;
    const std::string cell = "<td class=\"num\" data-v=\"" + std::to_string(row["id"].get<int>()) +
                             "\">#" + std::to_string(row["id"].get<int>()) + "</td>";
    EXPECT_TRUE(has(section(html, "invalid"), cell)) << cell;
    EXPECT_FALSE(has(section(html, "memory"), cell)) << cell;
  }
  EXPECT_EQ(invalid, 8);
  EXPECT_TRUE(has(section(html, "invalid"), "parameter offload works only at stage 3"));
  EXPECT_TRUE(has(section(html, "knob-3-offload"), "only one of its values ran (none)"));
  // Nothing to fetch: no links, no sources, no imports.
  for (const char* fetch : {"<link", " src=", "@import", "<img", "<iframe"}) {
    EXPECT_FALSE(has(html, fetch)) << fetch;
  }

  // One headless launch: a screenshot of the top of the page (summary, tuned config, memory plot).
  const std::string png_path = dir + "/report.png";
  const std::string cmd = "timeout 120 " + chromium +
                          " --headless --disable-gpu --hide-scrollbars --no-first-run "
                          "--disable-extensions --disable-sync --disable-background-networking "
                          "--disable-component-update " +
                          (geteuid() == 0 ? "--no-sandbox " : "") + "--user-data-dir=" + dir +
                          "/chromium-profile --window-size=1200,2600 --screenshot=" + png_path +
                          " file://" + html_path + " > " + dir + "/chromium.log 2>&1";
  const int rc = std::system(cmd.c_str());
  ASSERT_EQ(rc, 0) << cmd << "\n" << read(dir + "/chromium.log");
  std::string error;
  const auto img = testing::decode_png(read(png_path), &error);
  ASSERT_TRUE(img.has_value()) << error;
  EXPECT_EQ(img->width, 1200);
  EXPECT_EQ(img->height, 2600);

  // Not blank: many colours, a fair share of ink, and the memory plot's activation fill
  // (viridis #277f8e) painted, which only a rendered SVG puts there.
  std::set<std::uint32_t> colours;
  std::size_t ink = 0, activation_fill = 0;
  for (std::size_t i = 0; i + 2 < img->pixels.size();
       i += static_cast<std::size_t>(img->channels)) {
    const int r = img->pixels[i], g = img->pixels[i + 1], b = img->pixels[i + 2];
    colours.insert(static_cast<std::uint32_t>(r << 16 | g << 8 | b));
    if (r + g + b < 3 * 235) ++ink;
    if (std::abs(r - 0x27) <= 4 && std::abs(g - 0x7f) <= 4 && std::abs(b - 0x8e) <= 4) {
      ++activation_fill;
    }
  }
  const double pixels = static_cast<double>(img->width) * img->height;
  EXPECT_GE(colours.size(), 64u);
  EXPECT_GE(static_cast<double>(ink) / pixels, 0.02);
  EXPECT_GE(activation_fill, 500u);
  std::printf(
      "chromium screenshot: %zu bytes, %dx%d, %zu colours, %.1f%% ink, %zu activation-fill "
      "pixels\n",
      read(png_path).size(), img->width, img->height, colours.size(),
      100.0 * static_cast<double>(ink) / pixels, activation_fill);
}

}  // namespace
}  // namespace zs
