// Fused softmax + cross-entropy loss on the device: the CUDA twin of
// kernels/cpu/cross_entropy.h (the model's last op, "loss").
//
// Conventions (kernels/cuda/types.h): logits and dlogits are T (float, __nv_bfloat16 or __half;
// the LM head's output dtype), the softmax and the losses are fp32; input gradients are
// OVERWRITTEN; each call enqueues on `stream`; REQUIRES: abort through ZS_CHECK; deterministic.
// A target outside [0, V) traps in the kernel (the CPU twin checks it per token).
//
// Math, per token i with logits row z (V) and target y:
//   loss_i = logsumexp(z) - z_y,  loss = (1/t)·Σ_i loss_i   (reduction="mean", no ignore_index)
// One block per row; the row's max and Σexp are one online-softmax pass in fp32 (the CPU twin
// uses double), combined across threads in a fixed order. The mean is a second, single-block
// pass over the per-token losses, so no value is returned to the host: mean_loss stays on the
// device until the caller copies it.
#pragma once

#include <cstdint>

#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// logits (t, V), targets (t) int32. losses (t): per-token losses, fp32, overwritten (needed:
// the mean is reduced from them). mean_loss (1): the mean over the t tokens, fp32, overwritten,
// or nullptr when not wanted.
// REQUIRES: t, V >= 1; t < 2^31; logits, targets, losses non-null; targets in [0, V); logits
// finite.
template <class T>
void cross_entropy_forward(const models::CrossEntropyShape& shape, const T* logits,
                           const std::int32_t* targets, float* losses, float* mean_loss,
                           cudaStream_t stream);

// dlogits (t, V) = (softmax(logits) - onehot(targets))·dloss/t, OVERWRITTEN. dloss is the
// gradient of the mean loss (1, or the fp16 loss scale). The softmax is recomputed from the
// logits; dlogits may alias logits (each row is reduced before it is overwritten).
// REQUIRES: as cross_entropy_forward (losses, mean_loss aside); dlogits non-null.
template <class T>
void cross_entropy_backward(const models::CrossEntropyShape& shape, const T* logits,
                            const std::int32_t* targets, float dloss, T* dlogits,
                            cudaStream_t stream);

}  // namespace zs::kernels::cuda
