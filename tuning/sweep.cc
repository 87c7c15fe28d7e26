#include "tuning/sweep.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "tuning/ranking.h"
#include "tuning/sweep_why.h"
#include "tuning/sweep_wire.h"

namespace zs::tuning {

VariantMetrics metrics_of(const sim::SimulationResult& r) {
  VariantMetrics m;
  m.gpu_peak_bytes = r.memory.gpu_peak_bytes;
  m.gpu_capacity_bytes = r.memory.gpu_capacity_bytes;
  m.gpu_oom = r.memory.gpu_oom;
  m.host_oom = r.memory.host_oom;
  m.gpu_breakdown = r.memory.gpu_at_peak;
  m.step_s = r.time.step_s;
  m.compute_s = r.time.breakdown.compute_s;
  m.exposed_comm_s = r.time.breakdown.exposed_comm_s;
  m.exposed_offload_s = r.time.breakdown.exposed_offload_s;
  m.optimizer_s = r.time.breakdown.optimizer_s;
  m.other_s = r.time.breakdown.other_s;
  m.samples_per_s = r.time.samples_per_s;
  m.tokens_per_s = r.time.tokens_per_s;
  m.tflops_per_gpu = r.time.tflops_per_gpu;
  m.mfu = r.time.mfu;
  m.regime = sim::classify_regime(r.time, r.built.layout);
  m.band = sim::time_band(m.regime).fraction;
  m.micro_batch = r.built.layout.micro_batch;
  m.grad_accum = r.built.layout.micro_steps;
  m.train_batch_size = r.train_batch_size;
  return m;
}

std::int64_t held_bytes_per_row(std::size_t axes) {
  // The row, and the variant twice (the sweep's list and the row's copy); per axis its value and
  // both copies of the variant's value; three heap blocks with the allocator's header each.
  constexpr std::size_t kHeapBlock = 16;
  const std::size_t per_axis = sizeof(json::Json) + 2 * sizeof(std::optional<json::Json>);
  return static_cast<std::int64_t>(sizeof(SweepRow) + 2 * sizeof(Variant) + axes * per_axis +
                                   3 * kHeapBlock);
}

void parallel_for(std::size_t n, int jobs, const std::function<void(std::size_t)>& fn) {
  const std::size_t threads = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, jobs)));
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  const auto worker = [&] {
    for (std::size_t i = next++; i < n; i = next++) fn(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
}

namespace {

// "path: message; path: message" for a check's errors, one line.
std::string error_text(const Diagnostics& diags) {
  std::string out;
  for (const Diagnostic& d : diags.items()) {
    if (d.severity != Severity::kError) continue;
    if (!out.empty()) out += "; ";
    out += (d.path.empty() ? "" : d.path + ": ") + d.message;
  }
  return out;
}

}  // namespace

struct VariantRunner::Prepared {
  sim::SimulationRequest request;
  configs::LoadedConfig lc;
  std::vector<json::Json> values;
  std::string invalid;  // non-empty: why the variant cannot be simulated
};

VariantRunner::VariantRunner(const SweepSetup& setup) : setup_(setup) {
  ZS_CHECK(setup.base.config_document != nullptr);
}

Result<VariantRunner::Prepared> VariantRunner::prepare(const Variant& v, bool names) const {
  Prepared p;
  p.request = setup_.base;
  p.request.op_names = names;
  p.request.allocator_near_capacity_only = !names;  // a row, not the named re-simulation
  for (const auto& value : v.values) p.values.push_back(value ? *value : json::Json(nullptr));
  auto doc = std::make_shared<json::Document>(*setup_.base.config_document);
  auto edited = apply_variant(setup_.axes, v, &doc->root, &p.request);
  if (!edited.ok()) {
    p.invalid = edited.status().message();
    return p;
  }
  p.request.config_document = doc;
  {
    // Model facts for the check come from any graph of this model (they do not depend on the
    // workload): cheaper than deriving them from the spec.
    std::lock_guard<std::mutex> lock(mu_);
    p.request.graph = any_graph_;
  }
  ZS_ASSIGN_OR_RETURN(p.lc, sim::check_for_simulation(p.request));
  // The global batch's adjustment below changes gradient accumulation only, which is then not
  // an axis: the values are those of this check.
  if (p.lc.document.root.is_object()) p.values = axis_values(setup_.axes, v, p.lc, p.request);
  if (setup_.global_batch && !p.lc.diagnostics.has_errors()) {
    const auto& micro = p.lc.config.batch.micro_batch_per_gpu;
    const std::int64_t world = setup_.base.cluster.world_size();
    const std::int64_t global = *setup_.global_batch;
    if (!micro.is_set() || micro.is_auto()) {
      p.invalid =
          "the micro-batch is not known (train_micro_batch_size_per_gpu is \"auto\" or "
          "missing): pass --micro-batch or vary micro_batch";
      return p;
    }
    const std::int64_t per_step = micro.value * world;
    if (global % per_step != 0) {
      p.invalid = "micro-batch " + std::to_string(micro.value) + " x world " +
                  std::to_string(world) + " = " + std::to_string(per_step) +
                  " does not divide the global batch " + std::to_string(global);
      return p;
    }
    const std::int64_t gas = global / per_step;
    const auto& current = p.lc.config.batch.gradient_accumulation_steps;
    if (!current.is_set() || current.is_auto() || current.value != gas) {
      p.request.check.grad_accum = gas;
      ZS_ASSIGN_OR_RETURN(p.lc, sim::check_for_simulation(p.request));
    }
  }
  if (p.lc.diagnostics.has_errors()) {
    p.invalid = error_text(p.lc.diagnostics);
  } else if (auto why = combination_error(p.lc, *edited)) {
    p.invalid = *why;
  }
  return p;
}

VariantRunner::Shared VariantRunner::find_shared(const WorkloadKey& key) {
  std::lock_guard<std::mutex> lock(mu_);
  const auto it = shared_.find(key);
  return it == shared_.end() ? Shared{} : it->second;
}

void VariantRunner::store_shared(const WorkloadKey& key, const sim::SimulationResult& r) {
  std::lock_guard<std::mutex> lock(mu_);
  Shared& s = shared_[key];
  if (s.graph == nullptr) s.graph = r.built.layout.graph;
  if (s.priced == nullptr && r.time.priced_model != nullptr &&
      r.time.priced_model->graph == s.graph) {
    s.priced = r.time.priced_model;
  }
  if (any_graph_ == nullptr) any_graph_ = r.built.layout.graph;
}

SweepRow VariantRunner::run_one(const Variant& v, int id, bool memory_only) {
  SweepRow row;
  row.id = id;
  row.variant = v;
  if (stopped_) {
    std::lock_guard<std::mutex> lock(mu_);
    row.error = "not run: " + sink_status_.message();
    row.values.assign(setup_.axes.size(), nullptr);
    return row;
  }
  try {
    auto p = prepare(v, /*names=*/false);
    if (!p.ok()) {
      row.error = p.status().message();
      row.values.assign(setup_.axes.size(), nullptr);
      return row;
    }
    row.values = p->values;
    if (!p->invalid.empty()) {
      row.error = p->invalid;
      return row;
    }
    const configs::DsConfig& c = p->lc.config;
    const WorkloadKey key{c.batch.micro_batch_per_gpu.value,
                          static_cast<int>(configs::training_precision(c))};
    const Shared shared = find_shared(key);
    p->request.graph = shared.graph;
    p->request.priced_model = shared.priced;
    p->request.simulate_time = !memory_only;
    auto r = sim::simulate_checked(p->request, std::move(p->lc));
    if (!r.ok()) {
      row.error = r.status().message();
      return row;
    }
    store_shared(key, *r);
    (memory_only ? memory_runs_ : full_runs_)++;
    row.ok = true;
    row.metrics = metrics_of(*r);
    if (!memory_only && setup_.render) row.rendered = setup_.render(*r, p->request);
  } catch (const std::exception& e) {  // isolate the variant; a ZS_CHECK still aborts
    row.ok = false;
    row.error = std::string("internal error: ") + e.what();
  }
  return row;
}

std::vector<SweepRow> VariantRunner::run(std::span<const Variant> variants, int first_id,
                                         bool memory_only, bool output) {
  std::vector<SweepRow> rows(variants.size());
  // Rows finish in any order; the sink takes them in order: finished[i] marks row i done, and
  // next_out is the first not yet handed over.
  std::vector<char> finished(variants.size(), 0);
  std::size_t next_out = 0;
  parallel_for(variants.size(), setup_.jobs, [&](std::size_t i) {
    rows[i] = run_one(variants[i], first_id + static_cast<int>(i), memory_only);
    if (!output) return;
    rows[i].baseline = rows[i].id == 0;
    const std::int64_t done = ++done_;
    std::lock_guard<std::mutex> lock(mu_);
    if (setup_.progress) setup_.progress(done, std::max<std::int64_t>(total_, done));
    if (!setup_.row_sink) return;
    finished[i] = 1;
    for (; next_out < rows.size() && finished[next_out]; ++next_out) {
      SweepRow& r = rows[next_out];
      if (sink_status_.is_ok()) {
        sink_status_ = setup_.row_sink(r);
        if (!sink_status_.is_ok()) stopped_ = true;
      }
      std::string().swap(r.rendered);
    }
  });
  return rows;
}

std::vector<SweepRow> VariantRunner::run_ids(std::span<const Variant> variants,
                                             std::span<const int> ids) {
  std::vector<SweepRow> rows(ids.size());
  parallel_for(ids.size(), setup_.jobs, [&](std::size_t k) {
    rows[k] = run_one(variants[static_cast<std::size_t>(ids[k])], ids[k], /*memory_only=*/false);
    rows[k].baseline = ids[k] == 0;
  });
  return rows;
}

Status VariantRunner::sink_status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sink_status_;
}

