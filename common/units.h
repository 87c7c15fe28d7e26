// Units used across zerosim.
//
// Sizes are int64 bytes. Simulated time is integer nanoseconds. DeepSpeed's size knobs are
// element counts; they are converted to bytes once, at the config boundary, with the element
// size of the buffer they describe.
#pragma once

#include <cstdint>
#include <string>

namespace zs {

using Bytes = std::int64_t;
using TimeNs = std::int64_t;

inline constexpr Bytes kKiB = 1024;
inline constexpr Bytes kMiB = 1024 * kKiB;
inline constexpr Bytes kGiB = 1024 * kMiB;
inline constexpr Bytes kTiB = 1024 * kGiB;
// Decimal units, as vendors quote memory bandwidth and link rates.
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;

// "1.50 GiB", "312.0 MiB", "512 B". Binary units, because that is what nvidia-smi and
// torch.cuda.memory_allocated() users compare against (DeepSpeed's estimators print GiB too).
std::string format_bytes(Bytes bytes);

// "124,439,808".
std::string format_grouped(std::int64_t value);
// An uncertainty band as text and reports print it: "±19%" for 0.19 (sim/uncertainty.h).
std::string format_band(double fraction);

// "124.4M", "6.74B", "1.2K": a short count for element numbers and parameter counts.
std::string format_count(double value);

// Shortest round-trippable decimal for a double ("0.9", "1e-08", "500000000").
std::string format_double(double value);

}  // namespace zs
