#include "cli/calibrate_command.h"

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>

#include "calibrate/cpu_calibration.h"
#include "cli/flags.h"
#include "cli/options.h"
#include "common/output_file.h"
#include "exec/launch.h"

namespace zs::cli {
namespace {

struct CalibrateFlags {
  std::string backend = "cpu";
  std::string output = "profile.json";
  std::string cluster_output;
  std::string repeats = "5";
};

std::string today_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char day[16];
  std::strftime(day, sizeof day, "%Y-%m-%d", &tm);
  return day;
}

// The source tree's commit (`git rev-parse --short HEAD`, "-dirty" with changes), or "unknown"
// where the tree or git is not there.
std::string source_commit() {
#ifdef ZS_SOURCE_DIR
  const std::string dir = ZS_SOURCE_DIR;
  const auto run = [](const std::string& cmd) {
    std::string out;
    if (FILE* p = popen(cmd.c_str(), "r")) {
      char buf[128];
      while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
      if (pclose(p) != 0) out.clear();
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
    return out;
  };
  std::string commit = run("git -C '" + dir + "' rev-parse --short HEAD 2>/dev/null");
  if (commit.empty()) return "unknown";
  if (!run("git -C '" + dir + "' status --porcelain --untracked-files=no 2>/dev/null").empty()) {
    commit += "-dirty";
  }
  return commit;
#else
  return "unknown";
#endif
}

// PROFILE without its ".json", then ".cluster.json".
std::string default_cluster_path(const std::string& profile) {
  std::string stem = profile;
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0) {
    stem.resize(stem.size() - 5);
  }
  return stem + ".cluster.json";
}

int run_calibrate(const CalibrateFlags& f) {
  if (f.backend == "cuda") {
    return fail(Status::invalid_argument(
        "--backend cuda: calibrating a GPU is not built yet; the GPU presets' profiles come from "
        "published measurements (sim/cost_profile.cc), and scripts/gpu_evidence.sh measures a "
        "lent GPU against them"));
  }
  if (f.backend != "cpu") {
    return fail(Status::invalid_argument("--backend: \"" + f.backend +
                                         "\" is not allowed; expected cpu or cuda"));
  }
  auto repeats = parse_int_flag("--repeats", f.repeats, 1, 1000);
  if (!repeats.ok()) return fail(repeats.status());
  const std::string cluster_path =
      f.cluster_output.empty() ? default_cluster_path(f.output) : f.cluster_output;
  // Before minutes of benchmarks: the files' folders must be there.
  for (const std::string& path : {f.output, cluster_path}) {
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ec;
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
      return fail(Status::io_error(path + ": error[file]: the folder " + parent.string() +
                                   " does not exist"));
    }
  }
  auto group = exec::RankGroup::start(/*collective_timeout_s=*/600);
  if (!group.ok()) return fail(group.status().with_context("calibrate"));
  exec::RankGroup& ranks = **group;
  const bool speaks = ranks.rank() == 0;
  calibrate::CalibrateOptions options;
  options.repeats = static_cast<int>(*repeats);
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "calibrate: %s\n", line.c_str());
    std::fflush(stderr);
  };
  auto cal = calibrate::calibrate_cpu(options, ranks.communicator());
  if (!cal.ok()) {
    fail(cal.status().with_context("calibrate, rank " + std::to_string(ranks.rank())));
    if (ranks.size() > 1) ranks.abort(1);
    return 1;
  }
  if (!speaks) return 0;
  const json::Json profile = calibrate::cpu_profile_json(
      *cal, today_utc(), source_commit(),
      "zerosim calibrate --backend " + f.backend + " -o " + f.output + " --repeats " + f.repeats +
          (ranks.size() > 1 ? " (mpirun -np " + std::to_string(ranks.size()) + ")" : ""));
  const json::Json cluster = calibrate::cpu_cluster_json(*cal);
  if (Status s = write_output_file(f.output, profile.dump(2) + "\n"); !s.is_ok()) return fail(s);
  if (Status s = write_output_file(cluster_path, cluster.dump(2) + "\n"); !s.is_ok()) {
    return fail(s);
  }
  print("zerosim calibrate: wrote " + f.output + " (simulate --profile) and " + cluster_path +
        " (simulate --cluster: " + std::to_string(cal->ranks) + " CPU rank(s) of " +
        cal->machine.cpu_name + ")\n");
  return 0;
}

}  // namespace

std::function<int()> add_calibrate_command(CLI::App& app) {
  auto flags = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure this machine with the executor's own kernels and collectives (under mpirun for "
      "several ranks) and write the cost profile simulate --profile reads, and a cluster file of "
      "this machine's cores");
  cmd->add_option("--backend", flags->backend, "cpu (default); cuda is not built yet");
  cmd->add_option("-o,--output", flags->output, "the profile to write (default profile.json)");
  cmd->add_option("--cluster-out", flags->cluster_output,
                  "the cluster file to write (default: PROFILE with .cluster.json)");
  cmd->add_option("--repeats", flags->repeats, "timed runs per benchmark (default 5)");
  return [flags] { return run_calibrate(*flags); };
}

}  // namespace zs::cli
