#include "common/json_writer.h"

#include <charconv>
#include <cmath>

#include "common/check.h"
#include "common/json_reader.h"

namespace zs::json {

void JsonWriter::before_value() {
  // A value stands alone (the whole text) or follows its key.
  ZS_CHECK(open_.empty() ? out_.empty() : after_key_);
  after_key_ = false;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  open_.push_back(1);
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  ZS_CHECK(!open_.empty() && !after_key_);
  open_.pop_back();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view k) {
  ZS_CHECK(!open_.empty() && !after_key_);
  if (open_.back() == 0) out_ += ',';
  open_.back() = 0;
  append_string(k);
  out_ += ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  before_value();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(std::uint64_t v) {
  before_value();
  char buf[24];
  out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  before_value();
  if (!std::isfinite(v)) {
    out_ += "null";
    return *this;
  }
  // nlohmann's serializer prints a double with this function (serializer::dump_float).
  char buf[64];
  out_.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ += v ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view v) {
  before_value();
  append_string(v);
  return *this;
}

void JsonWriter::append_string(std::string_view s) {
  // Printable ASCII other than the quote and the backslash is written as it is; anything else
  // (escapes, UTF-8, invalid bytes) as nlohmann writes it.
  for (const char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
      out_ += Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
      return;
    }
  }
  out_ += '"';
  out_ += s;
  out_ += '"';
}

}  // namespace zs::json
