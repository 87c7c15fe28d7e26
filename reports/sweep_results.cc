#include "reports/sweep_results.h"

#include "common/units.h"
#include "configs/ds_config_writer.h"
#include "tuning/ranking.h"

namespace zs::reports {
namespace {

using json::Json;

constexpr plan::Category kCategories[] = {
    plan::Category::kParams,      plan::Category::kGrads,   plan::Category::kOptimizerStates,
    plan::Category::kActivations, plan::Category::kBuffers, plan::Category::kOther};

std::string dump(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

std::string dump_indented(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

Json row_json(const std::vector<std::string>& keys, const tuning::SweepRow& r, double headroom) {
  Json values = Json::object();
  for (std::size_t a = 0; a < keys.size(); ++a) values[keys[a]] = r.values[a];
  Json j = Json::object();
  j["id"] = r.id;
  j["values"] = std::move(values);
  j["status"] = r.ok ? "ok" : "invalid";
  if (!r.ok) j["error"] = r.error;
  j["feasible"] = tuning::is_feasible(r, headroom);
  j["baseline"] = r.baseline;
  return j;
}

// A row on one line; "result" spliced in from the rendering the sweep stored.
std::string row_line(const std::vector<std::string>& keys, const tuning::SweepRow& r,
                     double headroom) {
  std::string line = dump(row_json(keys, r, headroom));
  if (r.ok && !r.rendered.empty()) {
    line.pop_back();  // the closing brace
    line += ",\"result\":" + r.rendered + "}";
  }
  return line;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

Json render_timeline_json(const sim::SimulationResult& r) {
  Json out = Json::array();
  const plan::Plan& p = r.built.plan;
  const std::vector<sim::OpTime>& times = r.time.timeline.ops;
  for (std::size_t i = 0; i < times.size() && i < p.ops.size(); ++i) {
    if (times[i].start_ns < 0) continue;
    out.push_back({{"stream", p.streams[static_cast<std::size_t>(p.ops[i].stream)].name},
                   {"op", i},
                   {"name", std::string(p.op_name(static_cast<int>(i)))},
                   {"start_s", 1e-9 * static_cast<double>(times[i].start_ns)},
                   {"end_s", 1e-9 * static_cast<double>(times[i].end_ns)}});
  }
  return out;
}

Json render_folds_json(const sim::SimulationResult& r) {
  Json out = Json::array();
  const plan::Plan& p = r.built.plan;
  const std::vector<sim::SegmentTime>& segs = r.time.timeline.segments;
  for (std::size_t i = 0; i < segs.size() && i < p.segments.size(); ++i) {
    const sim::SegmentTime& st = segs[i];
    if (st.repeat <= 1) continue;
    const double start = 1e-9 * static_cast<double>(st.start_ns + st.period_ns);
    const double period = 1e-9 * static_cast<double>(st.period_ns);
    out.push_back({{"segment", p.segments[i].name},
                   {"start_s", start},
                   {"end_s", start + period * (st.repeat - 1)},
                   {"period_s", period},
                   {"repeat", st.repeat - 1}});
  }
  return out;
}

namespace {

std::string csv_header(const std::vector<std::string>& keys) {
  std::string s = "id";
  for (const std::string& k : keys) s += "," + csv_field(k);
  s += ",status,feasible,peak_bytes,capacity_bytes,oom";
  for (plan::Category c : kCategories) s += "," + std::string(plan::category_name(c)) + "_bytes";
  return s +
         ",step_s,compute_s,exposed_comm_s,exposed_offload_s,optimizer_s,other_s,"
         "samples_per_s,tokens_per_s,tflops_per_gpu,mfu,error\n";
}

std::string csv_line(const tuning::SweepRow& r, double headroom) {
  std::string s = std::to_string(r.id);
  for (const Json& v : r.values) s += "," + csv_field(v.is_null() ? "" : tuning::value_text(v));
  s += r.ok ? ",ok" : ",invalid";
  s += tuning::is_feasible(r, headroom) ? ",true" : ",false";
  if (!r.ok) return s + std::string(19, ',') + "," + csv_field(r.error) + "\n";
  const tuning::VariantMetrics& m = r.metrics;
  s += "," + std::to_string(m.gpu_peak_bytes) + "," + std::to_string(m.gpu_capacity_bytes) +
       (m.gpu_oom ? ",true" : ",false");
  for (plan::Category c : kCategories) s += "," + std::to_string(m.gpu_breakdown[c]);
  for (double x : {m.step_s, m.compute_s, m.exposed_comm_s, m.exposed_offload_s, m.optimizer_s,
                   m.other_s, m.samples_per_s, m.tokens_per_s, m.tflops_per_gpu, m.mfu}) {
    s += "," + format_double(x);
  }
  return s + ",\n";
}

// What results.json holds after its rows.
std::string json_tail(const tuning::SweepOutcome& out, const configs::TunedConfig* tuned,
                      const sim::SimulationResult* best) {
  Json varied = Json::array();
  for (const tuning::Axis& a : out.axes) varied.push_back({{"key", a.key}, {"values", a.values}});
  std::string s = "\"varied\": " + dump(varied) + ",\n";
  s += "\"ranking\": " + dump(Json(out.ranking)) + ",\n";
  s += "\"pareto\": " + dump(Json(out.pareto)) + ",\n";
  s += "\"best\": " + (out.best ? std::to_string(*out.best) : std::string("null")) + ",\n";
  // How the band decided it (tuning/ranking.h Winner): the fastest row, the band, the tie.
  Json winner = nullptr;
  if (out.winner) {
    winner = {{"fastest", out.winner->fastest},
              {"band", out.winner->band},
              {"tied", out.winner->tied},
              {"changes", out.winner->changes}};
  }
  s += "\"winner\": " + dump(winner) + ",\n";
  s += "\"best_config\": " + (tuned != nullptr ? dump(tuned->config) : "null") + ",\n";
  Json args = nullptr;
  Json needs = nullptr;
  if (tuned != nullptr) {
    args = Json::array();
    for (const configs::TrainerFlag& f : tuned->flags) {
      args.push_back(f.flag);
      if (!f.value.empty()) args.push_back(f.value);
    }
    needs = Json(tuned->needs);
  }
  s += "\"trainer_args\": " + dump(args) + ",\n";
  s += "\"best_config_needs\": " + dump(needs) + ",\n";
  s += "\"why\": " + dump(Json(out.why)) + ",\n";
  s += "\"best_timeline\": [";
  if (best != nullptr) {
    const Json timeline = render_timeline_json(*best);
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      s += (i == 0 ? "\n" : ",\n") + dump(timeline[i]);
    }
    if (!timeline.empty()) s += "\n";
  }
  s += "],\n\"best_folds\": [";
  if (best != nullptr) {
    const Json folds = render_folds_json(*best);
    for (std::size_t i = 0; i < folds.size(); ++i) s += (i == 0 ? "\n" : ",\n") + dump(folds[i]);
    if (!folds.empty()) s += "\n";
  }
  return s + "]\n}\n";
}

constexpr const char* kResultsJson = "results.json";
constexpr const char* kResultsCsv = "results.csv";
constexpr const char* kBestConfig = "best_ds_config.json";

}  // namespace

SweepWriter::SweepWriter(std::unique_ptr<OutputSet> set, SweepInfo info, OutputStream json,
                         OutputStream csv, std::vector<std::string> keys)
    : set_(std::move(set)),
      info_(std::move(info)),
      json_(std::move(json)),
      csv_(std::move(csv)),
      keys_(std::move(keys)) {}

Result<std::unique_ptr<SweepWriter>> SweepWriter::begin(const std::string& dir, SweepInfo info,
                                                        const std::vector<tuning::Axis>& axes) {
  ZS_ASSIGN_OR_RETURN(std::unique_ptr<OutputSet> set,
                      OutputSet::begin(dir, {kResultsJson, kResultsCsv, kBestConfig}));
  ZS_ASSIGN_OR_RETURN(OutputStream json, set->open(kResultsJson));
  ZS_ASSIGN_OR_RETURN(OutputStream csv, set->open(kResultsCsv));
  std::vector<std::string> keys;
  for (const tuning::Axis& a : axes) keys.push_back(a.key);
  const Json base = {{"config", info.config_path},    {"model", info.model},
                     {"cluster", info.cluster},       {"gpu", info.gpu},
                     {"world_size", info.world_size}, {"gpu_memory_bytes", info.gpu_memory_bytes},
                     {"seq_len", info.seq_len},       {"headroom", info.headroom},
                     {"assumed", info.assumed}};
  const std::string head =
      "{\n\"format\": \"zerosim.sweep/1\",\n\"command\": " + dump(Json(info.command)) +
      ",\n\"base\": " + dump(base) + ",\n\"rows\": [\n";
  const std::string header = csv_header(keys);
  ZS_RETURN_IF_ERROR(json.write(head));
  ZS_RETURN_IF_ERROR(csv.write(header));
  std::unique_ptr<SweepWriter> w(new SweepWriter(std::move(set), std::move(info), std::move(json),
                                                 std::move(csv), std::move(keys)));
  w->bytes_ = static_cast<std::int64_t>(head.size() + header.size());
  return w;
}

Status SweepWriter::add_row(const tuning::SweepRow& r) {
  ZS_CHECK(r.id == rows_);
  if (interrupted()) {
    return Status::io_error(set_->dir() +
                            ": error[file]: interrupted; the files already there "
                            "are unchanged");
  }
  const std::string line = (rows_ > 0 ? ",\n" : "") + row_line(keys_, r, info_.headroom);
  const std::string csv = csv_line(r, info_.headroom);
  ZS_RETURN_IF_ERROR(json_.write(line));
  ZS_RETURN_IF_ERROR(csv_.write(csv));
  bytes_ += static_cast<std::int64_t>(line.size() + csv.size());
  ++rows_;
  return Status::ok();
}

Result<WrittenFiles> SweepWriter::finish(const tuning::SweepOutcome& out,
                                         const sim::SimulationResult* best) {
  ZS_CHECK(best == nullptr || out.best.has_value());
  ZS_CHECK(static_cast<int>(out.rows.size()) == rows_);
  WrittenFiles written;
  if (best != nullptr) {
    written.tuned = configs::tuned_ds_config(best->config, best->built.layout.checkpointing);
  }
  const configs::TunedConfig* tuned = written.tuned ? &*written.tuned : nullptr;
  ZS_RETURN_IF_ERROR(json_.write((rows_ > 0 ? "\n],\n" : "],\n") + json_tail(out, tuned, best)));
  ZS_RETURN_IF_ERROR(json_.close());
  ZS_RETURN_IF_ERROR(csv_.close());
  written.paths = {set_->path_of(kResultsJson), set_->path_of(kResultsCsv)};
  if (tuned != nullptr) {
    ZS_RETURN_IF_ERROR(set_->write(kBestConfig, dump_indented(tuned->config)));
    written.paths.push_back(set_->path_of(kBestConfig));
  }
  ZS_RETURN_IF_ERROR(set_->commit());
  return written;
}

}  // namespace zs::reports
