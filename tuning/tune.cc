#include "tuning/tune.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "tuning/ranking.h"

namespace zs::tuning {
namespace {

using json::Json;

// The axes tune searches, in this order.
enum AxisIndex {
  kStage,
  kOffload,
  kMicroBatch,
  kCheckpointing,
  kOverlapComm,
  kReduceBucket,
  kPrefetchBucket,
  kPersistence,
  kAxisCount
};

// Bounds of the bucket searches, in elements (DeepSpeed's unit for these knobs).
struct KnobRange {
  AxisIndex axis;
  double lo;
  double hi;
};
constexpr KnobRange kBucketRanges[] = {
    {kReduceBucket, 1e6, 4e9}, {kPrefetchBucket, 1e6, 4e9}, {kPersistence, 1e3, 1e8}};
constexpr double kFactors[] = {4.0, 2.0};

struct Structure {
  int stage = 0;
  std::string offload;
  bool checkpointing = false;
  std::int64_t max_micro = 0;  // largest micro-batch that fits by memory; 0: none
};

Variant structure_variant(const Structure& s, std::int64_t micro) {
  Variant v{std::vector<std::optional<Json>>(kAxisCount)};
  v.values[kStage] = s.stage;
  v.values[kOffload] = s.offload;
  v.values[kMicroBatch] = micro;
  v.values[kCheckpointing] = s.checkpointing;
  return v;
}

std::string variant_key(const Variant& v) {
  std::string key;
  for (const auto& value : v.values) key += (value ? value->dump() : "-") + "|";
  return key;
}

// Runs the variants not run before, within the budget; appends their rows. Returns the rows'
// indices in `rows`, one per variant (-1: skipped), so callers can read the results back.
class Search {
 public:
  Search(VariantRunner* runner, std::int64_t budget, std::vector<SweepRow>* rows)
      : runner_(runner), budget_(budget), rows_(rows) {}

  std::vector<int> run(const std::vector<Variant>& variants) {
    std::vector<int> index(variants.size(), -1);
    std::vector<Variant> todo;
    std::vector<std::size_t> todo_of;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const std::string key = variant_key(variants[i]);
      if (const auto it = seen_.find(key); it != seen_.end()) {
        index[i] = it->second;
        continue;
      }
      if (spent_ + static_cast<std::int64_t>(todo.size()) >= budget_) continue;
      seen_[key] = -1;  // claimed; filled in below
      todo.push_back(variants[i]);
      todo_of.push_back(i);
    }
    const int first = static_cast<int>(rows_->size());
    std::vector<SweepRow> done = runner_->run(todo, first);
    spent_ += static_cast<std::int64_t>(todo.size());
    for (std::size_t k = 0; k < done.size(); ++k) {
      seen_[variant_key(todo[k])] = first + static_cast<int>(k);
      rows_->push_back(std::move(done[k]));
    }
    // Repeats within this batch read the row of their first occurrence.
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const auto it = seen_.find(variant_key(variants[i]));
      if (index[i] < 0 && it != seen_.end()) index[i] = it->second;
    }
    return index;
  }
  bool exhausted() const { return spent_ >= budget_; }

 private:
  VariantRunner* runner_;
  std::int64_t budget_;
  std::int64_t spent_ = 0;
  std::vector<SweepRow>* rows_;
  std::map<std::string, int> seen_;
};

std::vector<Structure> structures() {
  std::vector<Structure> out;
  for (int stage = 0; stage <= 3; ++stage) {
    for (const char* offload : {"none", "optimizer", "optimizer+param"}) {
      if (stage == 0 && std::string(offload) != "none") continue;
      if (stage < 3 && std::string(offload) == "optimizer+param") continue;
      for (bool ckpt : {false, true}) out.push_back(Structure{stage, offload, ckpt, 0});
    }
  }
  return out;
}

// Step 1: the largest micro-batch each structure fits with, by memory alone.
void prune_by_memory(VariantRunner& runner, const std::vector<std::int64_t>& micros,
                     double headroom, std::vector<Structure>* all) {
  std::vector<std::size_t> alive(all->size());
  for (std::size_t i = 0; i < alive.size(); ++i) alive[i] = i;
  for (std::int64_t micro : micros) {
    if (alive.empty()) break;
    std::vector<Variant> probes;
    for (std::size_t i : alive) {
      Variant v = structure_variant((*all)[i], micro);
      // The settings that need least memory: nothing else can fit if these do not.
      v.values[kOverlapComm] = false;
      v.values[kReduceBucket] = static_cast<std::int64_t>(kBucketRanges[0].lo);
      if ((*all)[i].stage == 3) {
        v.values[kPrefetchBucket] = static_cast<std::int64_t>(kBucketRanges[1].lo);
        v.values[kPersistence] = static_cast<std::int64_t>(kBucketRanges[2].lo);
      }
      probes.push_back(std::move(v));
    }
    const std::vector<SweepRow> rows =
        runner.run(probes, -1, /*memory_only=*/true, /*count=*/false);
    std::vector<std::size_t> still;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      if (!is_feasible(rows[k], headroom)) continue;
      (*all)[alive[k]].max_micro = micro;
      still.push_back(alive[k]);
    }
    alive = std::move(still);
  }
}

