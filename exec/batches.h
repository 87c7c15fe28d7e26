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

// Micro-batches of byte-level (or random) tokens. The data set is a sequence of samples, each a
// window of s + 1 tokens (inputs the first s, targets the last s): of a text, sample i starts at
// token i * s, wrapping around; without a text, the samples' tokens are drawn one after another
// uniformly from [0, vocab) by a std::mt19937_64 seeded with `seed`. Backends get the same
// batches for the same seed.
//
// Rank r of a data-parallel group of N reads the samples DeepSpeed's DistributedSampler gives it
// without shuffling (torch/utils/data/distributed.py: indices[rank::num_replicas]): its j-th
// micro-batch holds samples (j*b + k)*N + r for k < b. Over a step of G micro-steps the N ranks
// read exactly the samples one rank reads in G*N micro-steps, which is how a multi-rank run is
// checked against a single-rank one.
class Batches {
 public:
  // REQUIRES: 0 <= rank < world.
  Batches(const models::Workload& w, std::int64_t vocab, const std::optional<std::string>& text,
          std::uint64_t seed, int rank = 0, int world = 1);

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
  int rank_ = 0;
  int world_ = 1;
  std::int64_t cursor_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace zs::exec
