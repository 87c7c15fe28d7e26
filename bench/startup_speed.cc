// Benchmark: what one `zerosim check` costs from exec to exit, the start-up every command pays
// (issue 29 item 4: under 15 ms and 20 MiB resident on a bundled example, in a Release build with
// CUDA compiled in, which loads CUDA and MPI only where they run: exec/backend_library.h).
// It fork/execs `ZEROSIM check CONFIG` RUNS times, then `ZEROSIM --help` as often, output to
// /dev/null, and prints for each the median, fastest and slowest wall-clock time from fork to
// wait4(), and the median peak resident memory (wait4's ru_maxrss), beside the targets.
// One run of each goes first untimed (the page cache). Peak memory of a forked child counts the
// anonymous memory this process had at fork time too, so the figure is an upper bound; this
// process keeps little (printed as "bench's own").
// A benchmark, not a test: it asserts nothing.
//
// Usage: startup_speed [ZEROSIM=build/zerosim]
// [CONFIG=configs/examples/seed004_review_original.json]
//                      [RUNS=30]    (run from the source directory)
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr double kTargetMs = 15;
constexpr double kTargetMiB = 20;

struct Sample {
  double ms = 0;
  double max_rss_mib = 0;
  int status = 0;
};

// One fork/exec of `argv` to exit, its output to /dev/null.
Sample run_once(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  Sample s;
  rusage usage{};
  if (pid < 0 || wait4(pid, &s.status, 0, &usage) != pid) {
    s.status = -1;
    return s;
  }
  s.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  s.max_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024;  // KiB on Linux
  return s;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 == 1 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Prints one line; false when a run failed.
bool measure(const char* name, const std::vector<std::string>& args, int runs) {
  const Sample warm = run_once(args);
  if (warm.status != 0) {
    std::fprintf(stderr, "%s: %s exited with status %d\n", name, args[0].c_str(), warm.status);
    return false;
  }
  std::vector<double> ms, mib;
  for (int i = 0; i < runs; ++i) {
    const Sample s = run_once(args);
    if (s.status != 0) {
      std::fprintf(stderr, "%s: run %d exited with status %d\n", name, i, s.status);
      return false;
    }
    ms.push_back(s.ms);
    mib.push_back(s.max_rss_mib);
  }
  const double t = median(ms), m = median(mib);
  std::printf("%-16s %9.2f %8.2f %8.2f %7.0f %8.1f %12.1f %7.0f\n", name, t,
              *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
              kTargetMs, m, *std::max_element(mib.begin(), mib.end()), kTargetMiB);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string zerosim = argc > 1 ? argv[1] : "build/zerosim";
  const std::string config = argc > 2 ? argv[2] : "configs/examples/seed004_review_original.json";
  const int runs = argc > 3 ? std::max(1, std::atoi(argv[3])) : 30;
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  std::printf("%s, %d runs each (bench's own peak: %.1f MiB)\n", zerosim.c_str(), runs,
              static_cast<double>(self.ru_maxrss) / 1024);
  std::printf("%-16s %9s %8s %8s %7s %8s %12s %7s\n", "command", "median ms", "min ms", "max ms",
              "target", "RSS MiB", "max RSS MiB", "target");
  const bool ok = measure("check", {zerosim, "check", config}, runs) &&
                  measure("--help", {zerosim, "--help"}, runs);
  return ok ? 0 : 1;
}
