// A JSON reader for configuration files as people write them.
//
// Accepts strict JSON plus what DeepSpeed's own loader (hjson, deepspeed/runtime/config.py
// DeepSpeedConfig.__init__) also takes and users paste from blogs: `//` and `/* */` comments,
// trailing commas, a UTF-8 byte order mark. Every relaxation is recorded, because the HF Trainer
// and Accelerate load the same file with Python's json.load, which rejects them.
// Like DeepSpeed (config_utils.py dict_raise_error_on_duplicate_keys), a repeated key in one
// object is an error. Like Python's json, NaN, Infinity and -Infinity are accepted as numbers.
// Integer literals become int64 (or uint64 when larger); literals with a fraction or an exponent
// (1e9) become doubles, exactly as Python's json and hjson type them.
#pragma once

#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "common/file.h"
#include "common/json_path.h"
#include "common/status.h"

namespace zs::json {

using Json = nlohmann::ordered_json;

// What the reader accepted that strict JSON rejects; positions of each occurrence.
struct Relaxations {
  std::vector<SourcePos> comments;
  std::vector<SourcePos> trailing_commas;
  bool byte_order_mark = false;
};

struct Document {
  std::string source;  // the file name, for messages
  Json root;
  // JSON path (common/json_path.h) of every value -> where it is written: the key's position
  // for object members, the value's own for array elements and the root.
  std::map<std::string, SourcePos, std::less<>> positions;
  Relaxations relaxations;
  // JSON path -> the literal of every number that is not finite (NaN, Infinity, -Infinity, or
  // one too large for a double, 1e999), for messages: the value itself prints as null.
  std::map<std::string, std::string, std::less<>> nonfinite_literals;

  // Position of `path`, or of its nearest ancestor that has one, or unknown.
  SourcePos position_of(std::string_view path) const;
  // `v` (the value at `path`) as a message shows it: its JSON text, or the literal it was
  // written as when it is a number that is not finite.
  std::string value_text(std::string_view path, const Json& v) const;
};

// Parses `text`. On malformed input returns kParseError whose message is a formatted
// diagnostic ("SOURCE:LINE:COL: error[json-syntax]: PATH: ..."). Never throws or aborts.
Result<Document> parse_text(std::string_view text, std::string source_name);

// Reads and parses the file at `path`; kNotFound / kIoError when it cannot be read,
// kInvalidArgument when it is not a regular file or holds more than `max_bytes`
// (common/file.h read_file).
Result<Document> parse_file(const std::string& path, std::int64_t max_bytes = kMaxInputFileBytes);

// The value at `path` under `root`, or null when a step is missing or of the other kind.
const Json* find_path(const Json& root, const std::vector<PathStep>& path);

// The deepest nesting the reader accepts; deeper input is a parse error, not a stack overflow.
inline constexpr int kMaxDepth = 200;

}  // namespace zs::json
