#include "cli/run_command.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <new>

#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/validation.h"
#include "common/file.h"
#include "common/output_file.h"
#include "exec/device.h"
#include "exec/executor.h"
#include "exec/launch.h"
#include "exec/model_runner.h"
#include "plan/plan_step.h"
#include "reports/simulate_report.h"
#include "sim/simulate.h"

namespace zs::cli {
namespace {

struct RunFlags {
  CommonFlags common;
  std::string steps = "10";
  std::string backend = "cpu";
  std::string seq_len;
  std::string data;
  std::string seed = "0";
  std::string inject_overflow;
  std::string collective_timeout = "600";
  bool checkpointing = false;
  std::string profile;  // a calibration profile for the prediction
  // `zerosim validate`: the run's figures against the prediction, written to a file.
  bool validate = false;
  std::string warmup;  // "": kDefaultWarmup, or fewer when --steps leaves no timed step
  std::string output_dir = "validation";
  std::string name;
  std::string tolerance = "0.25";
};

// The process's peak resident memory (getrusage: KiB on Linux).
std::int64_t peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<std::int64_t>(u.ru_maxrss) * 1024;
}

// Every rank's `x`, in rank order (just x for a single rank). Every rank calls it at the same
// point; a failed collective is said, naming the rank, and ends every rank.
std::vector<double> group_values(exec::RankGroup& g, double x) {
  exec::Communicator* comm = g.communicator();
  if (comm == nullptr) return {x};
  std::vector<double> v(static_cast<std::size_t>(comm->size()), 0.0);
  v[static_cast<std::size_t>(comm->rank())] = x;
  if (const Status s = comm->all_reduce(v.data(), comm->size(), plan::Dtype::kFp64); !s.is_ok()) {
    std::fprintf(stderr, "rank %d of %d: %s\n", g.rank(), g.size(), s.message().c_str());
    g.abort(1);
  }
  return v;
}

// The mean over the ranks of each rank's `x`, as group_values.
double group_mean(exec::RankGroup& g, double x) {
  const std::vector<double> v = group_values(g, x);
  double sum = 0;
  for (double y : v) sum += y;
  return sum / static_cast<double>(v.size());
}

// Mean step time over the steps after the first (which pays for first touches), or the only
// step.
double steady_step_s(const exec::ExecResult& r) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = r.steps.size() > 1 ? 1 : 0; i < r.steps.size(); ++i) {
    sum += r.steps[i].seconds;
    ++n;
  }
  return n > 0 ? sum / n : 0;
}

