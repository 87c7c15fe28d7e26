// ObjectReader: typed, diagnosed access to the members of one JSON object.
//
// Every loader of user files (ds_config, cluster files, HF config.json) reads through this so
// that a wrong type, a value out of range or an unknown key produces the same kind of message:
// file, line:column, JSON path, the value found and what is allowed.
//
// Number rules follow pydantic v2's lax mode, which DeepSpeed's config models use: an integer
// field takes an integer, or a float with no fractional part (so 1e9 and 2e8 are integers);
// 0.9 is rejected. An integer written as a string ("500") is taken with a warning. Booleans are
// never numbers here (DeepSpeed's own validators reject them in fp16; elsewhere pydantic's
// coercion of true to 1 hides a mistake).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "common/json_reader.h"

namespace zs::json {

struct IntRange {
  std::int64_t min = INT64_MIN;
  std::int64_t max = INT64_MAX;
};

struct NumberRange {
  double min = -1e308;
  double max = 1e308;
  bool min_exclusive = false;
  bool finite = true;  // reject NaN and +-Infinity
};

// A short rendering of a JSON value for messages: strings quoted, long values cut.
std::string render_value(const Json& v);
// "integer", "number", "string", "boolean", "null", "object", "array".
std::string_view type_name(const Json& v);

// Converts `v` to an integer by the rules above. On failure returns a message fragment such as
// "expected an integer, got 0.9 (it has a fractional part)"; on success sets *out and may set
// *warning (for numeric strings).
std::optional<std::string> to_int(const Json& v, std::int64_t* out, std::string* warning);
std::optional<std::string> to_number(const Json& v, double* out, std::string* warning);

class ObjectReader {
 public:
  // `obj` must outlive the reader. If `obj` is not an object, reports a type error at `path`
  // and every get_* returns nullopt.
  ObjectReader(const Document& doc, const Json& obj, std::string path, Diagnostics* diags);

  // Strict typing, as a file read by a strict loader needs (an HF config.json, which
  // transformers' strict dataclasses reject with a TypeError): from now on get_int takes only a
  // JSON integer and get_number only a JSON number; a numeric string or, for get_int, 4096.0 is
  // an error whose message ends with `why`.
  void set_strict(std::string why) { strict_why_ = std::move(why); }

  const std::string& path() const { return path_; }
  bool valid() const { return obj_ != nullptr; }
  bool has(std::string_view key) const;
  // The raw member, or nullptr; marks it as read.
  const Json* raw(std::string_view key);
  // Path of member `key`.
  std::string member_path(std::string_view key) const;
  SourcePos position(std::string_view key) const;

  std::optional<bool> get_bool(std::string_view key);
  std::optional<std::int64_t> get_int(std::string_view key, IntRange range = {});
  std::optional<double> get_number(std::string_view key, NumberRange range = {});
  std::optional<std::string> get_string(std::string_view key);
  // A string from `allowed`, compared exactly, or, if `case_insensitive`, ignoring case (the
  // canonical spelling from `allowed` is returned).
  std::optional<std::string> get_enum(std::string_view key,
                                      std::span<const std::string_view> allowed,
                                      bool case_insensitive = false);
  const Json* get_object(std::string_view key);
  const Json* get_array(std::string_view key);
  // A reader of member `key`, reporting to the same diagnostics with the same strictness; marks
  // the member as read. REQUIRES: member `key` exists (a non-object is reported as a type error
  // and read as empty).
  ObjectReader nested(std::string_view key);

  // Adds an error (or other severity) about member `key`.
  void report(std::string_view key, Severity severity, std::string code, std::string message,
              std::string hint = "");

  // Reports each member that no get_*/raw call touched as unknown, with a "did you mean" drawn
  // from `known` (plus every key that was read). `why` ends the message, e.g. "DeepSpeed
  // rejects unknown keys here (pydantic extra=forbid)".
  void report_unknown(Severity severity, std::span<const std::string_view> known,
                      std::string_view why);

 private:
  const Json* member(std::string_view key);
  void type_error(std::string_view key, const Json& v, std::string_view expected);

  const Document& doc_;
  const Json* obj_ = nullptr;
  std::string path_;
  Diagnostics* diags_;
  std::set<std::string, std::less<>> read_;
  std::string strict_why_;  // non-empty: strict typing (set_strict)
};

}  // namespace zs::json
