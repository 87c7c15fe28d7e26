#include "tuning/fit_advice.h"

#include <algorithm>
#include <set>

#include "tuning/ranking.h"

namespace zs::tuning {
namespace {

using json::Json;

enum AxisIndex { kStage, kOffload, kMicroBatch, kCheckpointing, kAxisCount };

// The values each axis may take besides the user's: only what applies and is not already set.
struct Choices {
  std::vector<Json> stage, offload, micro_batch, checkpointing;
};

Choices choices_for(const SweepRow& base, std::int64_t global_batch, std::int64_t world) {
  Choices c;
  const int stage = base.values[kStage].get<int>();
  for (int s = stage; s <= 3; ++s) c.stage.push_back(s);
  const std::string offload = base.values[kOffload].get<std::string>();
  c.offload.push_back(offload);
  for (const char* o : {"none", "optimizer", "optimizer+param"}) {
    if (o != offload) c.offload.push_back(o);
  }
  const std::int64_t micro = base.values[kMicroBatch].get<std::int64_t>();
  for (std::int64_t m = micro; m >= 1; m /= 2) {
    if (global_batch % (m * world) == 0) c.micro_batch.push_back(m);
    if (m % 2 != 0 && m > 1 && global_batch % world == 0) {  // an odd micro-batch: 1 still works
      c.micro_batch.push_back(std::int64_t{1});
      break;
    }
  }
  c.checkpointing.push_back(base.values[kCheckpointing].get<bool>());
  if (!base.values[kCheckpointing].get<bool>()) c.checkpointing.push_back(true);
  return c;
}

// What DeepSpeed accepts and uses: offload needs a ZeRO stage, parameter offload stage 3.
bool applies(int stage, const std::string& offload) {
  if (stage == 0) return offload == "none";
  return stage == 3 || offload != "optimizer+param";
}

std::string offload_text(const std::string& o) {
  if (o == "none") return "no CPU offload";
  if (o == "optimizer") return "optimizer offloaded to the CPU";
  return "optimizer and parameters offloaded to the CPU";
}

FitChange describe(SweepRow row, const SweepRow& base) {
  FitChange fc;
  std::vector<std::string> parts;
  if (!same_value(row.values[kStage], base.values[kStage])) {
    parts.push_back("ZeRO stage " + value_text(row.values[kStage]));
    fc.changes.push_back("stage=" + value_text(row.values[kStage]));
  }
  if (!same_value(row.values[kOffload], base.values[kOffload])) {
    parts.push_back(offload_text(row.values[kOffload].get<std::string>()));
    fc.changes.push_back("offload=" + value_text(row.values[kOffload]));
  }
  if (!same_value(row.values[kMicroBatch], base.values[kMicroBatch])) {
    parts.push_back("micro-batch " + value_text(row.values[kMicroBatch]) +
                    " (gradient accumulation " + std::to_string(row.metrics.grad_accum) + ")");
    fc.changes.push_back("micro_batch=" + value_text(row.values[kMicroBatch]));
  }
  if (!same_value(row.values[kCheckpointing], base.values[kCheckpointing])) {
    parts.push_back("activation checkpointing on");
    fc.changes.push_back("checkpointing=true");
  }
  for (std::size_t k = 0; k < parts.size(); ++k) fc.text += (k > 0 ? ", " : "") + parts[k];
  fc.row = std::move(row);
  return fc;
}

}  // namespace

Result<FitAdvice> changes_that_fit(SweepSetup setup, int count) {
  setup.axes = {make_axis("stage", {}), make_axis("offload", {}), make_axis("micro_batch", {}),
                make_axis("checkpointing", {})};
  setup.row_sink = nullptr;
  setup.progress = nullptr;
  setup.on_start = nullptr;
  setup.render = nullptr;
  VariantRunner runner(setup);
  const Variant as_given{std::vector<std::optional<Json>>(kAxisCount)};
  std::vector<SweepRow> rows = runner.run({&as_given, 1}, 0, /*memory_only=*/false,
                                          /*output=*/false);
  const SweepRow base = rows[0];
  if (!base.ok) {
    return Status::invalid_argument("the config as given cannot be simulated: " + base.error);
  }
  FitAdvice advice;
  if (is_feasible(base, setup.headroom)) return advice;
  const std::int64_t global = setup.global_batch.value_or(base.metrics.train_batch_size);
  setup.global_batch = global;
  VariantRunner fixed_batch(setup);
  const Choices c = choices_for(base, global, setup.base.cluster.world_size());

  // Every applicable combination but the config as given, by memory alone.
  std::vector<Variant> combos;
  for (const Json& s : c.stage) {
    for (const Json& o : c.offload) {
      if (!applies(s.get<int>(), o.get<std::string>())) continue;
      for (const Json& m : c.micro_batch) {
        for (const Json& k : c.checkpointing) {
          if (same_value(s, base.values[kStage]) && same_value(o, base.values[kOffload]) &&
              same_value(m, base.values[kMicroBatch]) &&
              same_value(k, base.values[kCheckpointing])) {
            continue;
          }
          combos.push_back(Variant{{s, o, m, k}});
        }
      }
    }
  }
  advice.tried = static_cast<std::int64_t>(combos.size());
  const std::vector<SweepRow> probes =
      fixed_batch.run(combos, 1, /*memory_only=*/true, /*output=*/false);
  std::vector<Variant> fitting;
  for (std::size_t k = 0; k < probes.size(); ++k) {
    if (is_feasible(probes[k], setup.headroom)) fitting.push_back(combos[k]);
  }
  advice.fitting = static_cast<std::int64_t>(fitting.size());
  if (fitting.empty()) return advice;

  // The fitting ones in full, ranked with the band; row 0 stays the config as given so that
  // choose_winner counts changes from it.
  std::vector<SweepRow> timed = fixed_batch.run(fitting, 1, /*memory_only=*/false,
                                                /*output=*/false);
  for (SweepRow& r : timed) rows.push_back(std::move(r));
  const std::vector<int> ranking = rank_rows(rows, setup.headroom);
  const std::optional<Winner> winner = choose_winner(rows, ranking);
  if (!winner) return advice;
  std::vector<int> order = {winner->best};
  for (int id : ranking) {
    if (id != winner->best) order.push_back(id);
  }
  std::set<std::vector<std::string>> seen;
  for (int id : order) {
    if (static_cast<int>(advice.changes.size()) >= count) break;
    FitChange fc = describe(rows[static_cast<std::size_t>(id)], base);
    std::vector<std::string> knobs;
    for (const std::string& ch : fc.changes) knobs.push_back(ch.substr(0, ch.find('=')));
    if (!seen.insert(knobs).second) continue;  // the best of each set of knobs only
    advice.changes.push_back(std::move(fc));
  }
  return advice;
}

}  // namespace zs::tuning
