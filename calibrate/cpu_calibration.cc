#include "calibrate/cpu_calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "exec/model_runner.h"
#include "kernels/collective.h"
#include "kernels/cpu/adamw.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cpu/linear.h"
#include "models/op_graph.h"
#include "models/zoo.h"
#include "sim/cost_model.h"

namespace zs::calibrate {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  s.repeats = static_cast<int>(n);
  return s;
}

// `f` once untimed, then `repeats` timed runs: their seconds.
template <class F>
std::vector<double> time_runs(int repeats, F&& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < repeats; ++r) {
    const Clock::time_point t0 = Clock::now();
    f();
    t.push_back(seconds_since(t0));
  }
  return t;
}

// A rate (amount per second) for each run of `seconds`.
Spread rate_of(double amount, const std::vector<double>& seconds) {
  std::vector<double> r;
  for (double s : seconds) r.push_back(amount / std::max(s, 1e-12));
  return spread_of(r);
}

int built_vector_bits() {
#if defined(__AVX512F__)
  return 512;
#elif defined(__AVX__)
  return 256;
#else
  return 128;  // SSE2, the x86-64 baseline
#endif
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char line[256];
  std::snprintf(line, sizeof line, fmt, a, b, c);
  return line;
}

// The ranks wait for each other (a 1-byte MAX all-reduce), so that every rank runs the next
// benchmark at the same time.
Status barrier(exec::Communicator* comm) {
  if (comm == nullptr || comm->size() == 1) return Status::ok();
  std::uint8_t flag = 0;
  return comm->all_reduce(&flag, 1, plan::Dtype::kU8);
}

void gemm_benchmarks(const CalibrateOptions& o, CpuCalibration* c) {
  const double peak = c->machine.fp32_peak_flops_per_s();
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (const std::int64_t side : {16, 32, 64, 128, 256, 512}) {
    const models::GemmShape s{.m = side, .n = side, .k = side, .bias = true};
    const auto n2 = static_cast<std::size_t>(side * side);
    std::vector<float> x(n2), w(n2), y(n2), dy(n2), dx(n2), dw(n2),
        b(static_cast<std::size_t>(side)), db(static_cast<std::size_t>(side));
    for (auto* v : {&x, &w, &dy}) {
      for (float& e : *v) e = u(rng);
    }
    const std::vector<double> t = time_runs(o.repeats, [&] {
      kernels::cpu::linear_forward(s, x.data(), w.data(), b.data(), y.data());
      kernels::cpu::linear_backward(s, dy.data(), x.data(), w.data(), dx.data(), dw.data(),
                                    db.data());
    });
    const double flops = 6.0 * static_cast<double>(side * side * side);
    GemmPoint p;
    p.side = static_cast<double>(side);
    p.seconds = spread_of(t);
    p.efficiency = std::clamp(flops / p.seconds.median / peak, 1e-3, 1.0);
    c->gemm.push_back(p);
    if (o.progress) {
      o.progress(format("gemm %4.0f^3 forward+backward: %.3f GFLOP/s (%.1f%% of the core's peak)",
                        p.side, flops / p.seconds.median * 1e-9, 100 * p.efficiency));
    }
  }
}

// Small models for the per-op costs: none is a zoo model (zerosim's own tests train tiny-gpt);
// between them every CPU op kind but the GEMMs, which gemm_benchmarks measures.
struct CalibrationModel {
  models::ModelSpec spec;
  models::Workload workload;
};

