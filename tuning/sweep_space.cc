#include "tuning/sweep_space.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>

#include "common/text.h"
#include "common/units.h"

namespace zs::tuning {
namespace {

using json::Json;

struct ShorthandInfo {
  std::string_view name;
  Shorthand kind;
};

constexpr ShorthandInfo kShorthands[] = {
    {"stage", Shorthand::kStage},
    {"micro_batch", Shorthand::kMicroBatch},
    {"grad_accum", Shorthand::kGradAccum},
    {"offload", Shorthand::kOffload},
    {"overlap_comm", Shorthand::kOverlapComm},
    {"checkpointing", Shorthand::kCheckpointing},
    {"precision", Shorthand::kPrecision},
};
constexpr std::string_view kShorthandNames[] = {
    "stage", "micro_batch", "grad_accum", "offload", "overlap_comm", "checkpointing", "precision"};
constexpr std::string_view kOffloadValues[] = {"none", "optimizer", "optimizer+param"};
constexpr std::string_view kPrecisionValues[] = {"fp32", "fp16", "bf16"};

Shorthand find_shorthand(std::string_view key) {
  for (const ShorthandInfo& s : kShorthands) {
    if (s.name == key) return s.kind;
  }
  return Shorthand::kNone;
}

// Splits on commas outside brackets, braces and quotes (a value may be a JSON array).
std::vector<std::string> split_values(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\' && i + 1 < text.size()) {
        cur += c;
        cur += text[++i];
        continue;
      }
      if (c == '"') quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  out.push_back(cur);
  return out;
}

std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return std::string(s.substr(b, e - b));
}

// A number the way a range writes it; nullopt when `s` is not one.
std::optional<double> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool integral(double v) { return std::floor(v) == v && std::fabs(v) < 9.007199254740992e15; }

Json number_json(double v, bool as_integer) {
  return as_integer && integral(v) ? Json(static_cast<std::int64_t>(v)) : Json(v);
}

// Numbers in exponent notation that are integral become integers: 5e7 and 2.5e8 are how
// people write element counts, and DeepSpeed's pydantic fields take them as integers
// (common/json_fields.h); 1.0 stays a float.
Json parse_scalar(const std::string& token) {
  Json v = Json::parse(token, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) return Json(token);  // a bareword: cpu, optimizer+param, bf16
  if (v.is_number_float()) {
    return number_json(v.get<double>(), token.find_first_of("eE") != std::string::npos);
  }
  return v;
}

// "A..B", "A..B:xF", "A..B:*F", "A..B:+S".
Result<std::vector<Json>> expand_range(const std::string& spec, const std::string& token) {
  const auto fail = [&](const std::string& why) {
    return Status::invalid_argument("--vary " + spec + ": range \"" + token + "\": " + why +
                                    "; expected A..B (step +1), A..B:+S or A..B:xF with numbers "
                                    "A <= B, S > 0, F > 1 (e.g. 1..32:x2, 1..8:+1)");
  };
  const std::size_t dots = token.find("..");
  const std::size_t colon = token.find(':', dots + 2);
  const std::string a_text = token.substr(0, dots);
  const std::string b_text =
      token.substr(dots + 2, colon == std::string::npos ? std::string::npos : colon - dots - 2);
  const auto a = parse_number(a_text);
  const auto b = parse_number(b_text);
  if (!a || !b) return fail("the bounds are not numbers");
  if (*a > *b) return fail("the start is above the end");
  bool multiply = false;
  double step = 1;
  if (colon != std::string::npos) {
    const std::string s = token.substr(colon + 1);
    if (s.size() < 2 || (s[0] != 'x' && s[0] != '*' && s[0] != '+')) {
      return fail("the step \"" + s + "\" is neither +S nor xF");
    }
    multiply = s[0] != '+';
    const auto st = parse_number(s.substr(1));
    if (!st) return fail("the step \"" + s + "\" is not a number");
    step = *st;
    if (multiply && !(step > 1)) return fail("the factor must be above 1");
    if (!multiply && !(step > 0)) return fail("the step must be positive");
    if (multiply && !(*a > 0)) return fail("a multiplicative range must start above 0");
  }
  // Integral bounds and step (1e6..2.5e8:+1e6) give integers; 0.5..2:+0.5 gives floats.
  const bool as_integer = integral(*a) && integral(*b) && integral(step);
  std::vector<Json> out;
  const double limit = *b + std::fabs(*b) * 1e-12;
  for (std::int64_t i = 0;; ++i) {
    const double v =
        multiply ? *a * std::pow(step, static_cast<double>(i)) : *a + step * static_cast<double>(i);
    if (v > limit) break;
    if (static_cast<std::int64_t>(out.size()) >= kMaxRangeValues) {
      return fail("it has more than " + std::to_string(kMaxRangeValues) + " values");
    }
    out.push_back(number_json(as_integer ? std::round(v) : v, as_integer));
  }
  return out;
}

Status shorthand_value_error(const std::string& spec, const Json& v, const std::string& allowed) {
  return Status::invalid_argument("--vary " + spec + ": " + value_text(v) +
                                  " is not allowed; expected " + allowed);
}

