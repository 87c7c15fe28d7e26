// Rotary position embedding (RoPE) applied in place to q and k on the device: the CUDA twin of
// kernels/cpu/rotary.h (Hugging Face Llama's apply_rotary_pos_emb with rotate_half).
//
// Conventions (kernels/cuda/types.h): q and k are T (float, __nv_bfloat16 or __half), rotated
// in fp32 and rounded back in place; each call enqueues on `stream`; REQUIRES: abort through
// ZS_CHECK; deterministic.
//
// Layout: q (t, heads, d), k (t, kv_heads, d), token-major, t = batch·seq, token i at position
// p = i % seq; the shape is the attention's models::AttentionShape (dropout, causal unused).
// Math: pairs (j, j + d/2) for j < d/2, inv_freq_j = theta^(-2j/d), angle = p·inv_freq_j,
//   x'_j = x_j·cos(angle) - x_{j+d/2}·sin(angle),  x'_{j+d/2} = x_{j+d/2}·cos(angle) +
//   x_j·sin(angle)
// inv_freq is computed on the host in fp32 exactly as the CPU twin does, and the angle is the
// same fp32 product, so only sincosf (within 2 ulp of the host's) differs from the twin.
#pragma once

#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// Rotates q (t, heads, d) and k (t, kv_heads, d) in place by +angle.
// REQUIRES: batch, seq, heads, kv_heads >= 1; head_dim even, 2 <= head_dim <= 256; theta > 0;
// q, k non-null and not overlapping.
template <class T>
void rotary_forward(const models::AttentionShape& shape, double theta, T* q, T* k,
                    cudaStream_t stream);

// Backward of rotary_forward: rotates dq (t, heads, d) and dk (t, kv_heads, d) in place by
// -angle (the rotation is orthogonal), turning d(loss)/d(rotated q, k) into d(loss)/d(q, k).
// REQUIRES: as rotary_forward, with dq, dk for q, k.
template <class T>
void rotary_backward(const models::AttentionShape& shape, double theta, T* dq, T* dk,
                     cudaStream_t stream);

}  // namespace zs::kernels::cuda
