// Reading a ds_config file into a DsConfig, as DeepSpeed would read it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "common/status.h"
#include "configs/ds_config.h"
#include "configs/ds_version.h"
#include "configs/section_io.h"

namespace zs::configs {

struct LoadOptions {
  DsVersion version = kLatestDsVersion;
};

struct LoadedConfig {
  json::Document document;  // the parsed file, kept for positions in later diagnostics
  DsConfig config;          // every key, defaults filled in
  Diagnostics diagnostics;  // errors, warnings (and later lints and notes)
  std::vector<AutoLine> autos;  // one line per "auto" in the file
};

// Reads the file at `path`. A file that cannot be read or is not JSON is a Status (its message
// a formatted diagnostic); anything wrong inside the JSON is an error in `diagnostics`, and the
// config then holds what could be read. Never throws or aborts.
Result<LoadedConfig> load_ds_config_file(const std::string& path, const LoadOptions& options);
Result<LoadedConfig> load_ds_config_text(std::string_view text, std::string source_name,
                                         const LoadOptions& options);
// Reads a file already parsed (a sweep edits one in memory): messages name `doc.source` and,
// for values the file writes, its positions.
LoadedConfig load_ds_config_document(json::Document doc, const LoadOptions& options);

}  // namespace zs::configs
