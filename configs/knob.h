// Knob<T>: one setting of a DeepSpeed config, with where its value came from.
//
// zerosim prints the effective config with every value's origin, so a user can tell a value
// they wrote from DeepSpeed's default, from an "auto" the HF Trainer would fill, or from one
// DeepSpeed derives from other settings.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zs::configs {

enum class Origin {
  kUnset,     // no value and no default (train_batch_size not given, nvme_path without nvme)
  kDefault,   // DeepSpeed's code default
  kFile,      // written in the file
  kAlias,     // written in the file under a deprecated or alternative name
  kAuto,      // "auto" in the file and not resolved: value holds what DeepSpeed itself would use
  kResolved,  // "auto" in the file, resolved as the HF Trainer would
  kDerived,   // computed from other settings, as DeepSpeed does (batch triad, overlap_comm)
};

std::string_view origin_name(Origin origin);

template <class T>
struct Knob {
  T value{};
  Origin origin = Origin::kDefault;
  // Why the value is what it is when that is not obvious: the alias that set it, the rule that
  // resolved or derived it.
  std::string note;

  Knob() = default;
  Knob(T v) : value(std::move(v)) {}  // NOLINT: a default value reads naturally as `= 5`
  Knob(T v, Origin o) : value(std::move(v)), origin(o) {}

  bool is_set() const { return origin != Origin::kUnset; }
  bool is_auto() const { return origin == Origin::kAuto; }
  // True when the user's file holds this setting (by any name, or as "auto").
  bool in_file() const {
    return origin == Origin::kFile || origin == Origin::kAlias || origin == Origin::kAuto ||
           origin == Origin::kResolved;
  }
  void set(T v, Origin o, std::string why = "") {
    value = std::move(v);
    origin = o;
    note = std::move(why);
  }
};

// A knob without a default: starts kUnset.
template <class T>
Knob<T> unset_knob() {
  return Knob<T>(T{}, Origin::kUnset);
}

// How an integer knob is measured; used to explain values (elements are priced in bytes).
enum class IntUnit { kCount, kElements, kBytes, kSteps };

}  // namespace zs::configs
