#include "common/json_fields.h"

#include <charconv>
#include <cmath>
#include <vector>

#include "common/check.h"
#include "common/json_path.h"
#include "common/text.h"
#include "common/units.h"

namespace zs::json {

std::string render_value(const Json& v) {
  std::string s;
  if (v.is_number_float()) {
    s = format_double(v.get<double>());
  } else {
    s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  }
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

std::string_view type_name(const Json& v) {
  switch (v.type()) {
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "integer";
    case Json::value_t::number_float:
      return "number";
    case Json::value_t::string:
      return "string";
    case Json::value_t::boolean:
      return "boolean";
    case Json::value_t::null:
      return "null";
    case Json::value_t::object:
      return "object";
    case Json::value_t::array:
      return "array";
    default:
      return "value";
  }
}

std::optional<std::string> to_int(const Json& v, std::int64_t* out, std::string* warning) {
  if (v.is_number_integer()) {
    *out = v.get<std::int64_t>();
    return std::nullopt;
  }
  if (v.is_number_unsigned()) {
    return "expected an integer, got " + render_value(v) + " (larger than 2^63-1)";
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (!std::isfinite(d)) return "expected an integer, got " + render_value(v);
    if (d != std::floor(d)) {
      return "expected an integer, got " + render_value(v) + " (it has a fractional part)";
    }
    if (d < -9.2e18 || d > 9.2e18)
      return "expected an integer, got " + render_value(v) + " (out of the 64-bit range)";
    *out = static_cast<std::int64_t>(d);
    return std::nullopt;
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    std::int64_t parsed = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), parsed);
    if (!s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size()) {
      *out = parsed;
      *warning = "the integer is written as a string " + render_value(v) +
                 "; pydantic coerces it, json.load users may not: write it without quotes";
      return std::nullopt;
    }
    return "expected an integer, got the string " + render_value(v);
  }
  return "expected an integer, got " + std::string(type_name(v)) + " " + render_value(v);
}

std::optional<std::string> to_number(const Json& v, double* out, std::string* warning) {
  if (v.is_number()) {
    *out = v.get<double>();
    return std::nullopt;
  }
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    double parsed = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), parsed);
    if (!s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size()) {
      *out = parsed;
      *warning =
          "the number is written as a string " + render_value(v) + "; write it without quotes";
      return std::nullopt;
    }
    return "expected a number, got the string " + render_value(v);
  }
  return "expected a number, got " + std::string(type_name(v)) + " " + render_value(v);
}

ObjectReader::ObjectReader(const Document& doc, const Json& obj, std::string path,
                           Diagnostics* diags)
    : doc_(doc), path_(std::move(path)), diags_(diags) {
  if (obj.is_object()) {
    obj_ = &obj;
  } else {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = "wrong-type";
    d.path = path_;
    d.pos = doc_.position_of(path_);
    d.message = "expected an object, got " + std::string(type_name(obj)) + " " + render_value(obj);
    diags_->add(std::move(d));
  }
}

bool ObjectReader::has(std::string_view key) const {
  return obj_ != nullptr && obj_->find(key) != obj_->end();
}

const Json* ObjectReader::member(std::string_view key) {
  if (obj_ == nullptr) return nullptr;
  const auto it = obj_->find(key);
  if (it == obj_->end()) return nullptr;
  read_.insert(std::string(key));
  return &*it;
}

const Json* ObjectReader::raw(std::string_view key) { return member(key); }

ObjectReader ObjectReader::nested(std::string_view key) {
  const Json* v = member(key);
  ZS_CHECK_MSG(v != nullptr, std::string(key).c_str());
  ObjectReader child(doc_, *v, member_path(key), diags_);
  child.strict_why_ = strict_why_;
  return child;
}

std::string ObjectReader::member_path(std::string_view key) const { return child_path(path_, key); }

SourcePos ObjectReader::position(std::string_view key) const {
  return doc_.position_of(member_path(key));
}

void ObjectReader::report(std::string_view key, Severity severity, std::string code,
                          std::string message, std::string hint) {
  Diagnostic d;
  d.severity = severity;
  d.code = std::move(code);
  d.path = key.empty() ? path_ : member_path(key);
  d.pos = key.empty() ? doc_.position_of(path_) : position(key);
  d.message = std::move(message);
  d.hint = std::move(hint);
  diags_->add(std::move(d));
}

void ObjectReader::type_error(std::string_view key, const Json& v, std::string_view expected) {
  report(key, Severity::kError, "wrong-type",
         "expected " + std::string(expected) + ", got " + std::string(type_name(v)) + " " +
             render_value(v));
}

std::optional<bool> ObjectReader::get_bool(std::string_view key) {
  const Json* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  type_error(key, *v, "true or false");
  return std::nullopt;
}