Result<std::vector<CalibrationModel>> calibration_models() {
  std::vector<CalibrationModel> out;
  ZS_ASSIGN_OR_RETURN(models::ModelSpec gpt, models::zoo_model("tiny-gpt"));
  gpt.name = "calibration-gpt-128";
  gpt.vocab_size = 512;
  gpt.hidden_size = 128;
  gpt.num_layers = 1;
  gpt.num_heads = 4;
  gpt.num_kv_heads = 4;
  gpt.head_dim = 32;
  gpt.intermediate_size = 512;
  gpt.max_position_embeddings = 128;
  out.push_back({gpt, {.micro_batch = 2, .seq_len = 128, .act_bytes = 2}});
  models::ModelSpec narrow = gpt;
  narrow.name = "calibration-gpt-32";
  narrow.vocab_size = 1024;
  narrow.hidden_size = 32;
  narrow.num_heads = 2;
  narrow.num_kv_heads = 2;
  narrow.head_dim = 16;
  narrow.intermediate_size = 128;
  narrow.max_position_embeddings = 256;
  out.push_back({narrow, {.micro_batch = 1, .seq_len = 256, .act_bytes = 2}});
  // Attention's two terms (per FLOP and per score) need head_dims apart: 16, 32 and 64.
  models::ModelSpec wide_heads = gpt;
  wide_heads.name = "calibration-gpt-d64";
  wide_heads.num_heads = 2;
  wide_heads.num_kv_heads = 2;
  wide_heads.head_dim = 64;
  wide_heads.intermediate_size = 256;
  wide_heads.vocab_size = 384;
  wide_heads.max_position_embeddings = 160;
  out.push_back({wide_heads, {.micro_batch = 1, .seq_len = 160, .act_bytes = 2}});
  ZS_ASSIGN_OR_RETURN(models::ModelSpec llama, models::zoo_model("llama2-7b"));
  llama.name = "calibration-llama-128";
  llama.vocab_size = 512;
  llama.hidden_size = 128;
  llama.num_layers = 1;
  llama.num_heads = 4;
  llama.num_kv_heads = 2;
  llama.head_dim = 32;
  llama.intermediate_size = 352;
  llama.max_position_embeddings = 256;
  out.push_back({llama, {.micro_batch = 2, .seq_len = 96, .act_bytes = 2}});
  for (CalibrationModel& m : out) m.spec = exec::without_dropout(std::move(m.spec));
  return out;
}

// One model's ops of one kind in one pass: each repeat's seconds, summed over those ops, and
// their units (and, for attention, the scores the kernel visits).
struct KindRuns {
  std::vector<double> seconds;
  double units = 0;
  double pairs = 0;
};

// Least squares of t = f x flops + p x pairs over the models (no intercept), both >= 0: when
// one comes out negative, the other term alone.
std::pair<double, double> fit_attention(const std::vector<double>& t,
                                        const std::vector<double>& flops,
                                        const std::vector<double>& pairs) {
  double ff = 0, pp = 0, fp = 0, tf = 0, tp = 0, st = 0, sf = 0, sp = 0;
  for (std::size_t m = 0; m < t.size(); ++m) {
    ff += flops[m] * flops[m];
    pp += pairs[m] * pairs[m];
    fp += flops[m] * pairs[m];
    tf += t[m] * flops[m];
    tp += t[m] * pairs[m];
    st += t[m];
    sf += flops[m];
    sp += pairs[m];
  }
  const double det = ff * pp - fp * fp;
  if (det > 1e-12 * ff * pp) {
    const double f = (tf * pp - tp * fp) / det;
    const double p = (tp * ff - tf * fp) / det;
    if (f >= 0 && p >= 0) return {f, p};
    if (f < 0) return {0.0, st / sp};
  }
  return {st / sf, 0.0};
}

