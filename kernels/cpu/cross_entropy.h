// Fused softmax + cross-entropy loss over fp32 logits, on the CPU (the model's last op, "loss").
//
// Conventions (shared by kernels/cpu/): raw contiguous row-major fp32 buffers; input gradients
// are OVERWRITTEN; REQUIRES: preconditions abort through ZS_CHECK; deterministic.
//
// Math, per token i with logits row z (V) and target y:
//   loss_i = logsumexp(z) - z_y   (= -log softmax(z)_y, computed with the row max subtracted)
//   loss   = (1/t)·Σ_i loss_i     (torch.nn.functional.cross_entropy, reduction="mean")
// Row reductions (max, Σexp) and the mean run in double. Every target is a real class: there is
// no ignore_index (-100 in PyTorch/HF); the executor trains on unpadded sequences.
#pragma once

#include <cstdint>

#include "models/ops.h"

namespace zs::kernels::cpu {

// Returns the mean loss over the t = shape.tokens tokens.
// logits (t, V) fp32, targets (t) int32. losses (t): per-token losses, overwritten, or nullptr
// when not wanted.
// REQUIRES: t, V >= 1; logits, targets non-null; every target in [0, V) (checked per token);
// logits finite.
double cross_entropy_forward(const models::CrossEntropyShape& shape, const float* logits,
                             const std::int32_t* targets, float* losses);

// dlogits (t, V) = (softmax(logits) - onehot(targets))·dloss/t, OVERWRITTEN. dloss is the
// gradient of the mean loss (1 for plain training; the loss scale under fp16 dynamic loss
// scaling, which therefore multiplies every logit gradient). The softmax is recomputed from the
// logits. dlogits may alias logits (in place, as llm.c reuses the logits buffer): each row is
// reduced before it is overwritten.
// REQUIRES: as cross_entropy_forward; dlogits non-null.
void cross_entropy_backward(const models::CrossEntropyShape& shape, const float* logits,
                            const std::int32_t* targets, float dloss, float* dlogits);

}  // namespace zs::kernels::cpu