double tokens_of(const std::vector<SweepRow>& rows, int index, double headroom) {
  if (index < 0 || !is_feasible(rows[static_cast<std::size_t>(index)], headroom)) return -1;
  return rows[static_cast<std::size_t>(index)].metrics.tokens_per_s;
}

// Step 2. Returns the row indices of the points simulated.
std::vector<int> search_structures(Search& search, const std::vector<Structure>& all,
                                   const std::vector<std::int64_t>& micros,
                                   const std::vector<SweepRow>& rows, double headroom) {
  std::vector<Variant> firsts;
  std::vector<const Structure*> of;
  for (const Structure& s : all) {
    if (s.max_micro == 0) continue;
    Variant v = structure_variant(s, s.max_micro);
    v.values[kOverlapComm] = true;
    firsts.push_back(std::move(v));
    of.push_back(&s);
  }
  const std::vector<int> first_rows = search.run(firsts);
  std::vector<int> points = first_rows;
  // Structures by their first point's throughput, best first (index order breaks ties).
  std::vector<std::size_t> order(first_rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return tokens_of(rows, first_rows[a], headroom) > tokens_of(rows, first_rows[b], headroom);
  });
  const double best = order.empty() ? -1 : tokens_of(rows, first_rows[order[0]], headroom);
  for (std::size_t i : order) {
    if (search.exhausted()) break;
    if (tokens_of(rows, first_rows[i], headroom) < 0.5 * best) break;  // dominated
    std::vector<Variant> more;
    for (auto it = micros.rbegin(); it != micros.rend(); ++it) {
      if (*it > of[i]->max_micro) continue;
      for (bool overlap : {true, false}) {
        Variant v = structure_variant(*of[i], *it);
        v.values[kOverlapComm] = overlap;
        more.push_back(std::move(v));
      }
    }
    for (int r : search.run(more)) points.push_back(r);
  }
  return points;
}

// Step 3: coordinate descent on the bucket knobs of one point at a time per round, all points
// advancing together so that each round's simulations run in parallel.
struct Descent {
  Variant at;
  double tokens = 0;
  std::vector<KnobRange> knobs;
  std::size_t knob = 0;
  std::size_t factor = 0;
  int direction = 0;  // 0: try both; +1 / -1: keep going that way
  bool done() const { return factor >= std::size(kFactors); }
  void next_knob() {
    direction = 0;
    if (++knob >= knobs.size()) {
      knob = 0;
      ++factor;
    }
  }
};

std::optional<Variant> moved(const Descent& d, int sign) {
  const KnobRange& k = d.knobs[d.knob];
  const Json& cur = *d.at.values[k.axis];
  const double from = cur.get<double>();
  const double to =
      std::clamp(sign > 0 ? from * kFactors[d.factor] : from / kFactors[d.factor], k.lo, k.hi);
  const auto value = static_cast<std::int64_t>(std::llround(to));
  if (value == cur.get<std::int64_t>()) return std::nullopt;
  Variant v = d.at;
  v.values[k.axis] = value;
  return v;
}

void refine_buckets(Search& search, std::vector<Descent> points, const std::vector<SweepRow>& rows,
                    double headroom) {
  while (!search.exhausted()) {
    std::vector<Variant> round;
    std::vector<std::pair<std::size_t, int>> owner;  // point, sign
    for (std::size_t p = 0; p < points.size(); ++p) {
      Descent& d = points[p];
      while (!d.done()) {
        bool any = false;
        for (int sign : {+1, -1}) {
          if (d.direction != 0 && sign != d.direction) continue;
          if (auto v = moved(d, sign)) {
            round.push_back(std::move(*v));
            owner.emplace_back(p, sign);
            any = true;
          }
        }
        if (any) break;
        d.next_knob();
      }
    }
    if (round.empty()) return;
    const std::vector<int> got = search.run(round);
    std::vector<double> best(points.size(), -1);
    std::vector<int> best_sign(points.size(), 0);
    std::vector<std::size_t> best_k(points.size(), 0);
    for (std::size_t k = 0; k < got.size(); ++k) {
      const double t = tokens_of(rows, got[k], headroom);
      const std::size_t p = owner[k].first;
      if (t > best[p]) {
        best[p] = t;
        best_sign[p] = owner[k].second;
        best_k[p] = k;
      }
    }
    std::vector<bool> touched(points.size(), false);
    for (const auto& o : owner) touched[o.first] = true;
    for (std::size_t p = 0; p < points.size(); ++p) {
      if (!touched[p]) continue;
      Descent& d = points[p];
      if (best[p] > d.tokens) {
        d.at = round[best_k[p]];
        d.tokens = best[p];
        d.direction = best_sign[p];
      } else {
        d.next_knob();
      }
    }
  }
}

