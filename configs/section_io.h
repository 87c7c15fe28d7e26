// Reading a config section into Knobs, and writing Knobs back out as the effective config.
//
// Each section of the DeepSpeed config is described once, by a function template
//   template <class V, class S> void visit_xxx(V& v, S& section);
// that calls v.field(key, knob, rule, opts) for each key. Run with a SectionReader it parses
// the user's JSON (type checks, ranges, enums, aliases, "auto", unknown keys); run with a
// SectionWriter it emits the effective config with every value's origin. One list of keys
// serves both directions, so the printed config cannot drift from what is parsed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_fields.h"
#include "common/json_reader.h"
#include "configs/knob.h"

namespace zs::configs {

using json::Json;

// How DeepSpeed parses a section (deepspeed/runtime/config_utils.py).
enum class SectionKind {
  // A pydantic DeepSpeedConfigModel: unknown keys are rejected (extra="forbid"), and in
  // non-strict mode a field whose value is "auto" is dropped, so the default applies.
  kPydantic,
  // A plain dict read with get_scalar_param: unknown keys are ignored, and "auto" reaches
  // DeepSpeed as the string "auto" unless the HF Trainer replaced it first.
  kDict,
};

struct IntRule {
  std::int64_t min = 0;  // DeepSpeed's integer fields are ge=0 unless stated
  std::int64_t max = INT64_MAX;
  IntUnit unit = IntUnit::kCount;
};

struct NumberRule {
  double min = -1e308;
  double max = 1e308;
  bool min_exclusive = false;
};

struct EnumRule {
  std::span<const std::string_view> allowed;
  bool case_insensitive = false;
};

// A free-form string (a path, a name).
struct StringRule {};

struct ListRule {
  std::size_t size = 0;  // 0: any length
  double min = -1e308;
  double max = 1e308;
};

struct FieldOpts {
  std::string_view alias = {};             // an accepted alternative spelling
  std::string_view deprecated_alias = {};  // accepted, with a deprecation warning
  std::string_view deprecation_note = {};  // why / what replaces it (deprecated_alias only)
  bool hf_auto = false;                    // the HF Trainer replaces "auto" here
  bool nullable = false;  // null means "not set" (an Optional field): the default applies
};

// One line of the "auto" report: what an "auto" became and by which rule.
struct AutoLine {
  std::string path;
  std::string value;  // rendered, or empty when unresolved
  std::string rule;   // e.g. "HF Trainer: hidden_size^2 = 4096^2"
  bool resolved = false;
};

class SectionReader {
 public:
  SectionReader(const json::Document& doc, const Json& obj, std::string path, SectionKind kind,
                Diagnostics* diags, std::vector<AutoLine>* autos);

  void field(std::string_view key, Knob<bool>& k, FieldOpts o = {});
  void field(std::string_view key, Knob<std::int64_t>& k, IntRule r, FieldOpts o = {});
  void field(std::string_view key, Knob<double>& k, NumberRule r, FieldOpts o = {});
  void field(std::string_view key, Knob<std::string>& k, EnumRule r, FieldOpts o = {});
  void field(std::string_view key, Knob<std::string>& k, StringRule r, FieldOpts o = {});
  void field(std::string_view key, Knob<std::vector<double>>& k, ListRule r, FieldOpts o = {});
  // Any JSON value, kept as written (blocks zerosim passes through without modelling).
  void field(std::string_view key, Knob<Json>& k, FieldOpts o = {});

  // Ends the section: unknown keys become errors (kPydantic) or warnings (kDict).
  // `extra_known` are keys handled outside field() calls (nested sections, special cases).
  void finish(std::span<const std::string_view> extra_known = {});

  json::ObjectReader& object() { return reader_; }
  const std::string& path() const { return reader_.path(); }
  SectionKind kind() const { return kind_; }
  bool valid() const { return reader_.valid(); }

 private:
  // Finds the member under `key` or its aliases; reports both-set and deprecation. Returns the
  // name used, or empty when absent.
  std::string_view locate(std::string_view key, const FieldOpts& o);
  // Handles the value "auto". Returns true when it was "auto" (knob updated, nothing to parse).
  template <class T>
  bool take_auto(std::string_view name, std::string_view key, Knob<T>& k, const FieldOpts& o);
  template <class T>
  void mark(Knob<T>& k, std::string_view name, std::string_view key);
  // True when the member is null and the field takes null as "use the default".
  bool take_null(std::string_view name, const FieldOpts& o);
  // Reads a boolean the way DeepSpeed does in this kind of section; reports non-booleans.
  std::optional<bool> read_bool(std::string_view name);

  json::ObjectReader reader_;
  SectionKind kind_;
  std::vector<AutoLine>* autos_;
  std::vector<std::string_view> known_;
};

// Writes knobs into an effective-config JSON object and records each value's origin by path.
class SectionWriter {
 public:
  SectionWriter(Json* out, std::string path, std::map<std::string, std::string>* origins);

  template <class T>
  void field(std::string_view key, const Knob<T>& k, FieldOpts = {}) {
    write(key, k.origin, k.note, to_json(k));
  }
  // Pass-through blocks are written only when the file has them.
  void field(std::string_view key, const Knob<Json>& k, FieldOpts = {}) {
    if (k.is_set()) write(key, k.origin, k.note, k.is_auto() ? Json("auto") : k.value);
  }
  template <class T, class Rule>
  void field(std::string_view key, const Knob<T>& k, const Rule&, FieldOpts = {}) {
    write(key, k.origin, k.note, to_json(k));
  }
  void finish(std::span<const std::string_view> = {}) {}
  const std::string& path() const { return path_; }

  Json* out() { return out_; }
  std::map<std::string, std::string>* origins() { return origins_; }

 private:
  template <class T>
  static Json to_json(const Knob<T>& k) {
    if (k.origin == Origin::kUnset) return nullptr;
    if (k.origin == Origin::kAuto) return "auto";
    return Json(k.value);
  }
  void write(std::string_view key, Origin origin, const std::string& note, Json value);

  Json* out_;
  std::string path_;
  std::map<std::string, std::string>* origins_;
};

// "default", "file", "alias X", ... as printed next to each effective value.
std::string describe_origin(Origin origin, const std::string& note);

}  // namespace zs::configs
