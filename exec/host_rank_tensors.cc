#include "exec/host_rank_tensors.h"

#include <algorithm>
#include <cstring>

#include "common/check.h"

namespace zs::exec {

HostRankTensors::HostRankTensors(std::span<float> grads, std::span<float> weights,
                                 bool several_ranks, bool offload)
    : grads_(grads), weights_(weights) {
  ZS_CHECK(grads.size() == weights.size());
  if (several_ranks) reduced_.assign(grads.size(), 0.0f);
  if (offload) host_.assign(grads.size(), 0.0f);
}

std::span<float> HostRankTensors::reduced() {
  return reduced_.empty() ? grads_ : std::span<float>(reduced_);
}

void HostRankTensors::begin_step() {
  std::fill(reduced_.begin(), reduced_.end(), 0.0f);
  std::fill(host_.begin(), host_.end(), 0.0f);
}

std::byte* HostRankTensors::buffer(std::int64_t bytes) {
  ZS_CHECK(bytes >= 0);
  if (static_cast<std::int64_t>(buffer_.size()) < bytes) {
    buffer_.resize(static_cast<std::size_t>(bytes));
  }
  return buffer_.data();
}

void HostRankTensors::write_scalar(const void* value, std::int64_t bytes) {
  ZS_CHECK(bytes >= 1 && bytes <= 8);
  std::memcpy(scalar_, value, static_cast<std::size_t>(bytes));
}

void HostRankTensors::read_scalar(void* value, std::int64_t bytes) {
  ZS_CHECK(bytes >= 1 && bytes <= 8);
  std::memcpy(value, scalar_, static_cast<std::size_t>(bytes));
}

void HostRankTensors::take_grads(int /*op*/, const BufferMap& m, float scale, plan::Dtype dtype,
                                 std::byte* buffer) {
  pack(m, grads_, scale, dtype, 0, m.elems, buffer);
  for (const BufferRun& r : m.runs) std::fill_n(grads_.begin() + r.flat, r.n, 0.0f);
}

void HostRankTensors::add_reduced(int /*op*/, const BufferMap& m, const std::byte* buffer,
                                  float scale, plan::Dtype dtype, std::int64_t lo,
                                  std::int64_t hi) {
  ZS_CHECK(!reduced_.empty());
  unpack(m, buffer, scale, dtype, lo, hi, [&](std::int64_t flat, std::span<const float> v) {
    for (std::size_t i = 0; i < v.size(); ++i) reduced_[flat + i] += v[i];
  });
}

void HostRankTensors::pack_weights(int /*op*/, const BufferMap& m, plan::Dtype dtype,
                                   std::int64_t lo, std::int64_t hi, std::byte* buffer) {
  pack(m, weights_, 1.0f, dtype, lo, hi, buffer);
}

void HostRankTensors::place_weights(int /*op*/, const BufferMap& m, const std::byte* buffer,
                                    plan::Dtype dtype, std::int64_t lo, std::int64_t hi) {
  unpack(m, buffer, 1.0f, dtype, lo, hi, [&](std::int64_t flat, std::span<const float> v) {
    std::copy(v.begin(), v.end(), weights_.begin() + flat);
  });
}

void HostRankTensors::take_partition(GradSource from, std::span<const OwnedRun> owned) {
  const std::span<const float> src =
      from == GradSource::kHost ? std::span<const float>(host_) : std::span<const float>(reduced_);
  ZS_CHECK(src.size() == grads_.size());
  std::fill(grads_.begin(), grads_.end(), 0.0f);
  for (const OwnedRun& r : owned) std::copy_n(src.begin() + r.flat, r.n, grads_.begin() + r.flat);
}

void HostRankTensors::move_grads(int /*op*/, std::span<const BufferRun> runs, bool host_to_device) {
  ZS_CHECK(!host_.empty());
  const std::span<float> dev = reduced();
  const std::span<float> from = host_to_device ? std::span<float>(host_) : dev;
  const std::span<float> to = host_to_device ? dev : std::span<float>(host_);
  for (const BufferRun& r : runs) {
    for (std::int64_t k = r.flat; k < r.flat + r.n; ++k) {
      to[k] += from[k];
      from[k] = 0.0f;
    }
  }
}

std::vector<float> HostRankTensors::working_weights() {
  return std::vector<float>(weights_.begin(), weights_.end());
}

}  // namespace zs::exec
