#include "reports/sweep_table.h"

#include <cmath>
#include <cstdio>

#include "common/json_path.h"
#include "common/units.h"
#include "reports/json_input.h"

namespace zs::reports {
namespace {

using json::child_path;
using json::index_path;
using json::Json;

constexpr json::IntRange kNonNegative{0, INT64_MAX};
// Seconds, rates and bands as the plots take them: past 1e15 a unit's scaling (seconds to ms)
// would not stay finite in gnuplot, and no simulated or measured figure comes near it.
constexpr json::NumberRange kNonNegativeNumber{0, 1e15};

MemoryBreakdown read_breakdown(FieldReader& b) {
  MemoryBreakdown m;
  m.params_bytes = b.integer("params_bytes", kNonNegative);
  m.grads_bytes = b.integer("grads_bytes", kNonNegative);
  m.optimizer_states_bytes = b.integer("optimizer_states_bytes", kNonNegative);
  m.activations_bytes = b.integer("activations_bytes", kNonNegative);
  m.buffers_bytes = b.integer("buffers_bytes", kNonNegative);
  m.other_bytes = b.integer("other_bytes", kNonNegative);
  return m;
}

SweepBase read_base(const json::Document& doc, const Json& obj, Diagnostics* diags) {
  FieldReader f(doc, obj, "base", diags);
  SweepBase b;
  b.config = f.string("config");
  b.model = f.string("model");
  b.cluster = f.string("cluster");
  b.gpu = f.string("gpu");
  b.world_size = f.integer("world_size", {1, INT64_MAX});
  b.gpu_memory_bytes = f.integer("gpu_memory_bytes", kNonNegative);
  b.seq_len = f.integer("seq_len", kNonNegative);
  b.headroom = f.number("headroom", {0, 1});
  return b;
}

std::vector<Knob> read_varied(const json::Document& doc, const Json& arr, Diagnostics* diags) {
  std::vector<Knob> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    FieldReader f(doc, arr[i], index_path("varied", i), diags);
    Knob k;
    k.key = f.string("key");
    if (const Json* values = f.array("values")) k.values.assign(values->begin(), values->end());
    out.push_back(std::move(k));
  }
  return out;
}

SweepRow read_row(const json::Document& doc, const Json& obj, const std::string& path,
                  const std::vector<Knob>& varied, Diagnostics* diags) {
  FieldReader f(doc, obj, path, diags);
  SweepRow r;
  r.id = static_cast<int>(f.integer("id", {0, INT32_MAX}));
  if (const Json* values = f.object("values")) {
    for (const Knob& k : varied) {
      const auto it = values->find(k.key);
      r.values.push_back(it == values->end() ? Json() : *it);
    }
  }
  const std::string status = f.string("status");
  if (status != "ok" && status != "invalid" && f.has("status") && obj["status"].is_string()) {
    f.error("status", "bad-enum",
            "\"" + status + "\" is not allowed; expected \"ok\" or \"invalid\"");
  }
  r.valid = status == "ok";
  r.feasible = f.boolean("feasible");
  r.baseline = f.boolean("baseline");
  if (r.valid) {
    if (const Json* result = f.object("result")) {
      r.result = read_variant_result(doc, *result, f.member_path("result"), diags);
    }
  } else if (status == "invalid") {
    r.error = f.optional_string("error").value_or("");
  }
  return r;
}

// The id of a row that ran, at JSON path `path`; nullopt (reported) otherwise.
std::optional<int> read_row_id(const json::Document& doc, const Json& v, const std::string& path,
                               const SweepTable& t, Diagnostics* diags) {
  Diagnostic d;
  d.path = path;
  d.pos = doc.position_of(path);
  d.code = "bad-row-id";
  std::int64_t id = 0;
  std::string warning;
  if (!v.is_number()) {
    // zerosim writes ids as JSON integers; a string here means the file was edited or is not ours.
    d.message = "expected an integer row id, got " + std::string(json::type_name(v)) + " " +
                json::render_value(v);
  } else if (auto err = json::to_int(v, &id, &warning)) {
    d.message = *err;
  } else if (const SweepRow* row = id < 0 || id > INT32_MAX ? nullptr : t.row(static_cast<int>(id));
             row == nullptr) {
    d.message = json::render_value(v) + " names no row; expected the id of a row";
  } else if (!row->valid) {
    d.message = "row " + std::to_string(id) + " is invalid; expected the id of a row that ran";
  } else {
    return static_cast<int>(id);
  }
  diags->add(std::move(d));
  return std::nullopt;
}

std::vector<int> read_ids(const json::Document& doc, const Json& arr, const std::string& path,
                          const SweepTable& t, Diagnostics* diags) {
  std::vector<int> ids;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    if (auto id = read_row_id(doc, arr[i], index_path(path, i), t, diags)) ids.push_back(*id);
  }
  return ids;
}