// The run's report. Several ranks: `rank_step_s` and `rank_host_bytes` hold each rank's steady
// step time and peak host memory, `losses` each step's mean loss over the ranks; the other
// per-step figures are rank 0's (the norm, scale and skips are the group's on every rank).
json::Json measured_json(const sim::SimulationResult& sim, const sim::SimulationRequest& request,
                         const exec::ExecResult& r, const std::string& backend,
                         const std::vector<double>& rank_step_s,
                         const std::vector<double>& rank_host_bytes,
                         const std::vector<double>& losses) {
  json::Json j;
  j["backend"] = backend;
  if (backend == "cuda") j["device"] = exec::cuda_device_name();
  j["model"]["name"] = request.model.name;
  j["model"]["params"] = sim.params;
  j["world_size"] = sim.built.plan.world_size;
  j["seq_len"] = sim.seq_len;
  j["batch"]["micro_batch_per_gpu"] = sim.built.layout.micro_batch;
  j["batch"]["gradient_accumulation_steps"] = sim.built.layout.micro_steps;
  j["batch"]["train_batch_size"] = sim.train_batch_size;
  // The caching allocator's peaks (max_memory_allocated / max_memory_reserved), rank 0's: on
  // CUDA every device byte; on the CPU backend, whose tensors live in host memory, the Plan's
  // device buffers as that allocator places them (exec/plan_buffers.h), to set beside
  // prediction.memory's allocator figures.
  if (r.device_memory) {
    j["memory"]["gpu"]["peak_bytes"] = r.device_memory->peak_allocated_bytes;
    j["memory"]["gpu"]["peak_reserved_bytes"] = r.device_memory->peak_reserved_bytes;
    j["memory"]["gpu"]["source"] =
        backend == "cuda" ? "device tensors" : "the plan's device buffers, accounted";
  } else {
    j["memory"]["gpu"]["peak_bytes"] = nullptr;
  }
  j["memory"]["cpu"]["peak_bytes"] =
      static_cast<std::int64_t>(*std::max_element(rank_host_bytes.begin(), rank_host_bytes.end()));
  const double step_s = *std::max_element(rank_step_s.begin(), rank_step_s.end());
  const int world = sim.built.plan.world_size;
  json::Json per_rank = json::Json::array();
  for (int k = 0; k < world; ++k) {
    per_rank.push_back({{"rank", k},
                        {"step_s", rank_step_s[static_cast<std::size_t>(k)]},
                        {"host_peak_bytes",
                         static_cast<std::int64_t>(rank_host_bytes[static_cast<std::size_t>(k)])}});
  }
  j["ranks"] = per_rank;
  j["time"]["step_s"] = step_s;
  const double samples = static_cast<double>(sim.train_batch_size);
  const double model_flops = sim.time.model_flops;  // per step, as the prediction counts them
  j["throughput"]["samples_per_s"] = step_s > 0 ? samples / step_s : 0.0;
  j["throughput"]["tokens_per_s"] =
      step_s > 0 ? static_cast<double>(r.tokens_per_step) * world / step_s : 0.0;
  j["throughput"]["tflops_per_gpu"] = step_s > 0 ? model_flops / step_s / 1e12 : 0.0;
  // No peak FLOP/s is known for a CPU, nor, here, for the device actually used.
  j["throughput"]["mfu"] = nullptr;
  j["skipped_steps"] = r.skipped_steps;
  j["final_loss_scale"] = r.final_loss_scale;
  json::Json steps = json::Json::array();
  for (const exec::StepStats& s : r.steps) {
    steps.push_back({{"step", s.step},
                     {"loss", losses[static_cast<std::size_t>(s.step)]},
                     {"seconds", s.seconds},
                     {"skipped", s.skipped},
                     {"non_finite_grads", s.non_finite_grads},
                     {"loss_scale", s.loss_scale},
                     {"lr", s.lr},
                     {"grad_norm", s.grad_norm}});
  }
  j["steps"] = steps;
  // The last step's ops, by the Plan's op ids: what the simulator's trace predicts.
  json::Json timeline = json::Json::array();
  for (const exec::OpTiming& t : r.timeline) {
    timeline.push_back({{"op", t.op},
                        {"repetition", t.repetition},
                        {"start_s", static_cast<double>(t.start_ns) * 1e-9},
                        {"end_s", static_cast<double>(t.end_ns) * 1e-9}});
  }
  j["timeline"] = timeline;
  j["prediction"] = reports::render_simulation_json(sim, request);
  return j;
}

// The most bytes of training text --data reads (byte-level tokens are held as 4-byte ids).
constexpr std::int64_t kMaxTextBytes = std::int64_t{1} << 30;

// What `run` does not do that the config asks for, said before it starts. Both backends move
// the optimizer's gradients and parameters as the Plan copies them and run DeepSpeed's CPU Adam
// over host-resident states (exec/plan_interpreter.h); what they do not move:
std::vector<std::string> run_notes(const configs::DsConfig& c) {
  std::vector<std::string> notes;
  if (configs::offload_optimizer_enabled(c) && c.zero.offload_optimizer.device.value == "nvme") {
    notes.push_back(
        "the config offloads optimizer states to nvme; the executor keeps them in host memory "
        "and runs the Plan's NVMe swaps empty (timed)");
  }
  if (configs::offload_param_enabled(c)) {
    notes.push_back("the config offloads parameters to " + c.zero.offload_param.device.value +
                    "; the executor runs the Plan's parameter copies empty (timed): every rank "
                    "keeps the model's working weights on its device");
  }
  return notes;
}

