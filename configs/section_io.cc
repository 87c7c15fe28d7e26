#include "configs/section_io.h"

#include "common/json_path.h"
#include "common/text.h"
#include "common/units.h"

namespace zs::configs {
namespace {

constexpr std::string_view kPydanticUnknown =
    "DeepSpeed rejects unknown keys in this section (pydantic extra=\"forbid\", "
    "deepspeed/runtime/config_utils.py)";
constexpr std::string_view kDictUnknown = "DeepSpeed does not read it";

bool is_auto_string(const Json* v) { return v != nullptr && v->is_string() && *v == "auto"; }

std::string render_default(const Json& v) {
  if (v.is_number_float()) return format_double(v.get<double>());
  return v.dump();
}

}  // namespace

std::string_view origin_name(Origin origin) {
  switch (origin) {
    case Origin::kUnset:
      return "unset";
    case Origin::kDefault:
      return "default";
    case Origin::kFile:
      return "file";
    case Origin::kAlias:
      return "file (alias)";
    case Origin::kAuto:
      return "auto (unresolved)";
    case Origin::kResolved:
      return "auto";
    case Origin::kDerived:
      return "derived";
  }
  return "?";
}

std::string describe_origin(Origin origin, const std::string& note) {
  std::string out(origin_name(origin));
  if (!note.empty()) out += ": " + note;
  return out;
}

SectionReader::SectionReader(const json::Document& doc, const Json& obj, std::string path,
                             SectionKind kind, Diagnostics* diags, std::vector<AutoLine>* autos)
    : reader_(doc, obj, std::move(path), diags), kind_(kind), autos_(autos) {}

std::string_view SectionReader::locate(std::string_view key, const FieldOpts& o) {
  std::string_view names[3] = {key, o.alias, o.deprecated_alias};
  std::string_view used;
  for (std::string_view name : names) {
    if (name.empty()) continue;
    known_.push_back(name);
    if (!reader_.has(name)) continue;
    if (!used.empty()) {
      reader_.raw(name);
      reader_.report(name, Severity::kError, "duplicate-setting",
                     "the same setting is given twice, as \"" + std::string(used) + "\" and \"" +
                         std::string(name) + "\"",
                     "keep one of them");
      continue;
    }
    used = name;
  }
  if (!used.empty() && used == o.deprecated_alias) {
    std::string msg = "\"" + std::string(used) + "\" is deprecated; DeepSpeed reads it as \"" +
                      std::string(key) + "\"";
    if (!o.deprecation_note.empty()) msg += " (" + std::string(o.deprecation_note) + ")";
    reader_.report(used, Severity::kWarning, "deprecated-key", msg,
                   "rename it to \"" + std::string(key) + "\"");
  }
  return used;
}

template <class T>
bool SectionReader::take_auto(std::string_view name, std::string_view key, Knob<T>& k,
                              const FieldOpts& o) {
  const Json* v = reader_.raw(name);
  if (!is_auto_string(v)) return false;
  const std::string path = json::child_path(reader_.path(), key);
  if (o.hf_auto) {
    k.origin = Origin::kAuto;
    k.note = "filled by the HF Trainer";
    autos_->push_back(AutoLine{path, "", "", false});
    return true;
  }
  if (kind_ == SectionKind::kPydantic) {
    const std::string shown = k.origin == Origin::kUnset ? "null" : render_default(Json(k.value));
    k.origin = Origin::kResolved;
    k.note = "DeepSpeed drops \"auto\" here and uses its default";
    autos_->push_back(AutoLine{path, shown,
                               "not filled by the HF Trainer; DeepSpeed drops \"auto\" in pydantic "
                               "sections and uses its default (config_utils.py)",
                               true});
    return true;
  }
  reader_.report(name, Severity::kError, "unresolvable-auto",
                 "\"auto\" is not allowed here: the HF Trainer does not fill this key and "
                 "DeepSpeed would read the string \"auto\" (default " +
                     (k.origin == Origin::kUnset ? std::string("none")
                                                 : render_default(Json(k.value))) +
                     ")",
                 "write a value");
  return true;
}

template <class T>
void SectionReader::mark(Knob<T>& k, std::string_view name, std::string_view key) {
  if (name == key) {
    k.origin = Origin::kFile;
    k.note.clear();
  } else {
    k.origin = Origin::kAlias;
    k.note = "written as \"" + std::string(name) + "\"";
  }
}

bool SectionReader::take_null(std::string_view name, const FieldOpts& o) {
  const Json* v = reader_.raw(name);
  return o.nullable && v != nullptr && v->is_null();
}

std::optional<bool> SectionReader::read_bool(std::string_view name) {
  const Json* v = reader_.raw(name);
  if (v->is_boolean()) return v->get<bool>();
  // Python truthiness of the JSON value, which is what a plain dict section acts on.
  const bool truthy = !(v->is_null() || (v->is_number() && v->get<double>() == 0.0) ||
                        (v->is_string() && v->get_ref<const std::string&>().empty()) ||
                        ((v->is_array() || v->is_object()) && v->empty()));
  if (kind_ == SectionKind::kPydantic) {
    // pydantic v2 lax mode: 0/1 and the strings below are coerced.
    static const char* kTrue[] = {"1", "on", "t", "true", "y", "yes"};
    static const char* kFalse[] = {"0", "off", "f", "false", "n", "no"};
    std::optional<bool> coerced;
    if (v->is_number() && (v->get<double>() == 0.0 || v->get<double>() == 1.0)) {
      coerced = v->get<double>() == 1.0;
    } else if (v->is_string()) {
      const std::string s = to_lower(v->get_ref<const std::string&>());
      for (const char* t : kTrue) coerced = s == t ? std::optional<bool>(true) : coerced;
      for (const char* f : kFalse) coerced = s == f ? std::optional<bool>(false) : coerced;
    }
    if (coerced) {
      reader_.report(name, Severity::kWarning, "bool-coerced",
                     "pydantic reads " + json::render_value(*v) + " as " +
                         (*coerced ? "true" : "false"),
                     std::string("write ") + (*coerced ? "true" : "false"));
      return coerced;
    }
    reader_.report(name, Severity::kError, "wrong-type",
                   "expected true or false, got " + std::string(json::type_name(*v)) + " " +
                       json::render_value(*v));
    return std::nullopt;
  }
  reader_.report(name, Severity::kError, "wrong-type",
                 "expected true or false, got " + std::string(json::type_name(*v)) + " " +
                     json::render_value(*v) +
                     "; DeepSpeed tests this key's truthiness, so it would mean " +
                     (truthy ? "true" : "false"));
  return std::nullopt;
}

void SectionReader::field(std::string_view key, Knob<bool>& k, FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty() || take_null(name, o) || take_auto(name, key, k, o)) return;
  if (auto v = read_bool(name)) {
    k.value = *v;
    mark(k, name, key);
  }
}

