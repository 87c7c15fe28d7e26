#include "cli/calibrate_command.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <memory>
#include <optional>

#include "calibrate/cpu_calibration.h"
#include "calibrate/cuda_calibration.h"
#include "cli/exit_codes.h"
#include "cli/flags.h"
#include "cli/options.h"
#include "common/file.h"
#include "common/output_file.h"
#include "exec/device.h"
#include "exec/launch.h"

namespace zs::cli {
namespace {

struct CalibrateFlags {
  std::string backend = "cpu";
  std::string output = "profile.json";
  std::string cluster_output;
  std::string repeats = "5";
  std::string rounds = "12";
  std::string gpu;  // --backend cuda: the preset (default: from the device's name)
  std::string collective_timeout = "600";
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
// where the tree or git is not there. ZS_COMMIT, when set, names it instead: binaries built
// elsewhere and carried (scripts/gpu_evidence.sh) run beside another checkout's git.
std::string source_commit() {
  if (const char* env = std::getenv("ZS_COMMIT"); env != nullptr && *env != '\0') {
    return std::string(env).substr(0, 64);
  }
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

// Before minutes of benchmarks: each output must be a file zerosim can write (a new or regular
// file in a writable folder, or a device written in place), and the profile and the cluster
// file must be two files.
Status check_outputs(const std::string& profile, const std::string& cluster) {
  ZS_RETURN_IF_ERROR(check_output_file(profile).with_context("-o"));
  ZS_RETURN_IF_ERROR(check_output_file(cluster).with_context("--cluster-out"));
  const bool both_devices = is_device_output(profile) && is_device_output(cluster);
  if (!both_devices && (profile == cluster || same_file(profile, cluster))) {
    return Status::invalid_argument("-o " + profile + " and --cluster-out " + cluster +
                                    " are the same file; the cluster file would replace the "
                                    "profile: give two paths");
  }
  return Status::ok();
}

// Writes the cluster file, then the profile: both or neither. When the profile cannot be
// written, the cluster file is put back as it was (or removed when it is new).
Status write_both(const std::string& profile, const std::string& profile_text,
                  const std::string& cluster, const std::string& cluster_text) {
  std::optional<std::string> old_cluster;
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(cluster, ec);
  if (regular) {
    auto old = read_file(cluster, "cluster file");
    if (old.ok()) old_cluster = std::move(*old);
  }
  ZS_RETURN_IF_ERROR(write_output_file(cluster, cluster_text));
  const Status s = write_output_file(profile, profile_text);
  if (s.is_ok()) return s;
  if (old_cluster) {
    (void)write_output_file(cluster, *old_cluster);
  } else if (!regular && !is_device_output(cluster)) {
    std::filesystem::remove(cluster, ec);
  }
  return s;
}

std::string fixed(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}

// The preset whose peaks a CUDA device's efficiencies are fractions of: --gpu, else the one the
// device's name says (an H200, an H100, an A100 80GB or 40GB, a V100).
Result<std::string> cuda_preset(const CalibrateFlags& f) {
  if (!f.gpu.empty()) return f.gpu;
  const std::string name = exec::cuda_device_name();
  const std::pair<const char*, const char*> known[] = {
      {"H200", "h200"},           {"H100", "h100-80gb-sxm"}, {"A100-SXM4-80GB", "a100-80gb"},
      {"A100 80GB", "a100-80gb"}, {"A100", "a100-40gb"},     {"V100", "v100-32gb"}};
  for (const auto& [part, preset] : known) {
    if (name.find(part) != std::string::npos) return std::string(preset);
  }
  return Status::invalid_argument("--gpu: the device \"" + name +
                                  "\" is none of the presets' GPUs; name the preset whose peaks "
                                  "the efficiencies should be fractions of with --gpu");
}

int run_calibrate_cuda(const CalibrateFlags& f) {
  if (!f.cluster_output.empty()) {
    return fail(Status::invalid_argument(
        "--cluster-out: only with --backend cpu; a GPU's cluster is its preset (--gpu)"));
  }
  if (Status s = check_output_file(f.output); !s.is_ok()) return fail(s.with_context("-o"));
  if (Status s = exec::cuda_backend_status(); !s.is_ok()) return fail(s.with_context("calibrate"));
  auto preset = cuda_preset(f);
  if (!preset.ok()) return fail(preset.status());
  calibrate::CudaCalibrateOptions options;
  options.gpu_preset = *preset;
  options.progress = [](const std::string& line) {
    std::fprintf(stderr, "calibrate: %s\n", line.c_str());
    std::fflush(stderr);
  };
  auto cal = calibrate::calibrate_cuda(options);
  if (!cal.ok()) return fail(cal.status());
  const json::Json profile = calibrate::cuda_profile_json(
      *cal, today_utc(), source_commit(),
      "zerosim calibrate --backend cuda --gpu " + *preset + " -o " + f.output);
  if (Status s = write_output_file(f.output, profile.dump(2) + "\n"); !s.is_ok()) return fail(s);
  const calibrate::DeviceFit& fit = cal->fit;
  std::string gemm;
  for (std::size_t i = 0; i < fit.gemm_sides.size(); ++i) {
    gemm += (gemm.empty() ? "" : ", ") + fixed(fit.gemm_efficiency[i], 3) + " at " +
            std::to_string(static_cast<long long>(fit.gemm_sides[i]));
  }
  print("zerosim calibrate: wrote " + f.output + " (simulate --profile with --gpu " + *preset +
        ") for " + cal->device + ":\n  GEMM efficiency " + gemm + "; unaligned " +
        fixed(fit.unaligned_efficiency, 3) + " of peak; attention " +
        fixed(fit.attention_efficiency, 3) + "; HBM " + fixed(fit.hbm_efficiency, 3) +
        "\n  fit over " + std::to_string(fit.rows.size()) + " timed ops: median error " +
        fixed(100 * fit.median_abs_error, 1) + "%, time-weighted " +
        fixed(100 * fit.time_weighted_abs_error, 1) + "%\n");
  return 0;
}

int run_calibrate(const CalibrateFlags& f) {
  if (f.backend == "cuda") return run_calibrate_cuda(f);
  if (!f.gpu.empty()) {
    return fail(
        Status::invalid_argument("--gpu: only with --backend cuda; the CPU backend's "
                                 "device is this machine's core"));
  }
  if (f.backend != "cpu") {
    return fail(Status::invalid_argument("--backend: \"" + f.backend +
                                         "\" is not allowed; expected cpu or cuda"));
  }
  auto repeats = parse_int_flag("--repeats", f.repeats, 1, 1000);
  if (!repeats.ok()) return fail(repeats.status());
  auto rounds = parse_int_flag("--rounds", f.rounds, 1, 100);
  if (!rounds.ok()) return fail(rounds.status());
  auto timeout = parse_int_flag("--collective-timeout", f.collective_timeout, 1, 86'400);
  if (!timeout.ok()) return fail(timeout.status());
  if (f.cluster_output.empty() && !f.output.empty() && is_device_output(f.output)) {
    return fail(Status::invalid_argument(
        "--cluster-out: -o " + f.output +
        " is a device, not a file, so there is no PROFILE.cluster.json to write beside it; name "
        "the cluster file with --cluster-out"));
  }
  const std::string cluster_path =
      f.cluster_output.empty() ? default_cluster_path(f.output) : f.cluster_output;
  if (Status s = check_outputs(f.output, cluster_path); !s.is_ok()) return fail(s);
  auto group = exec::RankGroup::start(static_cast<double>(*timeout));
  if (!group.ok()) return fail(group.status().with_context("calibrate"));
  exec::RankGroup& ranks = **group;
  const bool speaks = ranks.rank() == 0;
  calibrate::CalibrateOptions options;
  options.repeats = static_cast<int>(*repeats);
  options.rounds = static_cast<int>(*rounds);
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
  // More ranks than logical CPUs: they took turns on the cores, so every rate describes a
  // machine shared that way (the cluster file says so with its rank count).
  if (ranks.size() > cal->machine.logical_cpus) {
    std::fprintf(stderr,
                 "zerosim calibrate: warning: %d ranks on %d logical CPUs: the ranks shared cores "
                 "while they were measured, so the profile describes that oversubscribed machine "
                 "(its cluster file holds %d ranks per node); use at most %d ranks for a profile "
                 "of one core per rank\n",
                 ranks.size(), cal->machine.logical_cpus, ranks.size(), cal->machine.logical_cpus);
  }
  const json::Json profile = calibrate::cpu_profile_json(
      *cal, today_utc(), source_commit(),
      "zerosim calibrate --backend " + f.backend + " -o " + f.output + " --repeats " + f.repeats +
          " --rounds " + f.rounds +
          (ranks.size() > 1 ? " (mpirun -np " + std::to_string(ranks.size()) + ")" : ""));
  const json::Json cluster = calibrate::cpu_cluster_json(*cal);
  if (Status s = write_both(f.output, profile.dump(2) + "\n", cluster_path, cluster.dump(2) + "\n");
      !s.is_ok()) {
    return fail(s);
  }
  // A busy or shared machine: the figures carry its noise, and the user should know.
  const double busy_load = 0.5 * cal->machine.logical_cpus;
  if (cal->load_before > busy_load) {
    std::fprintf(stderr,
                 "zerosim calibrate: warning: the machine was busy when calibration began (load "
                 "%.2f on %d logical CPUs): the profile describes a loaded machine; calibrate "
                 "again when it is idle\n",
                 cal->load_before, cal->machine.logical_cpus);
  }
  if (cal->spread > 0.05) {
    std::fprintf(stderr,
                 "zerosim calibrate: warning: the %zu rounds disagreed by %.1f%% on this machine's "
                 "speed (other work, or a shared or throttled CPU); the profile keeps their "
                 "median, and validate reads the spread as noise\n",
                 cal->round_speed.size(), 100 * cal->spread);
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
  document_exit_codes(cmd);
  cmd->add_option("--backend", flags->backend,
                  "cpu (default): this machine's cores; cuda: the current CUDA device, by "
                  "training six small calibration runs and fitting the GPU cost model's rates");
  cmd->add_option("--gpu", flags->gpu,
                  "--backend cuda: the GPU preset whose peaks the efficiencies are fractions of "
                  "(default: the one the device's name says)");
  cmd->add_option("-o,--output", flags->output, "the profile to write (default profile.json)");
  cmd->add_option("--cluster-out", flags->cluster_output,
                  "the cluster file to write (default: PROFILE with .cluster.json)");
  cmd->add_option("--repeats", flags->repeats,
                  "--backend cpu: timed runs per benchmark (default 5)");
  cmd->add_option("--collective-timeout", flags->collective_timeout,
                  "--backend cpu under mpirun: seconds a rank waits for another in a collective "
                  "before calibrate ends with an error naming it (default 600)");
  cmd->add_option("--rounds", flags->rounds,
                  "--backend cpu: passes over every benchmark, each figure the median of the "
                  "passes' (default 12; their disagreement is the profile's calibration_spread)");
  return [flags] { return run_calibrate(*flags); };
}

}  // namespace zs::cli
