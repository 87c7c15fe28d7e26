// Benchmark: `zerosim sweep` variants per second on one core, for this build, a baseline build
// and llm-analysis, measured in one run, with the ratios; then the same sweep over 1, 2 and 4
// MPI ranks (mpirun -np N zerosim sweep). A benchmark, not a test: it asserts nothing.
//
// The sweep (issue 29): configs/examples/seed004_review_original.json, Llama-2 7B on 8 x 8 A100
// 80GB, sequence 4096, --jobs 1, varying
//   zero_optimization.reduce_bucket_size=1e7..5e8:+1e7 x micro_batch=1,2,4,8 x stage=1,2,3 x
//   overlap_comm=true,false   (1,200 variants and row 0, the config as given).
// Each zerosim run is a whole process: start-up, reading the config and model, every row
// simulated and written, the ranking and the winner's explanation. Its rate is rows per CPU
// second of that process (user + system, from wait4), which is what "on one core" means and
// what other load on a shared machine disturbs least; the wall rate is printed beside it.
// The binaries alternate round by round (A B A B ...) so that a machine that speeds up or slows
// down (a shared VM does, by up to 1.5x) moves both alike; the table gives the median round and
// the slowest and fastest.
// llm-analysis (bench/llm_analysis_sweep.py, in the venv bench/llm_analysis_setup.sh makes) runs
// the same grid in-process: its rate leaves out its interpreter's start-up, zerosim's does not.
//
// Usage: sweep_speed [--source DIR] [--zerosim BIN] [--baseline BIN] [--llm-analysis PYTHON]
//                    [--rounds N] [--mpirun MPIRUN] [--ranks 1,2,4]
// bench/sweep_speed.sh builds the baseline from a commit and the venv, then runs this.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/json_reader.h"

namespace {

struct Timed {
  bool ok = false;
  double wall_s = 0;
  double cpu_s = 0;  // user + system of the child and its children
  std::string out;   // stdout
};

// Runs argv with stdout to a file and stderr to /dev/null; times it.
Timed run(const std::vector<std::string>& argv, const std::string& out_path) {
  Timed t;
  std::fflush(stdout);  // else the child's copy of the buffer prints again
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (!std::freopen(out_path.c_str(), "w", stdout) || !std::freopen("/dev/null", "w", stderr)) {
      _exit(127);
    }
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid) return t;
  t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto seconds = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; };
  t.cpu_s = seconds(usage.ru_utime) + seconds(usage.ru_stime);
  t.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  t.out = ss.str();
  return t;
}

// The sweep; `bucket_step` "1e7" (1,201 rows) or "1e6" (12,001 rows, for the MPI
// scaling, where the launcher's start-up would otherwise dominate).
std::vector<std::string> sweep_argv(const std::string& zerosim, const std::string& source,
                                    const std::string& out_dir,
                                    const std::string& bucket_step = "1e7") {
  return {zerosim,
          "sweep",
          source + "/configs/examples/seed004_review_original.json",
          "--model",
          "llama2-7b",
          "--gpu",
          "a100-80gb",
          "--nodes",
          "8",
          "--gpus-per-node",
          "8",
          "--seq-len",
          "4096",
          "--vary",
          "zero_optimization.reduce_bucket_size=" + bucket_step + "..5e8:+" + bucket_step,
          "--vary",
          "micro_batch=1,2,4,8",
          "--vary",
          "stage=1,2,3",
          "--vary",
          "overlap_comm=true,false",
          "--jobs",
          "1",
          "--out",
          out_dir};
}

// Rows of the sweep's results.csv (its lines less the header), 0 when it is missing.
long csv_rows(const std::string& dir) {
  std::ifstream in(dir + "/results.csv");
  long lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return std::max(0L, lines - 1);
}

struct Series {
  std::string name;
  std::vector<double> per_cpu_s, per_wall_s;
  double median(const std::vector<double>& v) const {
    std::vector<double> s = v;
    std::sort(s.begin(), s.end());
    return s.empty() ? 0 : s[s.size() / 2];
  }
  void print() const {
    if (per_cpu_s.empty()) return;
    const auto [lo, hi] = std::minmax_element(per_cpu_s.begin(), per_cpu_s.end());
    std::printf("%-34s %10.0f %17s %10.0f %6zu\n", name.c_str(), median(per_cpu_s),
                ("(" + std::to_string(static_cast<long>(*lo)) + "-" +
                 std::to_string(static_cast<long>(*hi)) + ")")
                    .c_str(),
                median(per_wall_s), per_cpu_s.size());
  }
};

}  // namespace