Status check_shorthand_value(const std::string& spec, Shorthand s, const Json& v) {
  auto is_int_in = [&](std::int64_t lo, std::int64_t hi) {
    return v.is_number_integer() && v.get<std::int64_t>() >= lo && v.get<std::int64_t>() <= hi;
  };
  auto is_one_of = [&](std::span<const std::string_view> names) {
    if (!v.is_string()) return false;
    for (std::string_view n : names) {
      if (v.get<std::string>() == n) return true;
    }
    return false;
  };
  switch (s) {
    case Shorthand::kStage:
      if (!is_int_in(0, 3)) return shorthand_value_error(spec, v, "a ZeRO stage from 0 to 3");
      break;
    case Shorthand::kMicroBatch:
    case Shorthand::kGradAccum:
      if (!is_int_in(1, 1'000'000)) {
        return shorthand_value_error(spec, v, "an integer from 1 to 1000000");
      }
      break;
    case Shorthand::kOffload:
      if (!is_one_of(kOffloadValues)) {
        return shorthand_value_error(spec, v, "none, optimizer or optimizer+param");
      }
      break;
    case Shorthand::kOverlapComm:
    case Shorthand::kCheckpointing:
      if (!v.is_boolean()) return shorthand_value_error(spec, v, "true or false");
      break;
    case Shorthand::kPrecision:
      if (!is_one_of(kPrecisionValues)) return shorthand_value_error(spec, v, "fp32, fp16 or bf16");
      break;
    case Shorthand::kNone:
      break;
  }
  return Status::ok();
}

}  // namespace

std::span<const std::string_view> shorthand_names() { return kShorthandNames; }

bool same_value(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

std::string value_text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_double(v.get<double>());
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Result<Axis> parse_vary(std::string_view spec_view) {
  const std::string spec(spec_view);
  const std::size_t eq = spec.find('=');
  if (eq == std::string::npos) {
    return Status::invalid_argument("--vary " + spec +
                                    ": expected KEY=V1,V2,... (e.g. stage=1,2,3 or "
                                    "zero_optimization.reduce_bucket_size=5e7,2e8)");
  }
  Axis axis;
  axis.key = trim(spec.substr(0, eq));
  axis.shorthand = find_shorthand(axis.key);
  if (axis.shorthand == Shorthand::kNone) {
    // Counted before parsing, so that a path of 50,000 components costs nothing.
    const auto separators = std::count_if(axis.key.begin(), axis.key.end(),
                                          [](char c) { return c == '.' || c == '['; });
    if (separators >= kMaxPathDepth || axis.key.size() > kMaxKeyLength) {
      return Status::invalid_argument(
          "--vary " + axis.key.substr(0, 80) + (axis.key.size() > 80 ? "...: " : ": ") +
          "a config path of at most " + std::to_string(kMaxPathDepth) + " components and " +
          std::to_string(kMaxKeyLength) +
          " characters is allowed (DeepSpeed's deepest keys, "
          "such as zero_optimization.offload_optimizer.device, have 3)");
    }
    auto path = json::parse_path(axis.key);
    if (!path.ok()) return path.status().with_context("--vary " + spec);
    axis.path = *path;
  }
  // Numbers are compared by value (same_value): a set of them keeps a long range linear.
  std::set<double> numbers;
  for (const std::string& raw : split_values(spec.substr(eq + 1))) {
    const std::string token = trim(raw);
    if (token.empty()) {
      return Status::invalid_argument("--vary " + spec +
                                      ": an empty value; expected values separated by commas");
    }
    std::vector<Json> values;
    if (token.find("..") != std::string::npos && token.front() != '"') {
      ZS_ASSIGN_OR_RETURN(values, expand_range(spec, token));
    } else {
      values.push_back(parse_scalar(token));
    }
    for (Json& v : values) {
      ZS_RETURN_IF_ERROR(check_shorthand_value(spec, axis.shorthand, v));
      const bool repeated =
          v.is_number() ? !numbers.insert(v.get<double>()).second
                        : std::any_of(axis.values.begin(), axis.values.end(),
                                      [&](const Json& seen) { return same_value(seen, v); });
      if (repeated) {
        return Status::invalid_argument("--vary " + spec + ": the value " + value_text(v) +
                                        " is given twice");
      }
      axis.values.push_back(std::move(v));
    }
  }
  return axis;
}

Axis make_axis(std::string_view key, std::vector<Json> values) {
  Axis axis;
  axis.key = std::string(key);
  axis.shorthand = find_shorthand(key);
  if (axis.shorthand == Shorthand::kNone) {
    auto path = json::parse_path(key);
    ZS_CHECK_MSG(path.ok(), "make_axis: a bad path");
    axis.path = *path;
  }
  axis.values = std::move(values);
  return axis;
}

std::int64_t variant_count(std::span<const Axis> axes) {
  std::int64_t n = 1;
  for (const Axis& a : axes) {
    n *= static_cast<std::int64_t>(a.values.size());
    if (n > kMaxVariants) return kMaxVariants + 1;
  }
  return n;
}

Status check_variant_count(std::span<const Axis> axes) {
  if (variant_count(axes) <= kMaxVariants) return Status::ok();
  return Status::invalid_argument("the --vary values make more than " +
                                  std::to_string(kMaxVariants) + " variants; narrow the ranges");
}

std::vector<Variant> cartesian_variants(std::span<const Axis> axes) {
  const std::int64_t n = variant_count(axes);
  ZS_CHECK(n <= kMaxVariants);
  std::vector<Variant> out;
  out.reserve(static_cast<std::size_t>(n));
  std::vector<std::size_t> index(axes.size(), 0);
  for (std::int64_t k = 0; k < n; ++k) {
    Variant v;
    v.values.reserve(axes.size());
    for (std::size_t a = 0; a < axes.size(); ++a) v.values.emplace_back(axes[a].values[index[a]]);
    out.push_back(std::move(v));
    for (std::size_t a = axes.size(); a-- > 0;) {
      if (++index[a] < axes[a].values.size()) break;
      index[a] = 0;
    }
  }
  return out;
}

}  // namespace zs::tuning