// Where validate's file goes, checked before minutes of training: NAME.json a file name the
// system takes, DIR a folder (or a path under one that can be made), DIR/NAME.json a file to
// write. The folder itself is made only when the file is written.
Status check_validation_destination(const std::string& dir, const std::string& file) {
  if (file.size() > 255) {  // NAME_MAX on Linux file systems
    return Status::invalid_argument("--name: " + std::to_string(file.size() - 5) +
                                    " characters is too long; the file name NAME.json may hold "
                                    "at most 255 bytes");
  }
  // The nearest folder on the way to DIR that exists (".": a relative DIR with none).
  std::filesystem::path existing = dir.empty() ? "." : dir;
  std::error_code ec;
  while (!std::filesystem::exists(existing, ec)) {
    if (!existing.has_parent_path() || existing == existing.parent_path()) {
      existing = ".";
      break;
    }
    existing = existing.parent_path();
  }
  if (!std::filesystem::is_directory(existing, ec)) {
    return Status::io_error(dir + ": error[file]: " + existing.string() +
                            " is not a directory, so the validation file cannot go under it");
  }
  if (::access(existing.c_str(), W_OK) != 0) {
    return Status::io_error(dir + ": error[file]: " + existing.string() + " is not writable");
  }
  if (existing == std::filesystem::path(dir)) {
    return check_output_file((std::filesystem::path(dir) / file).string());
  }
  return Status::ok();
}

std::string step_line(const exec::StepStats& s, std::int64_t tokens_per_step) {
  char line[320];
  // printf spells a NaN with its sign bit "-nan"; the sign of a NaN means nothing.
  const auto unsigned_nan = [](double v) { return std::isnan(v) ? std::fabs(v) : v; };
  std::snprintf(
      line, sizeof line,
      "step %3d  loss %8.4f  %8.3f s  %10.0f tokens/s  lr %.3g  scale %g  grad norm %.4g%s", s.step,
      unsigned_nan(s.loss), s.seconds,
      s.seconds > 0 ? static_cast<double>(tokens_per_step) / s.seconds : 0.0, s.lr, s.loss_scale,
      unsigned_nan(s.grad_norm),
      s.skipped ? (s.non_finite_grads ? "  skipped (inf/NaN gradients)" : "  skipped (overflow)")
      : s.non_finite_grads ? "  inf/NaN gradients applied (as DeepSpeed does here)"
                           : "");
  return line;
}

// What the flags say before any rank starts: the inputs, the steps, the executor's options
// and the prediction's request (the cluster when the flags name one).
struct RunSetup {
  Inputs in;
  std::int64_t steps = 0;
  std::int64_t timeout_s = 0;
  exec::ExecOptions options;
  sim::SimulationRequest request;
};

