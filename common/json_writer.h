// One JSON object written as text in one pass, for output rendered thousands of times (a sweep's
// rows): no document is built. The text is byte for byte what nlohmann's compact dump
// (dump(-1, ' ', false, error_handler_t::replace)) prints for the same values added in the same
// order: integers in decimal, doubles in nlohmann's shortest form ("4.0", "1e+20"; "null" when
// not finite), strings escaped as nlohmann escapes them with invalid UTF-8 replaced by U+FFFD.
//
//   JsonWriter w;
//   w.begin_object().key("a").value(1).key("b").begin_object().key("c").value(true)
//    .end_object().end_object();
//   w.text() == R"({"a":1,"b":{"c":true}})"
//
// Objects only; a key is followed by exactly one value or object. Misuse (a value with no key,
// an unbalanced end_object) is a bug and fails a check.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zs::json {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& key(std::string_view k);
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(std::uint64_t v);
  JsonWriter& value(double v);
  JsonWriter& value(bool v);
  JsonWriter& value(std::string_view v);
  JsonWriter& value(const char* v) { return value(std::string_view(v)); }
  JsonWriter& value(const std::string& v) { return value(std::string_view(v)); }

  // The text so far; complete once every object is ended.
  const std::string& text() const { return out_; }
  bool complete() const { return open_.empty() && !out_.empty(); }

 private:
  void before_value();
  void append_string(std::string_view s);

  std::string out_;
  std::vector<char> open_;  // per open object: 1 while it has no member yet
  bool after_key_ = false;
};

}  // namespace zs::json