Result<sim::SimulationResult> VariantRunner::simulate_named(const Variant& v) {
  ZS_ASSIGN_OR_RETURN(Prepared p, prepare(v, /*names=*/true));
  if (!p.invalid.empty()) return Status::invalid_argument(p.invalid);
  return sim::simulate_checked(p.request, std::move(p.lc));
}

void rank_outcome(VariantRunner& runner, double headroom, SweepOutcome* out) {
  out->ranking = rank_rows(out->rows, headroom);
  out->pareto = pareto_front(out->rows, headroom);
  out->winner = choose_winner(out->rows, out->ranking);
  out->best = out->winner ? std::optional<int>(out->winner->best) : std::nullopt;
  if (out->best) {
    // The row simulated with the same request gives the same figures; a failure here would be a
    // bug in the sweep, not bad input.
    auto named = runner.simulate_named(out->rows[static_cast<std::size_t>(*out->best)].variant);
    ZS_CHECK_MSG(named.ok(), named.ok() ? "" : named.status().message().c_str());
    out->best_result = std::move(named).value();
  }
  out->why = explain_best(runner, out->axes, out->rows, out->best, headroom);
  if (out->winner && !out->winner->tied.empty()) {
    out->why.insert(out->why.begin(), tie_text(*out->winner, out->rows));
  }
}