Status op_benchmarks(const CalibrateOptions& o, CpuCalibration* c) {
  ZS_ASSIGN_OR_RETURN(const std::vector<CalibrationModel> suite, calibration_models());
  // [kind][pass]: one entry per model that has the kind.
  std::array<std::array<std::vector<KindRuns>, 2>, models::kOpKindCount> runs;
  for (const CalibrationModel& m : suite) {
    ZS_ASSIGN_OR_RETURN(exec::ModelRunner runner,
                        exec::ModelRunner::create(m.spec, m.workload, /*seed=*/1));
    const std::int64_t t = m.workload.tokens();
    std::vector<std::int32_t> tokens(static_cast<std::size_t>(t));
    std::vector<std::int32_t> targets(tokens.size());
    std::mt19937 rng(2);
    std::uniform_int_distribution<std::int32_t> id(
        0, static_cast<std::int32_t>(m.spec.vocab_size - 1));
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      tokens[i] = id(rng);
      targets[i] = id(rng);
    }
    ZS_RETURN_IF_ERROR(runner.set_batch(tokens, targets));
    const int n = runner.num_ops();
    std::array<std::array<KindRuns, 2>, models::kOpKindCount> mine{};
    for (const models::Op& op : runner.ops()) {
      const auto k = static_cast<std::size_t>(op.kind);
      for (int pass = 0; pass < 2; ++pass) {
        mine[k][static_cast<std::size_t>(pass)].units += sim::cpu_work_units(op, pass == 1);
        if (sim::cpu_unit_kind(op.kind) == models::OpKind::kAttention) {
          mine[k][static_cast<std::size_t>(pass)].pairs += sim::cpu_attention_pairs(op);
        }
      }
    }
    for (int r = 0; r <= o.repeats; ++r) {  // r = 0: the untimed warm-up
      std::array<std::array<double, 2>, models::kOpKindCount> sec{};
      for (int i = 0; i < n; ++i) {
        const Clock::time_point t0 = Clock::now();
        runner.forward(i, i);
        sec[static_cast<std::size_t>(runner.ops()[static_cast<std::size_t>(i)].kind)][0] +=
            seconds_since(t0);
      }
      for (int i = n - 1; i >= 0; --i) {
        const Clock::time_point t0 = Clock::now();
        runner.backward(i, i);
        sec[static_cast<std::size_t>(runner.ops()[static_cast<std::size_t>(i)].kind)][1] +=
            seconds_since(t0);
      }
      runner.zero_grads();
      if (r == 0) continue;
      for (std::size_t k = 0; k < mine.size(); ++k) {
        for (std::size_t pass = 0; pass < 2; ++pass) mine[k][pass].seconds.push_back(sec[k][pass]);
      }
    }
    for (std::size_t k = 0; k < mine.size(); ++k) {
      for (std::size_t pass = 0; pass < 2; ++pass) {
        if (mine[k][pass].units > 0) runs[k][pass].push_back(std::move(mine[k][pass]));
      }
    }
  }
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const auto kind = static_cast<models::OpKind>(k);
    if (kind == models::OpKind::kLinear || runs[k][0].empty()) continue;
    for (std::size_t pass = 0; pass < 2; ++pass) {
      const std::vector<KindRuns>& per_model = runs[k][pass];
      std::vector<double> per_unit, per_pair;
      for (int r = 0; r < o.repeats; ++r) {
        std::vector<double> t, units, pairs;
        for (const KindRuns& m : per_model) {
          t.push_back(m.seconds[static_cast<std::size_t>(r)]);
          units.push_back(m.units);
          pairs.push_back(m.pairs);
        }
        if (kind == models::OpKind::kAttention) {
          const auto [f, p] = fit_attention(t, units, pairs);
          per_unit.push_back(f);
          per_pair.push_back(p);
        } else {
          double st = 0, su = 0;
          for (std::size_t m = 0; m < t.size(); ++m) {
            st += t[m];
            su += units[m];
          }
          per_unit.push_back(st / su);
        }
      }
      c->per_unit[k][pass] = spread_of(per_unit);
      if (kind == models::OpKind::kAttention) c->attention_pair_s[pass] = spread_of(per_pair);
    }
    c->measured[k] = true;
    if (!o.progress) continue;
    if (kind == models::OpKind::kAttention) {
      o.progress(format("attention: forward %.2f ps per FLOP + %.2f ns per score, backward %.2f ps",
                        c->per_unit[k][0].median * 1e12, c->attention_pair_s[0].median * 1e9,
                        c->per_unit[k][1].median * 1e12) +
                 format(" per FLOP + %.2f ns per score", c->attention_pair_s[1].median * 1e9));
    } else {
      o.progress(std::string(models::op_kind_name(kind)) +
                 format(": forward %.2f, backward %.2f ns per element",
                        c->per_unit[k][0].median * 1e9, c->per_unit[k][1].median * 1e9));
    }
  }
  return Status::ok();
}

