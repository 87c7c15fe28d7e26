#include "reports/json_input.h"

namespace zs::reports {

FieldReader::FieldReader(const json::Document& doc, const json::Json& obj, std::string path,
                         Diagnostics* diags)
    : reader_(doc, obj, std::move(path), diags) {
  // zerosim writes every number of its outputs as a JSON number: "0.01" is not one of its files.
  reader_.set_strict("zerosim writes it as a JSON number");
}

bool FieldReader::require(std::string_view key, std::string_view expected) {
  if (!reader_.valid()) return false;
  const json::Json* v = reader_.raw(key);
  if (v != nullptr && !v->is_null()) return true;
  error(key, "missing-key",
        std::string(v == nullptr ? "missing" : "null") + "; expected " + std::string(expected));
  return false;
}

std::int64_t FieldReader::integer(std::string_view key, json::IntRange range) {
  if (!require(key, "an integer")) return 0;
  return reader_.get_int(key, range).value_or(0);
}

double FieldReader::number(std::string_view key, json::NumberRange range) {
  if (!require(key, "a number")) return 0;
  return reader_.get_number(key, range).value_or(0);
}

bool FieldReader::boolean(std::string_view key) {
  if (!require(key, "true or false")) return false;
  return reader_.get_bool(key).value_or(false);
}

std::string FieldReader::string(std::string_view key) {
  if (!require(key, "a string")) return "";
  return reader_.get_string(key).value_or("");
}

const json::Json* FieldReader::object(std::string_view key) {
  if (!require(key, "an object")) return nullptr;
  return reader_.get_object(key);
}

const json::Json* FieldReader::array(std::string_view key) {
  if (!require(key, "an array")) return nullptr;
  return reader_.get_array(key);
}

std::optional<double> FieldReader::optional_number(std::string_view key, json::NumberRange range) {
  const json::Json* v = reader_.raw(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return reader_.get_number(key, range);
}

std::optional<std::int64_t> FieldReader::optional_integer(std::string_view key,
                                                          json::IntRange range) {
  const json::Json* v = reader_.raw(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return reader_.get_int(key, range);
}

std::optional<std::string> FieldReader::optional_string(std::string_view key) {
  const json::Json* v = reader_.raw(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  return reader_.get_string(key);
}

void FieldReader::error(std::string_view key, std::string code, std::string message) {
  reader_.report(key, Severity::kError, std::move(code), std::move(message));
}

Status first_errors(const Diagnostics& diags, std::string_view source, int max_errors) {
  ZS_CHECK(diags.has_errors());
  std::string message;
  int shown = 0;
  const int total = diags.count(Severity::kError);
  for (const Diagnostic& d : diags.items()) {
    if (d.severity != Severity::kError) continue;
    if (shown == max_errors) break;
    if (!message.empty()) message += "\n";
    message += format_diagnostic(d, source);
    ++shown;
  }
  if (total > shown) {
    message += "\n" + std::string(source) + ": ... and " + std::to_string(total - shown) +
               " more error(s)";
  }
  return Status::invalid_argument(message);
}

}  // namespace zs::reports
