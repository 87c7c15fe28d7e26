#include "reports/report_inputs.h"

#include <filesystem>

#include "common/file.h"
#include "common/json_reader.h"

namespace zs::reports {
namespace {

// The tuned config a report shows must be the one its sweep wrote for its winner.
Status check_tuned_config(const std::string& path, const std::string& text,
                          const SweepTable& table) {
  auto doc = json::parse_text(text, path);
  if (!doc.ok()) {
    return Status::invalid_argument(doc.status().message() + "\n" + path +
                                    ": error[tuned-config]: the tuned config is not "
                                    "valid JSON; a report shows it as the config to train with, so "
                                    "re-run the sweep (or remove the file)");
  }
  const auto mismatch = [&](const std::string& why) {
    return Status::invalid_argument(path + ": error[tuned-config]: " + why +
                                    ": the directory mixes two runs, or the file was edited; "
                                    "re-run the sweep (or remove the file)");
  };
  if (!doc->root.is_object()) return mismatch("is not a JSON object");
  if (!table.best) {
    return mismatch("is there, but " + table.source + " has no winner (\"best\": null)");
  }
  if (table.best_config && *table.best_config != doc->root) {
    return mismatch("is not the config " + table.source + " records for its winner, row " +
                    std::to_string(*table.best));
  }
  return Status::ok();
}

}  // namespace

Result<ReportInputs> load_report_inputs(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  ReportInputs in;
  fs::path dir;
  if (fs::is_directory(path, ec)) {
    dir = fs::path(path);
    in.results_path = (dir / "results.json").string();
    if (!fs::exists(in.results_path, ec)) {
      return Status::not_found(in.results_path +
                               ": error[file]: no results.json in the directory; expected the "
                               "output directory of `zerosim sweep` or `zerosim tune` (--out DIR)");
    }
  } else if (fs::exists(path, ec)) {
    in.results_path = path;
    dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
  } else {
    return Status::not_found(path +
                             ": error[file]: no such directory or file; expected the "
                             "output directory of `zerosim sweep` or `zerosim tune`, or "
                             "its results.json");
  }
  ZS_ASSIGN_OR_RETURN(in.table, load_sweep_table(in.results_path));
  in.files_read.push_back(in.results_path);

  in.tuned_config_path = (dir / "best_ds_config.json").string();
  if (fs::exists(fs::symlink_status(in.tuned_config_path, ec))) {
    ZS_ASSIGN_OR_RETURN(in.tuned_config, read_file(in.tuned_config_path, "tuned config"));
    in.files_read.push_back(in.tuned_config_path);
    ZS_RETURN_IF_ERROR(check_tuned_config(in.tuned_config_path, *in.tuned_config, in.table));
  }
  in.validation_dir = (dir / "validation").string();
  ZS_ASSIGN_OR_RETURN(in.validation, load_validation_dir(in.validation_dir));
  for (const ValidationPoint& p : in.validation) {
    in.files_read.push_back((fs::path(in.validation_dir) / p.file).string());
  }
  return in;
}

}  // namespace zs::reports