int main(int argc, char** argv) {
  std::string source = ".", zerosim, baseline, python, mpirun = "mpirun", ranks_list = "1,2,4";
  int rounds = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--source")
      source = value;
    else if (flag == "--zerosim")
      zerosim = value;
    else if (flag == "--baseline")
      baseline = value;
    else if (flag == "--llm-analysis")
      python = value;
    else if (flag == "--rounds")
      rounds = std::max(1, std::atoi(value.c_str()));
    else if (flag == "--mpirun")
      mpirun = value;
    else if (flag == "--ranks")
      ranks_list = value;
    else {
      std::fprintf(stderr, "sweep_speed: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (zerosim.empty()) zerosim = source + "/build/zerosim";
  const std::string tmp =
      std::filesystem::temp_directory_path() / ("zs-sweep-speed-" + std::to_string(getpid()));
  std::filesystem::create_directories(tmp);
  std::printf(
      "sweep: Llama-2 7B, 8 x 8 a100-80gb, seq 4096, 50 reduce_bucket_size x micro-batch "
      "1/2/4/8 x stage 1-3 x overlap_comm, --jobs 1; %d rounds\n",
      rounds);
  std::printf("%-34s %10s %17s %10s %6s\n", "", "rows/cpu-s", "(slowest-fastest)", "rows/wall-s",
              "rounds");
  Series now{"zerosim (this build)", {}, {}}, base{"zerosim (baseline: " + baseline + ")", {}, {}};
  long rows = 0;
  for (int r = 0; r < rounds; ++r) {
    for (Series* s : {&now, &base}) {
      const std::string& bin = s == &now ? zerosim : baseline;
      if (bin.empty()) continue;
      const std::string out = tmp + (s == &now ? "/now" : "/base");
      std::filesystem::remove_all(out);
      const Timed t = run(sweep_argv(bin, source, out), tmp + "/stdout");
      rows = csv_rows(out);
      if (!t.ok || rows == 0) {
        std::fprintf(stderr, "sweep_speed: %s sweep failed\n", bin.c_str());
        return 1;
      }
      s->per_cpu_s.push_back(static_cast<double>(rows) / t.cpu_s);
      s->per_wall_s.push_back(static_cast<double>(rows) / t.wall_s);
    }
  }
  now.print();
  base.print();
  Series llm{"llm-analysis (in-process)", {}, {}};
  if (!python.empty()) {
    for (int r = 0; r < rounds; ++r) {
      const Timed t =
          run({python, source + "/bench/llm_analysis_sweep.py", "--json"}, tmp + "/llm");
      const auto j = zs::json::Json::parse(t.out, nullptr, false);
      if (!t.ok || j.is_discarded() || !j.contains("per_cpu_s")) {
        std::fprintf(stderr, "sweep_speed: llm-analysis failed: %s\n", t.out.c_str());
        return 1;
      }
      llm.name = "llm-analysis " + j.value("version", std::string("?")) + " (in-process)";
      llm.per_cpu_s.push_back(j["per_cpu_s"].get<double>());
      llm.per_wall_s.push_back(j["per_wall_s"].get<double>());
    }
    llm.print();
  }
  std::printf("rows per sweep: %ld\n", rows);
  if (!baseline.empty()) {
    std::printf("this build / baseline:     %.2fx (cpu)\n",
                now.median(now.per_cpu_s) / base.median(base.per_cpu_s));
  }
  if (!python.empty()) {
    std::printf("this build / llm-analysis: %.2fx (cpu)\n",
                now.median(now.per_cpu_s) / llm.median(llm.per_cpu_s));
  }
  // Scaling over MPI ranks: wall time of the whole job (mpirun's start-up included), on the sweep
  // with 10x the bucket sizes.
  std::printf(
      "\nmpirun -np N zerosim sweep (--jobs 1 each), the same sweep with 500 bucket sizes, "
      "wall time of the job (mpirun's start-up included), best of %d:\n",
      rounds);
  long mpi_rows = 0;
  std::printf("%6s %10s %12s %10s\n", "ranks", "wall s", "rows/wall-s", "speed-up");
  double one_s = 0;
  std::stringstream list(ranks_list);
  for (std::string item; std::getline(list, item, ',');) {
    const int np = std::atoi(item.c_str());
    if (np < 1) continue;
    double best = 0;
    for (int r = 0; r < rounds; ++r) {
      std::vector<std::string> cmd = {mpirun, "-np", std::to_string(np), "--oversubscribe"};
      for (const std::string& a : sweep_argv(zerosim, source, tmp + "/mpi", "1e6")) {
        cmd.push_back(a);
      }
      std::filesystem::remove_all(tmp + "/mpi");
      const Timed t = run(cmd, tmp + "/stdout");
      if (np == 1 && r == 0) mpi_rows = csv_rows(tmp + "/mpi");
      if (!t.ok || mpi_rows == 0 || csv_rows(tmp + "/mpi") != mpi_rows) {
        std::fprintf(stderr, "sweep_speed: mpirun -np %d failed\n", np);
        best = 0;
        break;
      }
      best = best == 0 ? t.wall_s : std::min(best, t.wall_s);
    }
    if (best == 0) continue;
    if (np == 1) one_s = best;
    std::printf("%6d %10.3f %12.0f %9.2fx\n", np, best, static_cast<double>(mpi_rows) / best,
                one_s > 0 ? one_s / best : 0.0);
  }
  std::printf("machine: %u hardware threads\n", std::thread::hardware_concurrency());
  std::filesystem::remove_all(tmp);
  return 0;
}
