// Reading whole input files (JSON configs, model and cluster files, profiles, training text).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace zs {

// The most bytes an input file may hold unless its reader says otherwise: a DeepSpeed config, a
// model's config.json, a cluster file or a profile is a few kilobytes; 16 MiB is far past any.
inline constexpr std::int64_t kMaxInputFileBytes = std::int64_t{16} << 20;

// "a directory", "a character device", "a FIFO (pipe)", ...: what st_mode says a path is, for
// messages.
const char* file_kind_name(mode_t mode);

// The bytes of the regular file at `path`, at most `max_bytes` of them. Each message starts with
// "PATH: error[file]:". kInvalidArgument when it is a directory or not a regular file (a device,
// a FIFO, a socket: "is a character device, not a regular file; expected a <kind>"), or when it
// holds more than `max_bytes` (the size and the limit); kNotFound when it cannot be opened;
// kIoError when reading fails.
Result<std::string> read_file(const std::string& path, std::string_view kind = "file",
                              std::int64_t max_bytes = kMaxInputFileBytes);

}  // namespace zs
