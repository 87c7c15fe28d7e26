// The CPU backend's RankTensors (exec/rank_tensors.h): every tensor in host memory, the model's
// gradients and working weights being the runner's flat arrays; the reduced and host gradients
// are this object's own (the reduced ones only over several ranks, the host ones only when the
// Plan offloads). Work is done when a call returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "exec/rank_tensors.h"

namespace zs::exec {

class HostRankTensors final : public RankTensors {
 public:
  // `grads` and `weights`: the runner's flat arrays (ModelRunner::flat_grads, flat_params), of
  // the same size, outliving this object. `several_ranks`: keep reduced gradients apart from
  // the model's. `offload`: keep host gradients.
  HostRankTensors(std::span<float> grads, std::span<float> weights, bool several_ranks,
                  bool offload);

  void begin_step() override;
  std::byte* buffer(std::int64_t bytes) override;
  std::byte* scalar() override { return scalar_; }
  void write_scalar(const void* value, std::int64_t bytes) override;
  void read_scalar(void* value, std::int64_t bytes) override;
  void take_grads(int op, const BufferMap& m, float scale, plan::Dtype dtype,
                  std::byte* buffer) override;
  void add_reduced(int op, const BufferMap& m, const std::byte* buffer, float scale,
                   plan::Dtype dtype, std::int64_t lo, std::int64_t hi) override;
  void pack_weights(int op, const BufferMap& m, plan::Dtype dtype, std::int64_t lo, std::int64_t hi,
                    std::byte* buffer) override;
  void place_weights(int op, const BufferMap& m, const std::byte* buffer, plan::Dtype dtype,
                     std::int64_t lo, std::int64_t hi) override;
  void take_partition(GradSource from, std::span<const OwnedRun> owned) override;
  void move_grads(int op, std::span<const BufferRun> runs, bool host_to_device) override;
  std::vector<float> working_weights() override;

 private:
  std::span<float> reduced();

  std::span<float> grads_, weights_;
  std::vector<float> reduced_;  // several ranks only
  std::vector<float> host_;     // offload only
  std::vector<std::byte> buffer_;
  alignas(8) std::byte scalar_[8] = {};
};

}  // namespace zs::exec