std::vector<TimelineSpan> read_timeline(const json::Document& doc, const Json& arr,
                                        Diagnostics* diags) {
  std::vector<TimelineSpan> out;
  out.reserve(arr.size());
  for (std::size_t i = 0; i < arr.size(); ++i) {
    FieldReader f(doc, arr[i], index_path("best_timeline", i), diags);
    TimelineSpan s;
    s.stream = f.string("stream");
    s.op = f.integer("op", kNonNegative);
    s.name = f.optional_string("name").value_or("");
    s.start_s = f.number("start_s", kNonNegativeNumber);
    s.end_s = f.number("end_s", kNonNegativeNumber);
    if (s.end_s < s.start_s) {
      f.error("end_s", "out-of-range",
              "ends before it starts (start_s " + format_double(s.start_s) + ")");
    }
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<TimelineFold> read_folds(const json::Document& doc, const Json& arr,
                                     Diagnostics* diags) {
  std::vector<TimelineFold> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    FieldReader f(doc, arr[i], index_path("best_folds", i), diags);
    TimelineFold fold;
    fold.segment = f.string("segment");
    fold.start_s = f.number("start_s", kNonNegativeNumber);
    fold.end_s = f.number("end_s", kNonNegativeNumber);
    fold.period_s = f.number("period_s", kNonNegativeNumber);
    fold.repeat = f.integer("repeat", {1, INT64_MAX});
    if (fold.end_s < fold.start_s) {
      f.error("end_s", "out-of-range",
              "ends before it starts (start_s " + format_double(fold.start_s) + ")");
    }
    out.push_back(std::move(fold));
  }
  return out;
}

void read_rows(const json::Document& doc, const Json& arr, SweepTable* t, Diagnostics* diags) {
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string path = index_path("rows", i);
    SweepRow r = read_row(doc, arr[i], path, t->varied, diags);
    if (!t->index_by_id.emplace(r.id, t->rows.size()).second) {
      Diagnostic d;
      d.path = child_path(path, "id");
      d.pos = doc.position_of(d.path);
      d.code = "duplicate-id";
      d.message = "row id " + std::to_string(r.id) + " repeats; expected unique ids";
      diags->add(std::move(d));
      continue;
    }
    t->rows.push_back(std::move(r));
  }
}

// An array of strings at top-level `key`, appended to `out`.
void read_strings(const json::Document& doc, FieldReader& top, const char* key,
                  std::vector<std::string>* out, Diagnostics* diags) {
  const Json* arr = top.array(key);
  if (arr == nullptr) return;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    if ((*arr)[i].is_string()) {
      out->push_back((*arr)[i].get<std::string>());
      continue;
    }
    Diagnostic d;
    d.path = index_path(key, i);
    d.pos = doc.position_of(d.path);
    d.code = "wrong-type";
    d.message = "expected a string, got " + json::render_value((*arr)[i]);
    diags->add(std::move(d));
  }
}

}  // namespace

const SweepRow* SweepTable::row(int id) const {
  const auto it = index_by_id.find(id);
  return it == index_by_id.end() ? nullptr : &rows[it->second];
}

VariantResult read_variant_result(const json::Document& doc, const Json& obj,
                                  const std::string& path, Diagnostics* diags) {
  VariantResult v;
  FieldReader f(doc, obj, path, diags);
  v.zero_stage = static_cast<int>(f.optional_integer("zero_stage", {0, 3}).value_or(0));
  if (const Json* batch = f.object("batch")) {
    FieldReader b(doc, *batch, f.member_path("batch"), diags);
    v.micro_batch_per_gpu = b.integer("micro_batch_per_gpu", {1, INT64_MAX});
    v.gradient_accumulation_steps = b.integer("gradient_accumulation_steps", {1, INT64_MAX});
  }
  if (const Json* memory = f.object("memory")) {
    FieldReader m(doc, *memory, f.member_path("memory"), diags);
    if (const Json* gpu = m.object("gpu")) {
      FieldReader g(doc, *gpu, m.member_path("gpu"), diags);
      v.peak_bytes = g.integer("peak_bytes", kNonNegative);
      v.capacity_bytes = g.integer("capacity_bytes", kNonNegative);
      v.oom = g.boolean("oom");
      v.memory_band = g.optional_number("band", kNonNegativeNumber).value_or(0);
      if (const Json* b = g.object("breakdown")) {
        FieldReader br(doc, *b, g.member_path("breakdown"), diags);
        v.breakdown = read_breakdown(br);
      }
    }
  }
  if (const Json* time = f.object("time")) {
    FieldReader t(doc, *time, f.member_path("time"), diags);
    v.step_s = t.number("step_s", kNonNegativeNumber);
    v.compute_s = t.number("compute_s", kNonNegativeNumber);
    v.optimizer_s = t.number("optimizer_s", kNonNegativeNumber);
    v.exposed_comm_s = t.number("exposed_comm_s", kNonNegativeNumber);
    v.exposed_offload_s = t.number("exposed_offload_s", kNonNegativeNumber);
    v.other_s = t.optional_number("other_s", kNonNegativeNumber).value_or(0);
    v.bottleneck = t.optional_string("bottleneck").value_or("");
    v.time_band = t.optional_number("band", kNonNegativeNumber).value_or(0);
  }
  if (const Json* tp = f.object("throughput")) {
    FieldReader t(doc, *tp, f.member_path("throughput"), diags);
    v.samples_per_s = t.number("samples_per_s", kNonNegativeNumber);
    v.tokens_per_s = t.number("tokens_per_s", kNonNegativeNumber);
    v.tflops_per_gpu = t.number("tflops_per_gpu", kNonNegativeNumber);
    v.mfu = t.optional_number("mfu", kNonNegativeNumber).value_or(0);
  }
  return v;
}

