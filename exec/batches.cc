#include "exec/batches.h"

#include "common/check.h"

namespace zs::exec {

Batches::Batches(const models::Workload& w, std::int64_t vocab,
                 const std::optional<std::string>& text, std::uint64_t seed, int rank, int world)
    : w_(w), vocab_(vocab), has_text_(text.has_value()), rank_(rank), world_(world), rng_(seed) {
  ZS_CHECK(world >= 1 && rank >= 0 && rank < world);
  if (!text) return;
  tokens_.reserve(text->size());
  for (const char c : *text) tokens_.push_back(static_cast<unsigned char>(c));
}

Status Batches::check() const {
  if (!has_text_) return Status::ok();
  if (static_cast<std::int64_t>(tokens_.size()) < w_.seq_len + 1) {
    return Status::invalid_argument("the training text has " + std::to_string(tokens_.size()) +
                                    " bytes; one sequence needs " + std::to_string(w_.seq_len + 1) +
                                    " (seq_len + 1)");
  }
  if (vocab_ < 256) {
    return Status::invalid_argument(
        "byte-level tokens need a vocabulary of at least 256; "
        "the model has " +
        std::to_string(vocab_));
  }
  return Status::ok();
}

void Batches::next(std::vector<std::int32_t>* inputs, std::vector<std::int32_t>* targets) {
  const std::int64_t s = w_.seq_len;
  inputs->resize(static_cast<std::size_t>(w_.tokens()));
  targets->resize(inputs->size());
  std::uniform_int_distribution<std::int32_t> pick(0, static_cast<std::int32_t>(vocab_ - 1));
  const auto n = static_cast<std::int64_t>(tokens_.size());
  // The group's next b * N samples, in order; this rank keeps every N-th from its own.
  for (std::int64_t g = 0; g < w_.micro_batch * world_; ++g) {
    const bool mine = g % world_ == rank_;
    const std::int64_t b = g / world_;
    for (std::int64_t i = 0; i <= s; ++i) {
      const std::int32_t tok =
          n == 0 ? pick(rng_) : tokens_[static_cast<std::size_t>((cursor_ + i) % n)];
      if (!mine) continue;
      if (i < s) (*inputs)[static_cast<std::size_t>(b * s + i)] = tok;
      if (i > 0) (*targets)[static_cast<std::size_t>(b * s + i - 1)] = tok;
    }
    if (n > 0) cursor_ = (cursor_ + s) % n;
  }
}

}  // namespace zs::exec