void memory_benchmarks(const CalibrateOptions& o, CpuCalibration* c) {
  constexpr std::int64_t kFloats = std::int64_t{1} << 22;  // 16 MiB of fp32, past the caches
  std::vector<float> a(kFloats, 1.5f), b(kFloats);
  const double bytes = 4.0 * kFloats;
  c->memcpy_bytes_per_s = rate_of(
      bytes, time_runs(o.repeats,
                       [&] { std::memcpy(b.data(), a.data(), static_cast<std::size_t>(bytes)); }));
  if (o.progress) {
    o.progress(format("memcpy: %.2f GB/s copied", c->memcpy_bytes_per_s.median * 1e-9));
  }
  std::vector<kernels::cpu::Bf16> h(kFloats);
  c->cast_bytes_per_s = rate_of(6.0 * kFloats, time_runs(o.repeats, [&] {
                                  kernels::cpu::float_to_bf16(a.data(), h.data(), kFloats);
                                }));
  if (o.progress) {
    o.progress(format("fp32 -> bf16 rounding: %.2f GB/s read + written",
                      c->cast_bytes_per_s.median * 1e-9));
  }
  constexpr std::int64_t kParams = std::int64_t{1} << 20;
  std::vector<float> p(kParams, 0.1f), g(kParams, 0.01f), m(kParams, 0.0f), v(kParams, 0.0f);
  std::int64_t step = 0;
  c->adam_bytes_per_s =
      rate_of(28.0 * kParams, time_runs(o.repeats, [&] {
                kernels::cpu::adam_step(p.data(), g.data(), m.data(), v.data(), kParams,
                                        kernels::cpu::AdamConfig{}, ++step);
              }));
  if (o.progress) {
    o.progress(format("AdamW, one thread: %.2f GB/s (28 bytes per parameter)",
                      c->adam_bytes_per_s.median * 1e-9));
  }
  // The interpreter reads the clock twice per op (exec/plan_interpreter.h's timeline).
  constexpr int kReads = 100000;
  const Clock::time_point t0 = Clock::now();
  std::int64_t sink = 0;
  for (int i = 0; i < kReads; ++i) {
    sink += Clock::now().time_since_epoch().count();
    sink -= Clock::now().time_since_epoch().count();
  }
  c->op_overhead_s = std::max(seconds_since(t0) / kReads, 1e-9) + (sink == 1 ? 1e-30 : 0.0);
}

struct Fit {
  double latency_s = 0;
  double busbw_bytes_per_s = 0;
};

// Least squares of time = latency + bus_bytes / busbw over the medians of the all_reduce points
// (or of the others), each weighted by 1 / time^2: relative errors, so that the 4-byte flags and
// the Plan's small buckets weigh as much as the 4 MiB points (an unweighted fit is all large
// messages and leaves the latency to chance).
Fit fit_collectives(const std::vector<CollectivePoint>& points, bool all_reduce) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const CollectivePoint& p : points) {
    if ((p.kind == "all_reduce") != all_reduce) continue;
    const double t = std::max(p.seconds.median, 1e-9);
    const double w = 1.0 / (t * t);
    sw += w;
    sx += w * p.bus_bytes;
    sy += w * t;
    sxx += w * p.bus_bytes * p.bus_bytes;
    sxy += w * p.bus_bytes * t;
  }
  const double slope = (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
  const double intercept = (sy - slope * sx) / sw;
  return {std::max(0.0, intercept), slope > 0 ? 1.0 / slope : 1e14};
}

