// What `zerosim report DIR|RESULTS.json` reads: the sweep's results.json, the tuned config
// (best_ds_config.json, shown verbatim) and the validation runs (validation/*.json), the last two
// from the directory results.json is in, when they are there.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "reports/sweep_table.h"
#include "reports/validation_data.h"

namespace zs::reports {

struct ReportInputs {
  std::string results_path;  // as found: DIR/results.json or the path given
  SweepTable table;
  std::string tuned_config_path;            // DIR/best_ds_config.json
  std::optional<std::string> tuned_config;  // its bytes; none when the file is absent
  std::string validation_dir;               // DIR/validation
  std::vector<ValidationPoint> validation;  // by file name
  std::vector<std::string> files_read;      // every file above, so a report never writes over one
};

// `path` names the output directory of `zerosim sweep`/`zerosim tune`, or a results.json.
// kNotFound when neither exists or the directory holds no results.json; otherwise the Status
// of the first file that cannot be read or parsed (each names the file and the JSON path).
// The tuned config must be the winner's: kInvalidArgument when best_ds_config.json is not a
// JSON object, when results.json has no winner but the file is there, or when it differs from
// the config results.json records for its winner (a directory mixing two runs, or an edit).
Result<ReportInputs> load_report_inputs(const std::string& path);

}  // namespace zs::reports
