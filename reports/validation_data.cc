#include "reports/validation_data.h"

#include <algorithm>
#include <filesystem>

#include "reports/json_input.h"
#include "reports/sweep_table.h"

namespace zs::reports {

Result<ValidationPoint> parse_validation_point(const json::Document& doc) {
  Diagnostics diags;
  ValidationPoint p;
  p.file = std::filesystem::path(doc.source).filename().string();
  FieldReader top(doc, doc.root, "", &diags);
  p.backend = top.optional_string("backend").value_or("");
  p.device = top.optional_string("device").value_or("");
  if (top.valid() && doc.root.contains("model") && doc.root["model"].is_object()) {
    FieldReader m(doc, doc.root["model"], "model", &diags);
    p.model = m.optional_string("name").value_or("");
  }
  if (const json::Json* time = top.object("time")) {
    FieldReader t(doc, *time, "time", &diags);
    p.measured_step_s = t.number("step_s", {0, 1e15});  // as sweep_table.cc bounds times
  }
  if (const json::Json* memory = top.object("memory")) {
    FieldReader m(doc, *memory, "memory", &diags);
    if (const json::Json* gpu = m.object("gpu")) {
      FieldReader g(doc, *gpu, "memory.gpu", &diags);
      p.measured_peak_bytes = g.optional_integer("peak_bytes", {0, INT64_MAX});
    }
  }
  if (const json::Json* prediction = top.object("prediction")) {
    const VariantResult v = read_variant_result(doc, *prediction, "prediction", &diags);
    p.predicted_step_s = v.step_s;
    p.predicted_peak_bytes = v.peak_bytes;
  }
  if (diags.has_errors()) return first_errors(diags, doc.source);
  return p;
}

Result<std::vector<ValidationPoint>> load_validation_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<ValidationPoint> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  std::vector<std::string> files;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".json" && e.is_regular_file(ec)) files.push_back(e.path());
  }
  if (ec) return Status::io_error(dir + ": error[file]: cannot list the directory");
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    // validate's own files grow with --steps (one entry a step, up to its 1,000,000: about
    // 150 MB): read them up to the limit a sweep's results.json has.
    ZS_ASSIGN_OR_RETURN(const json::Document doc, json::parse_file(f, kMaxResultsFileBytes));
    ZS_ASSIGN_OR_RETURN(ValidationPoint p, parse_validation_point(doc));
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace zs::reports
