#include "reports/sweep_results.h"

#include <filesystem>

#include "common/file.h"
#include "common/units.h"
#include "configs/ds_config_writer.h"
#include "sim/ranking.h"

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

Json row_json(const sim::SweepOutcome& out, const sim::SweepRow& r, double headroom) {
  Json values = Json::object();
  for (std::size_t a = 0; a < out.axes.size(); ++a) values[out.axes[a].key] = r.values[a];
  Json j = Json::object();
  j["id"] = r.id;
  j["values"] = std::move(values);
  j["status"] = r.ok ? "ok" : "invalid";
  if (!r.ok) j["error"] = r.error;
  j["feasible"] = sim::is_feasible(r, headroom);
  j["baseline"] = r.baseline;
  return j;
}

// A row on one line; "result" spliced in from the rendering the sweep stored.
std::string row_line(const sim::SweepOutcome& out, const sim::SweepRow& r, double headroom) {
  std::string line = dump(row_json(out, r, headroom));
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

std::string render_sweep_json(const SweepInfo& info, const sim::SweepOutcome& out,
                              const sim::SimulationResult* best) {
  Json base = {{"config", info.config_path},    {"model", info.model},
               {"cluster", info.cluster},       {"gpu", info.gpu},
               {"world_size", info.world_size}, {"gpu_memory_bytes", info.gpu_memory_bytes},
               {"seq_len", info.seq_len},       {"headroom", info.headroom}};
  Json varied = Json::array();
  for (const sim::Axis& a : out.axes) varied.push_back({{"key", a.key}, {"values", a.values}});
  std::string s = "{\n\"format\": \"zerosim.sweep/1\",\n";
  s += "\"command\": " + dump(Json(info.command)) + ",\n";
  s += "\"base\": " + dump(base) + ",\n";
  s += "\"varied\": " + dump(varied) + ",\n";
  s += "\"rows\": [\n";
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    s += row_line(out, out.rows[i], info.headroom) + (i + 1 < out.rows.size() ? ",\n" : "\n");
  }
  s += "],\n";
  s += "\"ranking\": " + dump(Json(out.ranking)) + ",\n";
  s += "\"pareto\": " + dump(Json(out.pareto)) + ",\n";
  s += "\"best\": " + (out.best ? std::to_string(*out.best) : std::string("null")) + ",\n";
  s += "\"why\": " + dump(Json(out.why)) + ",\n";
  s += "\"best_timeline\": [";
  if (best != nullptr) {
    const Json timeline = render_timeline_json(*best);
    for (std::size_t i = 0; i < timeline.size(); ++i) {
      s += (i == 0 ? "\n" : ",\n") + dump(timeline[i]);
    }
    if (!timeline.empty()) s += "\n";
  }
  s += "]\n}\n";
  return s;
}

std::string render_sweep_csv(const sim::SweepOutcome& out, double headroom) {
  std::string s = "id";
  for (const sim::Axis& a : out.axes) s += "," + csv_field(a.key);
  s += ",status,feasible,peak_bytes,capacity_bytes,oom";
  for (plan::Category c : kCategories) s += "," + std::string(plan::category_name(c)) + "_bytes";
  s += ",step_s,compute_s,exposed_comm_s,exposed_offload_s,optimizer_s,other_s,samples_per_s,"
       "tokens_per_s,tflops_per_gpu,mfu,error\n";
  for (const sim::SweepRow& r : out.rows) {
    s += std::to_string(r.id);
    for (const Json& v : r.values) s += "," + csv_field(v.is_null() ? "" : sim::value_text(v));
    s += r.ok ? ",ok" : ",invalid";
    s += sim::is_feasible(r, headroom) ? ",true" : ",false";
    if (r.ok) {
      const sim::VariantMetrics& m = r.metrics;
      s += "," + std::to_string(m.gpu_peak_bytes) + "," + std::to_string(m.gpu_capacity_bytes) +
           (m.gpu_oom ? ",true" : ",false");
      for (plan::Category c : kCategories) s += "," + std::to_string(m.gpu_breakdown[c]);
      for (double x : {m.step_s, m.compute_s, m.exposed_comm_s, m.exposed_offload_s, m.optimizer_s,
                       m.other_s, m.samples_per_s, m.tokens_per_s, m.tflops_per_gpu, m.mfu}) {
        s += "," + format_double(x);
      }
      s += ",\n";
    } else {
      s += std::string(19, ',') + "," + csv_field(r.error) + "\n";
    }
  }
  return s;
}

Result<WrittenFiles> write_sweep_outputs(const std::string& dir, const SweepInfo& info,
                                         const sim::SweepOutcome& out,
                                         const sim::SimulationResult* best) {
  ZS_CHECK(best == nullptr || out.best.has_value());
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir, ec)) {
    return Status::io_error(dir + ": error[file]: cannot create the output directory");
  }
  WrittenFiles written;
  const auto write = [&](const std::string& name, const std::string& text) -> Status {
    const std::string path = (std::filesystem::path(dir) / name).string();
    ZS_RETURN_IF_ERROR(write_file_atomic(path, text));
    written.paths.push_back(path);
    return Status::ok();
  };
  ZS_RETURN_IF_ERROR(write("results.json", render_sweep_json(info, out, best)));
  ZS_RETURN_IF_ERROR(write("results.csv", render_sweep_csv(out, info.headroom)));
  if (best != nullptr) {
    const configs::ResolvedConfig resolved = configs::resolved_ds_config(best->config);
    written.kept_autos = resolved.kept;
    ZS_RETURN_IF_ERROR(write("best_ds_config.json", dump_indented(resolved.config)));
  } else {
    std::filesystem::remove(std::filesystem::path(dir) / "best_ds_config.json", ec);
  }
  return written;
}

}  // namespace zs::reports