void SectionReader::field(std::string_view key, Knob<std::int64_t>& k, IntRule r, FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty() || take_null(name, o) || take_auto(name, key, k, o)) return;
  if (auto v = reader_.get_int(name, json::IntRange{r.min, r.max})) {
    k.value = *v;
    mark(k, name, key);
  }
}

void SectionReader::field(std::string_view key, Knob<double>& k, NumberRule r, FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty() || take_null(name, o) || take_auto(name, key, k, o)) return;
  if (auto v = reader_.get_number(name, json::NumberRange{r.min, r.max, r.min_exclusive, true})) {
    k.value = *v;
    mark(k, name, key);
  }
}

void SectionReader::field(std::string_view key, Knob<std::string>& k, EnumRule r, FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty() || take_null(name, o) || take_auto(name, key, k, o)) return;
  if (auto v = reader_.get_enum(name, r.allowed, r.case_insensitive)) {
    k.value = *v;
    mark(k, name, key);
  }
}

void SectionReader::field(std::string_view key, Knob<std::string>& k, StringRule, FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty() || take_null(name, o) || take_auto(name, key, k, o)) return;
  if (auto s = reader_.get_string(name)) {
    k.value = *s;
    mark(k, name, key);
  }
}

void SectionReader::field(std::string_view key, Knob<std::vector<double>>& k, ListRule r,
                          FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty() || take_auto(name, key, k, o)) return;
  const Json* arr = reader_.get_array(name);
  if (arr == nullptr) return;
  std::string allowed = r.size ? "a list of " + std::to_string(r.size) + " numbers" : "numbers";
  if (r.size != 0 && arr->size() != r.size) {
    reader_.report(name, Severity::kError, "wrong-length",
                   json::render_value(*arr) + " has " + std::to_string(arr->size()) +
                       " elements; expected " + allowed);
    return;
  }
  std::vector<double> values;
  for (std::size_t i = 0; i < arr->size(); ++i) {
    double d = 0;
    std::string warning;
    const Json& e = (*arr)[i];
    const bool bad_type = e.is_string() || json::to_number(e, &d, &warning).has_value();
    if (bad_type || d < r.min || d > r.max) {
      std::string range = "a number";
      if (r.min > -1e308) range += " >= " + format_double(r.min);
      if (r.max < 1e308) range += " and <= " + format_double(r.max);
      reader_.report(name, Severity::kError, bad_type ? "wrong-type" : "out-of-range",
                     "element " + std::to_string(i) + " is " + json::render_value(e) +
                         "; expected " + range);
      return;
    }
    values.push_back(d);
  }
  k.value = std::move(values);
  mark(k, name, key);
}

void SectionReader::field(std::string_view key, Knob<Json>& k, FieldOpts o) {
  const std::string_view name = locate(key, o);
  if (name.empty()) return;
  k.value = *reader_.raw(name);
  mark(k, name, key);
}

void SectionReader::finish(std::span<const std::string_view> extra_known) {
  std::vector<std::string_view> known = known_;
  known.insert(known.end(), extra_known.begin(), extra_known.end());
  for (std::string_view k : extra_known) reader_.raw(k);
  if (kind_ == SectionKind::kPydantic) {
    if (reader_.has("strict")) {
      // DeepSpeedConfigModel.__init__(self, strict=False, **data) takes it as an argument.
      reader_.raw("strict");
      reader_.report("strict", Severity::kWarning, "swallowed-key",
                     "DeepSpeed takes \"strict\" as an argument of the config model, not a "
                     "setting: a true value turns off the dropping of \"auto\" values here "
                     "(config_utils.py DeepSpeedConfigModel.__init__)");
    }
    reader_.report_unknown(Severity::kError, known, kPydanticUnknown);
  } else {
    reader_.report_unknown(Severity::kWarning, known, kDictUnknown);
  }
}

SectionWriter::SectionWriter(Json* out, std::string path,
                             std::map<std::string, std::string>* origins)
    : out_(out), path_(std::move(path)), origins_(origins) {
  if (!out_->is_object()) *out_ = Json::object();
}

void SectionWriter::write(std::string_view key, Origin origin, const std::string& note,
                          Json value) {
  (*out_)[std::string(key)] = std::move(value);
  (*origins_)[json::child_path(path_, key)] = describe_origin(origin, note);
}

}  // namespace zs::configs