namespace {

// The first byte of every rank's batch; rank 0's says whether the sweep goes on.
constexpr char kGoOn = 'g';
constexpr char kStop = 's';

// SweepSetup::shard with several ranks: batches of variants, each rank every ranks-th variant of
// a batch, the rows gathered to rank 0 after each batch and passed on there in id order.
Result<SweepOutcome> run_sharded(const SweepSetup& setup, const std::vector<Variant>& variants) {
  const SweepSetup::Shard& shard = setup.shard;
  ZS_CHECK(shard.ranks > 1 && shard.rank >= 0 && shard.rank < shard.ranks && shard.gather);
  VariantRunner runner(setup);
  SweepOutcome out;
  out.axes = setup.axes;
  out.root = shard.rank == 0;
  const std::size_t n = variants.size();
  // Rows per exchange: enough that a batch's simulations outweigh gathering it.
  const std::size_t batch = static_cast<std::size_t>(std::max(1, setup.jobs) * shard.ranks) * 32;
  const auto t0 = std::chrono::steady_clock::now();
  Status stop;  // rank 0: the sink's failure, which stops every rank at the next exchange
  for (std::size_t lo = 0; lo < n; lo += batch) {
    const std::size_t hi = std::min(n, lo + batch);
    std::vector<int> mine;
    for (std::size_t i = lo + static_cast<std::size_t>(shard.rank); i < hi;
         i += static_cast<std::size_t>(shard.ranks)) {
      mine.push_back(static_cast<int>(i));
    }
    std::string bytes(1, stop.is_ok() ? kGoOn : kStop);
    if (stop.is_ok()) encode_rows(runner.run_ids(variants, mine), &bytes);
    ZS_ASSIGN_OR_RETURN(std::vector<std::string> all, shard.gather(bytes));
    if (all.empty() || all[0].empty()) {
      return Status::io_error("sweep: rank 0 sent no batch header");
    }
    if (all[0][0] == kStop) {
      if (shard.rank == 0) return stop;
      out.stopped = true;
      return out;
    }
    if (shard.rank != 0) continue;
    if (all.size() != static_cast<std::size_t>(shard.ranks)) {
      return Status::io_error("sweep: gathered " + std::to_string(all.size()) + " ranks' rows of " +
                              std::to_string(shard.ranks));
    }
    std::vector<SweepRow> rows;
    rows.reserve(hi - lo);
    for (int r = 0; r < shard.ranks; ++r) {
      ZS_ASSIGN_OR_RETURN(std::vector<SweepRow> part,
                          decode_rows(std::string_view(all[static_cast<std::size_t>(r)]).substr(1),
                                      "rank " + std::to_string(r)));
      for (SweepRow& row : part) rows.push_back(std::move(row));
    }
    std::sort(rows.begin(), rows.end(),
              [](const SweepRow& a, const SweepRow& b) { return a.id < b.id; });
    bool one_each = rows.size() == hi - lo;
    for (std::size_t k = 0; k < rows.size() && one_each; ++k) {
      one_each = rows[k].id == static_cast<int>(lo + k);
    }
    if (!one_each) {
      return Status::io_error("sweep: the ranks' rows of batch " + std::to_string(lo) + ".." +
                              std::to_string(hi - 1) + " are not one each");
    }
    for (SweepRow& row : rows) {
      row.variant = variants[static_cast<std::size_t>(row.id)];
      if (setup.progress) setup.progress(row.id + 1, static_cast<std::int64_t>(n));
      if (setup.row_sink) {
        if (stop.is_ok()) stop = setup.row_sink(row);
        std::string().swap(row.rendered);
      }
      out.rows.push_back(std::move(row));
    }
    if (lo == 0 && setup.on_start) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      setup.on_start(static_cast<std::int64_t>(n), s / static_cast<double>(hi));
    }
  }
  if (shard.rank != 0) return out;
  ZS_RETURN_IF_ERROR(stop);
  rank_outcome(runner, setup.headroom, &out);
  return out;
}

}  // namespace

