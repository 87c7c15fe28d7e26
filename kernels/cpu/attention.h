// Scaled dot-product self-attention core with grouped-query heads, forward and backward.
//
// Shapes (models::AttentionShape): b batch, s seq, a heads, g kv_heads, d head_dim, with
// a % g == 0; query head j reads kv head j / (a / g) (g == a: multi-head, g == 1: multi-query).
// Layout, contiguous row-major fp32, token-major as the qkv projection produces it:
//   q, out, dout, dq   (b, s, a, d)
//   k, v, dk, dv       (b, s, g, d)
//   lse                (b, a, s)
// Forward, per (batch, head) and query row i, with scale = 1 / sqrt(d):
//   S[i][j] = scale * q_i . k_j for j <= i (causal) or all j (non-causal)
//   lse[i]  = log(sum_j exp(S[i][j]))        (natural log of the masked row)
//   out_i   = sum_j exp(S[i][j] - lse[i]) v_j
// lse is what FlashAttention-2 saves instead of the s x s probabilities, so a flash-style CUDA
// kernel can share this signature: the backward recomputes P[i][j] = exp(S[i][j] - lse[i]) and
// uses D_i = dout_i . out_i (FlashAttention-2, Dao 2023, Algorithm 2):
//   dv_j += sum_i P[i][j] dout_i
//   dS[i][j] = P[i][j] (dout_i . v_j - D_i)
//   dq_i = scale * sum_j dS[i][j] k_j,   dk_j += scale * sum_i dS[i][j] q_i
// With grouped-query heads, the a / g query heads of a group add into the same dk, dv rows.
//
// The kernels walk one (batch, head) at a time, one query row at a time, with O(s + d)
// scratch: the s x s score matrix is never formed. Accumulation is fp32 (Eigen products) with
// the softmax normaliser summed in double. Dropout is not supported. Deterministic: a fixed
// loop order, no threads.
#pragma once

#include "models/ops.h"

namespace zs::kernels::cpu {

// out (b, s, a, d) and lse (b, a, s) are overwritten; q (b, s, a, d), k, v (b, s, g, d) are read.
// REQUIRES: batch, seq, heads, kv_heads, head_dim >= 1; heads % kv_heads == 0;
// shape.dropout == 0; all pointers non-null; out and lse overlap no input.
void attention_forward(const models::AttentionShape& shape, const float* q, const float* k,
                       const float* v, float* out, float* lse);

// Gradients of attention_forward's out with respect to q, k and v, given dout (b, s, a, d) and
// the forward's own out and lse. dq (b, s, a, d), dk and dv (b, s, g, d) are OVERWRITTEN (they
// are activation gradients: q, k and v come from the qkv projection).
// REQUIRES: as attention_forward; out and lse are what attention_forward returned for these
// q, k, v and shape; dq, dk, dv overlap no input and each other.
void attention_backward(const models::AttentionShape& shape, const float* q, const float* k,
                        const float* v, const float* out, const float* lse, const float* dout,
                        float* dq, float* dk, float* dv);

}  // namespace zs::kernels::cpu