std::optional<std::int64_t> ObjectReader::get_int(std::string_view key, IntRange range) {
  const Json* v = member(key);
  if (v == nullptr) return std::nullopt;
  std::int64_t out = 0;
  std::string warning;
  if (!strict_why_.empty() && !v->is_number_integer() && !v->is_number_unsigned()) {
    type_error(key, *v, "an integer (" + strict_why_ + ")");
    return std::nullopt;
  }
  if (auto err = to_int(*v, &out, &warning)) {
    report(key, Severity::kError, "wrong-type", *err);
    return std::nullopt;
  }
  if (!warning.empty()) report(key, Severity::kWarning, "number-as-string", warning);
  if (out < range.min || out > range.max) {
    std::string allowed;
    if (range.min != INT64_MIN && range.max != INT64_MAX) {
      allowed =
          "an integer in [" + std::to_string(range.min) + ", " + std::to_string(range.max) + "]";
    } else if (range.min != INT64_MIN) {
      allowed = "an integer >= " + std::to_string(range.min);
    } else {
      allowed = "an integer <= " + std::to_string(range.max);
    }
    report(key, Severity::kError, "out-of-range",
           render_value(*v) + " is not allowed; expected " + allowed);
    return std::nullopt;
  }
  return out;
}

std::optional<double> ObjectReader::get_number(std::string_view key, NumberRange range) {
  const Json* v = member(key);
  if (v == nullptr) return std::nullopt;
  double out = 0;
  std::string warning;
  if (!strict_why_.empty() && !v->is_number()) {
    type_error(key, *v, "a number (" + strict_why_ + ")");
    return std::nullopt;
  }
  if (auto err = to_number(*v, &out, &warning)) {
    report(key, Severity::kError, "wrong-type", *err);
    return std::nullopt;
  }
  if (!warning.empty()) report(key, Severity::kWarning, "number-as-string", warning);
  if (range.finite && !std::isfinite(out)) {
    report(key, Severity::kError, "out-of-range",
           render_value(*v) + " is not allowed; expected a finite number");
    return std::nullopt;
  }
  const bool below = range.min_exclusive ? out <= range.min : out < range.min;
  if (below || out > range.max) {
    std::string allowed = "a number ";
    if (range.min > -1e308)
      allowed += (range.min_exclusive ? "> " : ">= ") + format_double(range.min);
    if (range.min > -1e308 && range.max < 1e308) allowed += " and ";
    if (range.max < 1e308) allowed += "<= " + format_double(range.max);
    report(key, Severity::kError, "out-of-range",
           render_value(*v) + " is not allowed; expected " + allowed);
    return std::nullopt;
  }
  return out;
}

std::optional<std::string> ObjectReader::get_string(std::string_view key) {
  const Json* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  type_error(key, *v, "a string");
  return std::nullopt;
}

std::optional<std::string> ObjectReader::get_enum(std::string_view key,
                                                  std::span<const std::string_view> allowed,
                                                  bool case_insensitive) {
  const Json* v = member(key);
  if (v == nullptr) return std::nullopt;
  std::vector<std::string> quoted;
  for (auto a : allowed) quoted.push_back("\"" + std::string(a) + "\"");
  const std::string allowed_text = join(quoted, ", ");
  if (!v->is_string()) {
    type_error(key, *v, "one of " + allowed_text);
    return std::nullopt;
  }
  const auto& s = v->get_ref<const std::string&>();
  for (auto a : allowed) {
    if (s == a || (case_insensitive && to_lower(s) == to_lower(a))) return std::string(a);
  }
  std::string hint;
  if (auto m = closest_match(s, allowed)) hint = "did you mean \"" + *m + "\"?";
  report(key, Severity::kError, "bad-enum",
         render_value(*v) + " is not allowed; expected one of " + allowed_text, hint);
  return std::nullopt;
}

const Json* ObjectReader::get_object(std::string_view key) {
  const Json* v = member(key);
  if (v == nullptr) return nullptr;
  if (v->is_object()) return v;
  type_error(key, *v, "an object");
  return nullptr;
}

const Json* ObjectReader::get_array(std::string_view key) {
  const Json* v = member(key);
  if (v == nullptr) return nullptr;
  if (v->is_array()) return v;
  type_error(key, *v, "an array");
  return nullptr;
}

void ObjectReader::report_unknown(Severity severity, std::span<const std::string_view> known,
                                  std::string_view why) {
  if (obj_ == nullptr) return;
  std::vector<std::string> candidates;  // made for the first unknown key: most objects have none
  for (auto it = obj_->begin(); it != obj_->end(); ++it) {
    if (read_.count(it.key()) > 0) continue;
    if (candidates.empty()) {
      candidates.assign(known.begin(), known.end());
      candidates.insert(candidates.end(), read_.begin(), read_.end());
    }
    std::string hint;
    if (auto m = closest_match(it.key(), candidates)) hint = "did you mean \"" + *m + "\"?";
    std::string message = "unknown key \"" + it.key() + "\"";
    if (!why.empty()) message += "; " + std::string(why);
    report(it.key(), severity, "unknown-key", std::move(message), std::move(hint));
  }
}

}  // namespace zs::json
