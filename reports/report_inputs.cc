#include "reports/report_inputs.h"

#include <filesystem>

#include "common/file.h"

namespace zs::reports {

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

  in.tuned_config_path = (dir / "best_ds_config.json").string();
  if (fs::is_regular_file(in.tuned_config_path, ec)) {
    ZS_ASSIGN_OR_RETURN(in.tuned_config, read_file(in.tuned_config_path, "tuned config"));
  }
  in.validation_dir = (dir / "validation").string();
  ZS_ASSIGN_OR_RETURN(in.validation, load_validation_dir(in.validation_dir));
  return in;
}

}  // namespace zs::reports
