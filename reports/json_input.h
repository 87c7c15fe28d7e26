// Reading the JSON files `zerosim report` takes (results.json, `zerosim run --json` outputs):
// json::ObjectReader with required members, so that a missing key is an error at its JSON path
// like a wrong type is.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/diagnostics.h"
#include "common/json_fields.h"
#include "common/json_reader.h"
#include "common/status.h"

namespace zs::reports {

class FieldReader {
 public:
  // `doc` and `obj` must outlive the reader; errors go to `diags`.
  FieldReader(const json::Document& doc, const json::Json& obj, std::string path,
              Diagnostics* diags);

  bool valid() const { return reader_.valid(); }
  bool has(std::string_view key) const { return reader_.has(key); }
  std::string member_path(std::string_view key) const { return reader_.member_path(key); }

  // The member's value; a missing member or a wrong type is reported and gives 0 / false / "".
  std::int64_t integer(std::string_view key, json::IntRange range = {});
  double number(std::string_view key, json::NumberRange range = {});
  bool boolean(std::string_view key);
  std::string string(std::string_view key);
  // The member when it is an object / array; nullptr (reported) when missing or another type.
  const json::Json* object(std::string_view key);
  const json::Json* array(std::string_view key);

  // Optional members: nullopt when absent or null; a wrong type is still reported.
  std::optional<double> optional_number(std::string_view key, json::NumberRange range = {});
  std::optional<std::int64_t> optional_integer(std::string_view key, json::IntRange range = {});
  std::optional<std::string> optional_string(std::string_view key);

  // Reports an error about member `key` (or the object itself when `key` is empty).
  void error(std::string_view key, std::string code, std::string message);

 private:
  bool require(std::string_view key, std::string_view expected);

  json::ObjectReader reader_;
};

// kInvalidArgument holding the first `max_errors` errors of `diags` (one formatted diagnostic
// per line, common/diagnostics.h) and how many more there were. REQUIRES: diags.has_errors()
Status first_errors(const Diagnostics& diags, std::string_view source, int max_errors = 10);

}  // namespace zs::reports
