// Reading whole files for the readers that need their bytes (JSON configs, training text).
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace zs {

// The bytes of the file at `path`. kInvalidArgument when it is a directory ("is a directory, not
// a <kind>"), kNotFound when it cannot be opened, kIoError when reading fails; each message starts
// with "PATH: error[file]:".
Result<std::string> read_file(const std::string& path, std::string_view kind = "file");

// Writes `text` to `path` through a temporary file beside it and a rename, so that a reader
// (or a crash) never sees a half-written file. kIoError naming the path when it fails; the
// temporary file is removed then.
Status write_file_atomic(const std::string& path, std::string_view text);

}  // namespace zs