Status collective_benchmarks(const CalibrateOptions& o, exec::Communicator* comm,
                             CpuCalibration* c) {
  const int n = comm->size();
  struct Kind {
    const char* name;
    kernels::Collective kind;
  };
  const Kind kinds[] = {{"all_reduce", kernels::Collective::kAllReduce},
                        {"all_gather", kernels::Collective::kAllGather},
                        {"reduce_scatter", kernels::Collective::kReduceScatter}};
  for (const Kind& k : kinds) {
    for (std::int64_t bytes = 4; bytes <= (std::int64_t{4} << 20); bytes *= 8) {
      // The Plan's bytes are the whole buffer; the block collectives take per-rank counts.
      const std::int64_t elems = std::max<std::int64_t>(1, bytes / 4);
      const std::int64_t count =
          k.kind == kernels::Collective::kAllReduce ? elems : std::max<std::int64_t>(1, elems / n);
      const std::int64_t total = k.kind == kernels::Collective::kAllReduce ? count : count * n;
      std::vector<float> buf(static_cast<std::size_t>(total), 1.0f);
      Status failed = Status::ok();
      ZS_RETURN_IF_ERROR(barrier(comm));
      const std::vector<double> t = time_runs(o.repeats, [&] {
        Status s = k.kind == kernels::Collective::kAllReduce
                       ? comm->all_reduce(buf.data(), count, plan::Dtype::kFp32)
                   : k.kind == kernels::Collective::kAllGather
                       ? comm->all_gather(buf.data(), count, plan::Dtype::kFp32)
                       : comm->reduce_scatter(buf.data(), count, plan::Dtype::kFp32);
        if (!s.is_ok()) failed = s;
      });
      ZS_RETURN_IF_ERROR(failed);
      CollectivePoint p;
      p.kind = k.name;
      p.bytes = 4.0 * static_cast<double>(total);
      p.bus_bytes = kernels::bus_factor(k.kind, n) * p.bytes;
      p.seconds = spread_of(t);
      c->collectives.push_back(p);
    }
  }
  const Fit ring = fit_collectives(c->collectives, false);
  const Fit all_reduce = fit_collectives(c->collectives, true);
  c->mpi_latency_s = ring.latency_s;
  c->mpi_busbw_bytes_per_s = ring.busbw_bytes_per_s;
  c->mpi_allreduce_latency_s = all_reduce.latency_s;
  c->mpi_allreduce_busbw_bytes_per_s = all_reduce.busbw_bytes_per_s;
  if (o.progress) {
    o.progress(format("MPI all_reduce over %.0f ranks: latency %.1f us, bus bandwidth %.2f GB/s", n,
                      c->mpi_allreduce_latency_s * 1e6, c->mpi_allreduce_busbw_bytes_per_s * 1e-9));
    o.progress(format("MPI all_gather, reduce_scatter: latency %.1f us, bus bandwidth %.2f GB/s",
                      c->mpi_latency_s * 1e6, c->mpi_busbw_bytes_per_s * 1e-9));
  }
  return Status::ok();
}

}  // namespace

Result<CpuMachine> read_cpu_machine() {
  CpuMachine m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  if (!cpuinfo) return Status::io_error("/proc/cpuinfo: cannot read it (calibrate needs Linux)");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key.erase(key.find_last_not_of(" \t") + 1);
    const std::string value = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
    if (key == "model name" && m.cpu_name.empty()) m.cpu_name = value;
    if (key == "cpu MHz" && m.clock_hz == 0) m.clock_hz = std::atof(value.c_str()) * 1e6;
  }
  std::ifstream meminfo("/proc/meminfo");
  while (meminfo && std::getline(meminfo, line)) {
    if (line.rfind("MemTotal:", 0) == 0) {
      m.memory_bytes = std::atoll(line.c_str() + 9) * 1024;
    }
  }
  if (m.memory_bytes <= 0) return Status::io_error("/proc/meminfo: no MemTotal line");
  if (!(m.clock_hz > 0)) {
    return Status::io_error("/proc/cpuinfo: no \"cpu MHz\" line, so the core's peak is unknown");
  }
  if (m.cpu_name.empty()) m.cpu_name = "unknown CPU";
  m.logical_cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  m.vector_bits = built_vector_bits();
  return m;
}

