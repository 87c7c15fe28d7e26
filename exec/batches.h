// The executor's micro-batches: byte-level tokens of a training text, or seeded random tokens.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/status.h"
#include "models/ops.h"

namespace zs::exec {

// Micro-batches of byte-level (or random) tokens: b windows of s + 1 consecutive tokens, inputs
// the first s, targets the last s; each window starts where the previous one's inputs ended,
// wrapping around the text. Without a text, every token is drawn uniformly from [0, vocab)
// by a std::mt19937_64 seeded with `seed`. Backends get the same batches for the same seed.
class Batches {
 public:
  Batches(const models::Workload& w, std::int64_t vocab, const std::optional<std::string>& text,
          std::uint64_t seed);

  // OK, or kInvalidArgument when a text is given that is shorter than one sequence plus one
  // token (an empty one included) or the vocabulary cannot hold byte-level tokens (< 256).
  Status check() const;

  // The next micro-batch: inputs and targets, each (b * s) token-major, resized as needed.
  void next(std::vector<std::int32_t>* inputs, std::vector<std::int32_t>* targets);

 private:
  models::Workload w_;
  std::int64_t vocab_;
  bool has_text_ = false;
  std::vector<std::int32_t> tokens_;
  std::int64_t cursor_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace zs::exec