// Every value each axis took in the rows, sorted.
void collect_values(std::vector<Axis>* axes, const std::vector<SweepRow>& rows) {
  for (std::size_t a = 0; a < axes->size(); ++a) {
    std::vector<Json> values;
    for (const SweepRow& r : rows) {
      const Json& v = r.values[a];
      if (v.is_null()) continue;
      if (std::none_of(values.begin(), values.end(),
                       [&](const Json& seen) { return same_value(seen, v); })) {
        values.push_back(v);
      }
    }
    std::sort(values.begin(), values.end(), [](const Json& x, const Json& y) {
      if (x.is_number() && y.is_number()) return x.get<double>() < y.get<double>();
      return x < y;
    });
    (*axes)[a].values = std::move(values);
  }
}

}  // namespace

std::vector<Axis> tune_axes() {
  return {make_axis("stage", {}),
          make_axis("offload", {}),
          make_axis("micro_batch", {}),
          make_axis("checkpointing", {}),
          make_axis("overlap_comm", {}),
          make_axis("zero_optimization.reduce_bucket_size", {}),
          make_axis("zero_optimization.stage3_prefetch_bucket_size", {}),
          make_axis("zero_optimization.stage3_param_persistence_threshold", {})};
}

Result<SweepOutcome> run_tune(SweepSetup setup, const TuneOptions& options) {
  setup.axes = tune_axes();
  VariantRunner runner(setup);
  runner.set_progress_total(options.budget + 1);
  SweepOutcome out;
  const std::vector<Variant> baseline = {Variant{std::vector<std::optional<Json>>(kAxisCount)}};
  const auto t0 = std::chrono::steady_clock::now();
  out.rows = runner.run(baseline, 0);
  if (setup.on_start) {
    const double baseline_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    setup.on_start(options.budget + 1, baseline_s / std::max(1, setup.jobs));
  }
  ZS_RETURN_IF_ERROR(runner.sink_status());
  const SweepRow base = out.rows[0];  // a copy: the search appends to out.rows
  if (!setup.global_batch) {
    if (!base.ok) {
      return Status::invalid_argument(
          "tune keeps the global batch of the config, which could not be simulated (" + base.error +
          "); pass --global-batch N");
    }
    setup.global_batch = base.metrics.train_batch_size;
  }
  const std::int64_t world = setup.base.cluster.world_size();
  std::vector<std::int64_t> micros;
  for (std::int64_t m = 1; m <= options.max_micro_batch; m *= 2) {
    if (*setup.global_batch % (m * world) == 0) micros.push_back(m);
  }
  if (micros.empty()) {  // micro-batch 1 divides whenever world does
    return Status::invalid_argument(
        "the global batch " + std::to_string(*setup.global_batch) + " is not a multiple of the " +
        std::to_string(world) + " GPUs, so no micro-batch x gradient accumulation x " +
        std::to_string(world) + " GPUs makes it; give a multiple of " + std::to_string(world) +
        " (--global-batch, or the config's train_batch_size)");
  }
  const std::int64_t base_micro = base.ok ? base.metrics.micro_batch : 0;
  if (base_micro > 0 && *setup.global_batch % (base_micro * world) == 0 &&
      std::find(micros.begin(), micros.end(), base_micro) == micros.end()) {
    micros.insert(std::upper_bound(micros.begin(), micros.end(), base_micro), base_micro);
  }

  std::vector<Structure> all = structures();
  prune_by_memory(runner, micros, setup.headroom, &all);
  Search search(&runner, options.budget, &out.rows);
  const std::vector<int> points = search_structures(search, all, micros, out.rows, setup.headroom);

  // The best distinct points (and the baseline's structure when it fits) get their buckets
  // refined.
  std::vector<int> candidates = points;
  candidates.push_back(0);
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::stable_sort(candidates.begin(), candidates.end(), [&](int a, int b) {
    return tokens_of(out.rows, a, setup.headroom) > tokens_of(out.rows, b, setup.headroom);
  });
  std::vector<Descent> descents;
  for (int r : candidates) {
    if (static_cast<int>(descents.size()) >= options.refine_points) break;
    if (tokens_of(out.rows, r, setup.headroom) < 0) break;
    const SweepRow& row = out.rows[static_cast<std::size_t>(r)];
    Descent d;
    d.tokens = row.metrics.tokens_per_s;
    d.at = Variant{std::vector<std::optional<Json>>(kAxisCount)};
    for (int a : {kStage, kOffload, kMicroBatch, kCheckpointing, kOverlapComm, kReduceBucket}) {
      d.at.values[a] = row.values[a];
    }
    const bool stage3 = row.values[kStage] == 3;
    for (const KnobRange& k : kBucketRanges) {
      if (row.values[kStage] == 0) break;  // stage 0 has no ZeRO buckets
      if (k.axis != kReduceBucket && !stage3) continue;
      if (!row.values[k.axis].is_number()) continue;
      d.at.values[k.axis] = row.values[k.axis];
      d.knobs.push_back(k);
    }
    if (d.knobs.empty()) continue;
    descents.push_back(std::move(d));
  }
  refine_buckets(search, std::move(descents), out.rows, setup.headroom);

  ZS_RETURN_IF_ERROR(runner.sink_status());
  out.axes = setup.axes;
  collect_values(&out.axes, out.rows);
  rank_outcome(runner, setup.headroom, &out);
  return out;
}

}  // namespace zs::tuning