Result<SweepOutcome> run_sweep(const SweepSetup& setup) {
  ZS_RETURN_IF_ERROR(check_variant_count(setup.axes));
  std::vector<Variant> variants;
  variants.reserve(static_cast<std::size_t>(variant_count(setup.axes)) + 1);
  variants.push_back(Variant{std::vector<std::optional<json::Json>>(setup.axes.size())});
  for (Variant& v : cartesian_variants(setup.axes)) variants.push_back(std::move(v));
  if (setup.shard.ranks > 1) return run_sharded(setup, variants);
  VariantRunner runner(setup);
  runner.set_progress_total(static_cast<std::int64_t>(variants.size()));
  SweepOutcome out;
  out.axes = setup.axes;
  // The baseline first (it builds and prices the model once for all), then a first batch whose
  // wall time per row, on the threads the sweep has, says how long the rest will take.
  const std::span<const Variant> all(variants);
  out.rows = runner.run(all.first(1), 0);
  const std::size_t batch = std::min<std::size_t>(all.size() - 1, 8 * std::max(1, setup.jobs));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<SweepRow> first = runner.run(all.subspan(1, batch), 1);
  const double batch_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (setup.on_start) {
    setup.on_start(static_cast<std::int64_t>(all.size()),
                   batch > 0 ? batch_s / static_cast<double>(batch) : batch_s);
  }
  std::vector<SweepRow> rest = runner.run(all.subspan(1 + batch), 1 + static_cast<int>(batch));
  out.rows.reserve(all.size());
  for (std::vector<SweepRow>* part : {&first, &rest}) {
    out.rows.insert(out.rows.end(), std::make_move_iterator(part->begin()),
                    std::make_move_iterator(part->end()));
  }
  ZS_RETURN_IF_ERROR(runner.sink_status());
  rank_outcome(runner, setup.headroom, &out);
  return out;
}

}  // namespace zs::tuning