Result<SweepTable> parse_sweep_table(const json::Document& doc) {
  Diagnostics diags;
  SweepTable t;
  t.source = doc.source;
  FieldReader top(doc, doc.root, "", &diags);
  const std::string format = top.string("format");
  if (!diags.has_errors() && format != kSweepFormat) {
    top.error("format", "bad-format",
              "\"" + format + "\" is not allowed; expected \"" + kSweepFormat +
                  "\" (the results.json that `zerosim sweep` or `zerosim tune` writes)");
  }
  if (diags.has_errors()) return first_errors(diags, doc.source);

  t.command = top.string("command");
  if (t.command != "sweep" && t.command != "tune" && top.has("command") &&
      doc.root["command"].is_string()) {
    top.error("command", "bad-enum",
              "\"" + t.command + "\" is not allowed; expected \"sweep\" or \"tune\"");
  }
  if (const Json* base = top.object("base")) t.base = read_base(doc, *base, &diags);
  if (const Json* varied = top.array("varied")) t.varied = read_varied(doc, *varied, &diags);
  if (const Json* rows = top.array("rows")) read_rows(doc, *rows, &t, &diags);
  if (const Json* ranking = top.array("ranking")) {
    t.ranking = read_ids(doc, *ranking, "ranking", t, &diags);
  }
  if (const Json* pareto = top.array("pareto")) {
    t.pareto = read_ids(doc, *pareto, "pareto", t, &diags);
  }
  if (!top.has("best")) {
    top.error("best", "missing-key", "missing; expected a row id or null");
  } else if (!doc.root["best"].is_null()) {
    t.best = read_row_id(doc, doc.root["best"], "best", t, &diags);
  }
  read_strings(doc, top, "why", &t.why, &diags);
  if (top.has("trainer_args") && !doc.root["trainer_args"].is_null()) {
    t.trainer_args.emplace();
    read_strings(doc, top, "trainer_args", &*t.trainer_args, &diags);
  }
  if (top.has("best_config_needs") && !doc.root["best_config_needs"].is_null()) {
    t.best_config_needs.emplace();
    read_strings(doc, top, "best_config_needs", &*t.best_config_needs, &diags);
  }
  if (top.has("winner") && doc.root["winner"].is_object()) {
    if (const Json* w = top.object("winner")) {
      FieldReader wr(doc, *w, "winner", &diags);
      if (const Json* tied = wr.array("tied"))
        t.tied = read_ids(doc, *tied, "winner.tied", t, &diags);
    }
  }
  if (top.has("best_config") && !doc.root["best_config"].is_null()) {
    if (const Json* config = top.object("best_config")) t.best_config = *config;
  }
  if (top.has("best_timeline")) {
    if (const Json* tl = top.array("best_timeline")) {
      t.best_timeline = read_timeline(doc, *tl, &diags);
    }
  }
  if (top.has("best_folds")) {
    if (const Json* folds = top.array("best_folds")) t.best_folds = read_folds(doc, *folds, &diags);
  }
  if (diags.has_errors()) return first_errors(diags, doc.source);
  return t;
}

Result<SweepTable> load_sweep_table(const std::string& path) {
  ZS_ASSIGN_OR_RETURN(const json::Document doc, json::parse_file(path, kMaxResultsFileBytes));
  return parse_sweep_table(doc);
}

std::string knob_value_text(const Json& v) {
  if (v.is_null()) return "-";
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return v.dump();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e18) {
      return std::to_string(static_cast<std::int64_t>(d));
    }
    return format_double(d);
  }
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace zs::reports