namespace {

double median_of(std::vector<double> v) {
  ZS_CHECK(!v.empty());
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Every Spread of a round, in one order, with whether it is a time (true) or a rate.
std::vector<std::pair<Spread*, bool>> spreads_of(CpuCalibration* c) {
  std::vector<std::pair<Spread*, bool>> out;
  for (GemmPoint& g : c->gemm) out.push_back({&g.seconds, true});
  for (std::size_t k = 0; k < c->per_unit.size(); ++k) {
    if (!c->measured[k]) continue;
    out.push_back({&c->per_unit[k][0], true});
    out.push_back({&c->per_unit[k][1], true});
  }
  out.push_back({&c->attention_pair_s[0], true});
  out.push_back({&c->attention_pair_s[1], true});
  out.push_back({&c->memcpy_bytes_per_s, false});
  out.push_back({&c->cast_bytes_per_s, false});
  out.push_back({&c->adam_bytes_per_s, false});
  return out;
}

// The rounds as one calibration: each figure the median of the rounds' medians (min of the
// minima, max of the maxima), and each round's speed against that median.
CpuCalibration combine_rounds(std::vector<CpuCalibration> rounds) {
  ZS_CHECK(!rounds.empty());
  CpuCalibration c = rounds.front();
  std::vector<std::vector<std::pair<Spread*, bool>>> per_round;
  for (CpuCalibration& r : rounds) per_round.push_back(spreads_of(&r));
  const std::vector<std::pair<Spread*, bool>> out = spreads_of(&c);
  std::vector<double> log_speed(rounds.size(), 0.0);
  int figures = 0;
  for (std::size_t f = 0; f < out.size(); ++f) {
    std::vector<double> medians;
    Spread& s = *out[f].first;
    s.repeats = 0;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      ZS_CHECK(per_round[r].size() == out.size());
      const Spread& x = *per_round[r][f].first;
      medians.push_back(x.median);
      s.min = r == 0 ? x.min : std::min(s.min, x.min);
      s.max = r == 0 ? x.max : std::max(s.max, x.max);
      s.repeats += x.repeats;
    }
    s.median = median_of(medians);
    // A figure some round could not measure (a fit that came out 0) says nothing of its speed.
    if (!std::all_of(medians.begin(), medians.end(), [](double m) { return m > 0; })) continue;
    ++figures;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      const double ratio = medians[r] / s.median;
      log_speed[r] += std::log(out[f].second ? ratio : 1.0 / ratio);
    }
  }
  for (std::size_t g = 0; g < c.gemm.size(); ++g) {
    std::vector<double> e;
    for (const CpuCalibration& r : rounds) e.push_back(r.gemm[g].efficiency);
    c.gemm[g].efficiency = median_of(e);
  }
  std::vector<double> overhead;
  for (const CpuCalibration& r : rounds) overhead.push_back(r.op_overhead_s);
  c.op_overhead_s = median_of(overhead);
  for (double l : log_speed) c.round_speed.push_back(std::exp(figures > 0 ? l / figures : 0.0));
  const auto [lo, hi] = std::minmax_element(c.round_speed.begin(), c.round_speed.end());
  c.spread = (*hi - *lo) / median_of(c.round_speed);
  return c;
}

// /proc/loadavg's 1-minute load, 0 when unreadable.
double load_average() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return in ? load : 0.0;
}

}  // namespace

Result<CpuCalibration> calibrate_cpu(const CalibrateOptions& options, exec::Communicator* comm) {
  if (options.repeats < 1) return Status::invalid_argument("--repeats must be >= 1");
  if (options.rounds < 1) return Status::invalid_argument("--rounds must be >= 1");
  CpuCalibration first;
  ZS_ASSIGN_OR_RETURN(first.machine, read_cpu_machine());
  first.ranks = comm == nullptr ? 1 : comm->size();
  first.load_before = load_average();
  CalibrateOptions o = options;
  if (comm != nullptr && comm->rank() != 0) o.progress = nullptr;
  std::vector<CpuCalibration> rounds;
  for (int r = 0; r < o.rounds; ++r) {
    // One line per benchmark in the first round; then one per round.
    CalibrateOptions ro = o;
    if (r > 0) ro.progress = nullptr;
    CpuCalibration one = first;
    ZS_RETURN_IF_ERROR(barrier(comm));
    gemm_benchmarks(ro, &one);
    ZS_RETURN_IF_ERROR(barrier(comm));
    ZS_RETURN_IF_ERROR(op_benchmarks(ro, &one));
    ZS_RETURN_IF_ERROR(barrier(comm));
    memory_benchmarks(ro, &one);
    rounds.push_back(std::move(one));
    if (o.progress && r + 1 < o.rounds) {
      o.progress("round " + std::to_string(r + 1) + " of " + std::to_string(o.rounds) + " done");
    }
  }
  CpuCalibration c = combine_rounds(std::move(rounds));
  if (o.progress) {
    std::string speeds;
    for (double v : c.round_speed) speeds += (speeds.empty() ? "" : ", ") + format("%.3f", v);
    o.progress(std::to_string(o.rounds) + " rounds, each one's time against their median: " +
               speeds + "; spread " + format("%.1f%%", 100 * c.spread));
  }
  if (comm != nullptr && comm->size() > 1) ZS_RETURN_IF_ERROR(collective_benchmarks(o, comm, &c));
  return c;
}

}  // namespace zs::calibrate