Result<RunSetup> read_run_flags(const RunFlags& f) {
  RunSetup r;
  ZS_ASSIGN_OR_RETURN(r.in, read_inputs(f.common));
  if (!r.in.model) {
    return Status::invalid_argument("run needs --model (a zoo name or a config.json)");
  }
  if (f.backend != "cpu" && f.backend != "cuda") {
    return Status::invalid_argument("--backend: \"" + f.backend +
                                    "\" is not allowed; expected cpu or cuda");
  }
  if (f.backend == "cuda") ZS_RETURN_IF_ERROR(exec::cuda_backend_status());
  ZS_ASSIGN_OR_RETURN(r.steps, parse_int_flag("--steps", f.steps, 1, 1'000'000));
  ZS_ASSIGN_OR_RETURN(const std::int64_t seed, parse_int_flag("--seed", f.seed, 0, 1'000'000'000));
  r.options.steps = static_cast<int>(r.steps);
  r.options.seed = static_cast<std::uint64_t>(seed);
  r.options.backend = f.backend == "cuda" ? exec::Backend::kCuda : exec::Backend::kCpu;
  if (!f.inject_overflow.empty()) {
    // A step the run never reaches would be ignored silently: the range is the run's steps.
    auto k = parse_int_flag("--inject-overflow-step", f.inject_overflow, 0, r.steps - 1);
    if (!k.ok()) {
      return Status::invalid_argument(k.status().message() + " (the run has " +
                                      std::to_string(r.steps) + " step(s), from 0)");
    }
    r.options.inject_overflow_step = static_cast<int>(*k);
  }
  if (!f.data.empty()) {
    auto text = read_file(f.data, "text file", kMaxTextBytes);
    if (!text.ok()) return text.status().with_context("--data");
    r.options.text = std::move(text).value();
  }
  r.request.config_path = f.common.config;
  r.request.check = r.in.options;
  // The executor trains without dropout (exec/model_runner.h); the plan is for that model.
  r.request.model = exec::without_dropout(*r.in.model);
  if (r.in.cluster) r.request.cluster = *r.in.cluster;
  ZS_ASSIGN_OR_RETURN(r.timeout_s,
                      parse_int_flag("--collective-timeout", f.collective_timeout, 1, 86'400));
  return r;
}

// The request's cluster for the `world` processes running: --world must agree, validate on the
// CPU needs calibrate's cluster, an H100 node otherwise, as many devices as processes, and GPU
// ranks for a GPU backend. Each error names the way out.
Status fit_cluster(const RunFlags& f, const Inputs& in, int world,
                   sim::SimulationRequest* request) {
  const std::string command = f.validate ? "validate" : "run";
  if (!f.common.world.empty() && in.options.world_size && *in.options.world_size != world) {
    return Status::invalid_argument("--world " + f.common.world + " disagrees with the " +
                                    std::to_string(world) + " process(es) running: " + command +
                                    " runs one rank per process, so start " + f.common.world +
                                    " (mpirun -np " + f.common.world + " zerosim " + command +
                                    " ...) or drop --world");
  }
  // validate compares like with like: the CPU backend's measurement against a prediction for
  // the CPU ranks calibrate describes, not for the H100 `run` assumes without a cluster.
  if (f.validate && f.backend == "cpu" && !in.cluster) {
    return Status::invalid_argument(
        "validate --backend cpu needs the cluster of the CPU ranks it measures: run zerosim "
        "calibrate, then pass --cluster PROFILE.cluster.json --profile PROFILE.json (without "
        "them the prediction would be for an H100, and the verdict meaningless)");
  }
  if (!in.cluster) {
    ZS_ASSIGN_OR_RETURN(request->cluster, configs::make_cluster("h100-80gb-sxm", 1, world));
  }
  const configs::Cluster& cluster = request->cluster;
  if (cluster.world_size() != world) {
    // The way out names the flags this command line can take: a cluster file fixes the GPU
    // count itself (--gpus-per-node cannot be combined with --cluster).
    const std::string gpus = std::to_string(world);
    const std::string resize = f.common.cluster.cluster_file.empty()
                                   ? "--gpus-per-node " + gpus
                                   : "a cluster file whose \"gpus_per_node\" is " + gpus + " (" +
                                         f.common.cluster.cluster_file + " says " +
                                         std::to_string(cluster.gpus_per_node) + ")";
    return Status::invalid_argument(
        command + ": the cluster has " + std::to_string(cluster.world_size()) + " GPUs and " +
        gpus +
        (world == 1 ? " process runs: start one process per GPU (mpirun -np " +
                          std::to_string(cluster.world_size()) + " zerosim " + command +
                          " ...) or use " + resize
                    : " processes run: give as many GPUs as processes (" + resize + ")"));
  }
  if (cluster.gpu.backend == "cpu" && f.backend != "cpu") {
    return Status::invalid_argument("--backend " + f.backend +
                                    ": the cluster's devices are CPU ranks (gpu.backend \"cpu\"); "
                                    "run them with --backend cpu, or give a GPU cluster");
  }
  return Status::ok();
}

// The flags that shape the prediction: the sequence, checkpointing, a calibration profile.
Status read_prediction_flags(const RunFlags& f, sim::SimulationRequest* request) {
  if (!f.seq_len.empty()) {
    ZS_ASSIGN_OR_RETURN(request->seq_len, parse_int_flag("--seq-len", f.seq_len, 1, 1'000'000));
  }
  request->activation_checkpointing = f.checkpointing;
  if (!f.profile.empty()) {
    ZS_ASSIGN_OR_RETURN(request->profile, read_profile_flags(f.profile, "", request->cluster));
  }
  return Status::ok();
}

// validate's flags: the warm-up steps (at least one step timed), the file (a name without '/',
// in a folder that exists or can be made), the tolerance.
struct ValidationSetup {
  std::int64_t warmup = 0;
  double tolerance = 0.25;
  std::string path;
};

Result<ValidationSetup> read_validation_flags(const RunFlags& f, std::int64_t steps,
                                              const std::string& model, int world) {
  ValidationSetup v;
  // Without --warmup, the default gives way to a short run: at least one step is timed.
  const std::string warmup_text =
      f.warmup.empty() ? std::to_string(std::min<std::int64_t>(2, steps - 1)) : f.warmup;
  auto w = parse_int_flag("--warmup", warmup_text, 0, steps - 1);
  if (!w.ok()) {
    return Status::invalid_argument(w.status().message() + " (the run has " +
                                    std::to_string(steps) +
                                    " step(s); at least one must be timed)");
  }
  v.warmup = *w;
  std::string name = f.name;
  if (name.empty()) {
    name = std::filesystem::path(f.common.config).stem().string() + "." + model + "." +
           std::to_string(world) + "ranks";
    std::replace(name.begin(), name.end(), '/', '_');  // an HF repo id as the model's name
  } else if (name.find('/') != std::string::npos || name == "." || name == "..") {
    return Status::invalid_argument("--name: \"" + name +
                                    "\" is not allowed; expected a file name without '/'");
  }
  v.path = (std::filesystem::path(f.output_dir) / (name + ".json")).string();
  ZS_RETURN_IF_ERROR(check_validation_destination(f.output_dir, name + ".json"));
  char* end = nullptr;
  v.tolerance = std::strtod(f.tolerance.c_str(), &end);
  if (f.tolerance.empty() || *end != '\0' || !(v.tolerance > 0 && v.tolerance <= 10)) {
    return Status::invalid_argument("--tolerance: \"" + f.tolerance +
                                    "\" is not allowed; expected a fraction "
                                    "above 0 and up to 10 (0.25: within 25%)");
  }
  return v;
}

// The Plan the executor runs (plan/plan_step.h), priced as simulate prices it; --data must hold
// a sequence of it.
Result<sim::SimulationResult> plan_and_predict(const RunFlags& f,
                                               const sim::SimulationRequest& request,
                                               const exec::ExecOptions& options) {
  ZS_ASSIGN_OR_RETURN(plan::PlannedStep planned, plan::plan_step(request));
  ZS_ASSIGN_OR_RETURN(sim::SimulationResult sim,
                      sim::simulate_planned(request, std::move(planned)));
  if (options.text && static_cast<std::int64_t>(options.text->size()) < sim.seq_len + 1) {
    return Status::invalid_argument("--data " + f.data + ": holds " +
                                    std::to_string(options.text->size()) +
                                    " bytes; one sequence of byte tokens needs seq_len + 1 = " +
                                    std::to_string(sim.seq_len + 1));
  }
  return sim;
}

// exec::execute, a machine out of memory said as such.
Result<exec::ExecResult> execute_plan(const sim::SimulationResult& sim,
                                      const exec::ExecOptions& options) {
  try {
    return exec::execute(sim.built, sim.config.config, options);
  } catch (const std::bad_alloc&) {
    return Status::invalid_argument(
        "run: the machine ran out of memory while allocating the model's buffers; "
        "use a smaller --micro-batch or --seq-len");
  }
}

// What a rank measured, gathered for rank 0 to report: the step takes as long as its slowest
// rank.
struct GroupFigures {
  std::vector<double> step_s, host_bytes;
};

// --json and validate: the group's mean loss per step and, for validate, each step's slowest
// rank (every rank takes part in these all-reduces); rank 0 prints the measurement, and validate
// writes it with its verdict. Returns the exit code.
int report_measurement(const RunFlags& f, exec::RankGroup& ranks, const RunSetup& setup,
                       const sim::SimulationResult& sim, const exec::ExecResult& result,
                       const GroupFigures& figures, const ValidationSetup& validation,
                       const std::vector<std::string>& notes) {
  std::vector<double> losses, slowest;
  for (const exec::StepStats& s : result.steps) {
    losses.push_back(group_mean(ranks, s.loss));
    if (f.validate) {
      const std::vector<double> v = group_values(ranks, s.seconds);
      slowest.push_back(*std::max_element(v.begin(), v.end()));
    }
  }
  if (ranks.rank() != 0) return 0;
  json::Json j = measured_json(sim, setup.request, result, f.backend, figures.step_s,
                               figures.host_bytes, losses);
  j["notes"] = notes;
  const auto text = [&j] { return j.dump(2, ' ', false, json::Json::error_handler_t::replace); };
  if (!f.validate) {
    print(text());
    return 0;
  }
  const Validation v = validate_run(sim, result, slowest, static_cast<int>(validation.warmup));
  // The figure `zerosim report` sets beside the prediction: the median, as the verdict.
  j["time"]["step_s"] = v.measured_step_s;
  j["time"]["statistic"] = "median over the steps after the warm-up of each step's slowest rank";
  j["validation"] = validation_json(v);
  // The folder is made only now, so a failed or interrupted run leaves none behind; a file that
  // cannot be written after all does not lose the measurement: it is printed.
  std::error_code ec;
  std::filesystem::create_directories(f.output_dir, ec);
  Status written = ec ? Status::io_error(f.output_dir +
                                         ": error[file]: cannot create the "
                                         "directory: " +
                                         ec.message())
                      : write_output_file(validation.path, text() + "\n");
  if (!written.is_ok()) {
    print(f.common.json ? text() : validation_text(v, validation.tolerance) + text() + "\n");
    return fail(written.with_context("the measurement above could not be saved"), f.common.json);
  }
  print(f.common.json
            ? text()
            : validation_text(v, validation.tolerance) + "wrote " + validation.path + "\n");
  return std::fabs(v.step_error) <= validation.tolerance ? kExitOk : kExitOutsideTolerance;
}

// run's closing lines: each rank's step and host memory (several ranks), the measured step,
// throughput and memory, and the prediction beside it.
std::string measured_text(const RunFlags& f, const RunSetup& setup,
                          const sim::SimulationResult& sim, const exec::ExecResult& result,
                          const GroupFigures& figures, std::int64_t tokens_per_step, int world) {
  std::string out;
  char line[320];
  const double step_s = *std::max_element(figures.step_s.begin(), figures.step_s.end());
  const double tokens_per_s = step_s > 0 ? static_cast<double>(tokens_per_step) / step_s : 0.0;
  for (int r = 0; world > 1 && r < world; ++r) {
    std::snprintf(line, sizeof line,
                  "rank %d: step %.3f s (mean after the first), peak host memory %.1f MiB\n", r,
                  figures.step_s[static_cast<std::size_t>(r)],
                  figures.host_bytes[static_cast<std::size_t>(r)] / (1 << 20));
    out += line;
  }
  const auto mib = [](std::int64_t b) { return static_cast<double>(b) / (1 << 20); };
  if (f.backend == "cuda" && result.device_memory) {
    std::snprintf(line, sizeof line,
                  "measured on %s: step %.4f s (mean after the first), %.0f tokens/s, peak GPU "
                  "memory %.1f MiB allocated, %.1f MiB reserved\n",
                  exec::cuda_device_name().c_str(), step_s, tokens_per_s,
                  mib(result.device_memory->peak_allocated_bytes),
                  mib(result.device_memory->peak_reserved_bytes));
    out += line;
  } else {
    std::snprintf(
        line, sizeof line,
        "measured step %.3f s (mean after the first%s), %.0f tokens/s, peak host memory "
        "%.1f MiB%s\n",
        step_s, world > 1 ? ", slowest rank" : "", tokens_per_s,
        *std::max_element(figures.host_bytes.begin(), figures.host_bytes.end()) / (1 << 20),
        world > 1 ? " (largest rank)" : "");
    out += line;
    if (result.device_memory) {
      // Rank 0's; every rank's Plan is the same, so are the others'.
      std::snprintf(line, sizeof line,
                    "the plan's GPU buffers through the caching allocator (rank 0): %.2f MiB "
                    "allocated, %.2f MiB reserved at the peak; simulate's replay: %.2f MiB, "
                    "%.2f MiB\n",
                    mib(result.device_memory->peak_allocated_bytes),
                    mib(result.device_memory->peak_reserved_bytes),
                    mib(sim.memory.gpu_allocator_allocated_peak_bytes),
                    mib(sim.memory.gpu_allocator_reserved_peak_bytes));
      out += line;
    }
  }
  const configs::Cluster& cluster = setup.request.cluster;
  const bool cpu_device = cluster.gpu.backend == "cpu";
  std::snprintf(line, sizeof line, "predicted on %s: step %.4f s, %s peak %.1f MiB%s\n",
                cluster.gpu.name.c_str(), sim.time.step_s, cpu_device ? "device" : "GPU",
                mib(sim.memory.gpu_peak_bytes),
                f.backend == "cuda" || cpu_device
                    ? ""
                    : " (the CPU backend checks values, not GPU speed: zerosim validate with "
                      "zerosim calibrate's cluster and profile predicts this machine)");
  out += line;
  return out;
}

// Flags, the rank group, the plan and its prediction, the run, the report. One process per
// rank: mpirun -np N zerosim run ... runs the N-rank Plan, each process its rank
// (exec/launch.h); without a launcher, one rank.
int run_run(const RunFlags& f) {
  const auto failed = [&f](const Status& s) { return fail(s, f.common.json); };
  auto setup = read_run_flags(f);
  if (!setup.ok()) return failed(setup.status());
  RunSetup& r = *setup;
  auto group = exec::RankGroup::start(static_cast<double>(r.timeout_s));
  if (!group.ok()) return failed(group.status().with_context("run"));
  exec::RankGroup& ranks = **group;
  const int world = ranks.size();
  // From here a failure on one rank ends them all (others may wait in a collective), each
  // saying which rank it is.
  const auto failed_rank = [&](const Status& s) -> int {
    if (world == 1) return failed(s);
    fail(s.with_context("rank " + std::to_string(ranks.rank()) + " of " + std::to_string(world)),
         f.common.json && ranks.rank() == 0);
    ranks.abort(1);
  };
  if (Status s = fit_cluster(f, r.in, world, &r.request); !s.is_ok()) return failed_rank(s);
  r.options.communicator = ranks.communicator();
  r.options.collective_timeout_s = static_cast<double>(r.timeout_s);
  if (Status s = read_prediction_flags(f, &r.request); !s.is_ok()) return failed_rank(s);
  ValidationSetup validation;
  if (f.validate) {
    auto v = read_validation_flags(f, r.steps, r.request.model.name, world);
    if (!v.ok()) return failed_rank(v.status());
    validation = std::move(v).value();
  }
  auto sim = plan_and_predict(f, r.request, r.options);
  if (!sim.ok()) return failed_rank(sim.status());
  const std::vector<std::string> notes = run_notes(sim->config.config);
  // The group's tokens: every rank trains on its own micro-batches.
  const std::int64_t tokens_per_step = sim->built.layout.tokens_per_step() * world;
  const bool speaks = ranks.rank() == 0;  // rank 0 alone prints results
  if (!f.common.json) {
    // Each step's line is printed (and flushed) as it ends, so a run stopped part-way, or read
    // through a pipe, keeps the steps it made. Over several ranks its loss is the group's mean
    // (one more all-reduce per step, after the step's timing).
    if (speaks) {
      print("zerosim run: " + sim->built.plan.summary + ", backend " + f.backend +
            (world > 1 ? ", " + std::to_string(world) + " ranks (one process each)" : ""));
      for (const std::string& n : notes) print("note: " + n);
      std::fflush(stdout);
    }
    r.options.on_step = [tokens_per_step, &ranks, speaks](const exec::StepStats& s) {
      exec::StepStats mean = s;
      mean.loss = group_mean(ranks, s.loss);
      if (!speaks) return;
      print(step_line(mean, tokens_per_step));
      std::fflush(stdout);
    };
  }
  const Result<exec::ExecResult> result = execute_plan(*sim, r.options);
  if (!result.ok()) return failed_rank(result.status().with_context(f.common.config));
  const GroupFigures figures{group_values(ranks, steady_step_s(*result)),
                             group_values(ranks, static_cast<double>(peak_rss_bytes()))};
  if (f.validate || f.common.json) {
    return report_measurement(f, ranks, r, *sim, *result, figures, validation, notes);
  }
  if (!speaks) return 0;
  print(measured_text(f, r, *sim, *result, figures, tokens_per_step, world));
  return 0;
}

}  // namespace

namespace {

void add_run_flags(CLI::App* cmd, RunFlags* flags) {
  add_common_flags(cmd, &flags->common);
  cmd->add_option("--steps", flags->steps, "optimizer steps (default " + flags->steps + ")");
  cmd->add_option("--backend", flags->backend, "cpu (default) or cuda");
  cmd->add_option("--seq-len", flags->seq_len,
                  "tokens per sequence (default: the model's max_position_embeddings)");
  cmd->add_option("--data", flags->data,
                  "train on this file's bytes as tokens (default: seeded random tokens)");
  cmd->add_option("--seed", flags->seed, "seed of the weights and random tokens (default 0)");
  cmd->add_flag("--checkpointing", flags->checkpointing,
                "full activation checkpointing (recompute each layer in backward)");
  cmd->add_option("--collective-timeout", flags->collective_timeout,
                  "seconds a rank waits for another in a collective before the run ends with an "
                  "error naming it (default 600; several ranks under mpirun)");
  cmd->add_option("--inject-overflow-step", flags->inject_overflow,
                  "put an inf into a gradient at this step (0-based, below --steps): the fp16 "
                  "loss scaler skips it; bf16 and fp32 do what DeepSpeed does for their ZeRO "
                  "stage");
  cmd->add_option("--profile", flags->profile,
                  "a calibration profile for the prediction (zerosim calibrate writes one)");
}

}  // namespace

std::function<int()> add_run_command(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "Train with a DeepSpeed config for real (on the CPU, or on a CUDA device; several ranks "
      "with mpirun -np N, one process each) and print measured loss, step time and throughput "
      "next to the prediction");
  document_exit_codes(cmd);
  add_run_flags(cmd, flags.get());
  return [flags] { return run_run(*flags); };
}

std::function<int()> add_validate_command(CLI::App& app) {
  auto flags = std::make_shared<RunFlags>();
  flags->validate = true;
  flags->steps = "8";
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Simulate a config, run the same Plan for real (under mpirun for several ranks) and "
      "compare: step time and where it goes, per-op times by op id, the device buffers' peak; "
      "writes DIR/NAME.json for zerosim report and prints a verdict");
  document_exit_codes(cmd,
                      "  4  the measured step time is outside --tolerance of the prediction (the "
                      "verdict says NO); the validation file is written all the same\n");
  add_run_flags(cmd, flags.get());
  cmd->add_option("--warmup", flags->warmup,
                  "steps run before the timed ones (default 2, or --steps less one when that is "
                  "fewer; --steps counts both)");
  cmd->add_option("-o,--output-dir", flags->output_dir,
                  "where the validation file goes (default validation/: put it in a sweep's "
                  "directory for zerosim report)");
  cmd->add_option("--name", flags->name,
                  "the file's name without .json (default CONFIG.MODEL.NRANKS)");
  cmd->add_option("--tolerance", flags->tolerance,
                  "the step-time error the verdict accepts, a fraction (default 0.25)");
  return [flags] { return run_run(*flags); };
}

}  // namespace zs::cli
