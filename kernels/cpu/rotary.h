// Rotary position embedding (RoPE) applied in place to q and k, on the CPU, as Hugging Face's
// Llama family applies it (modeling_llama.py apply_rotary_pos_emb with rotate_half; the default
// rope_type, no scaling).
//
// Conventions (shared by kernels/cpu/): raw contiguous row-major fp32 buffers; input gradients
// are OVERWRITTEN (here: transformed in place); REQUIRES: preconditions abort through ZS_CHECK;
// deterministic.
//
// Layout: q (t, heads, d) and k (t, kv_heads, d), token-major with t = batch·seq; token i sits at
// position p = i % seq. The shape is the attention's models::AttentionShape (batch, seq, heads,
// kv_heads, head_dim); its dropout and causal fields are not used here.
//
// Math: pairs are non-interleaved, (j, j + d/2) for j < d/2 (rotate_half), with
//   inv_freq_j = theta^(-2j/d), angle = p·inv_freq_j,
//   x'_j       = x_j·cos(angle) - x_{j+d/2}·sin(angle)
//   x'_{j+d/2} = x_{j+d/2}·cos(angle) + x_j·sin(angle)
// inv_freq and the angle are computed in fp32 as LlamaRotaryEmbedding does (so long positions
// round like the reference); cos/sin are fp32.
//
// theta is the config's "rope_theta" (10000 for Llama-2 and Mistral-7B-v0.1, 500000 for
// Llama-3, 1e6 for Qwen2). models::ModelSpec has no field for it yet: the caller passes it.
#pragma once

#include "models/ops.h"

namespace zs::kernels::cpu {

// Rotates q (t, heads, d) and k (t, kv_heads, d) in place by +angle.
// REQUIRES: batch, seq, heads, kv_heads >= 1; head_dim >= 2 and even; theta > 0; q, k non-null
// and not overlapping.
void rotary_forward(const models::AttentionShape& shape, double theta, float* q, float* k);

// Backward of rotary_forward: the rotation is orthogonal, so the input gradient is the output
// gradient rotated by -angle. dq (t, heads, d) and dk (t, kv_heads, d) hold d(loss)/d(rotated
// q, k) on entry and d(loss)/d(q, k) on return (overwritten in place).
// REQUIRES: as rotary_forward, with dq, dk for q, k.
void rotary_backward(const models::AttentionShape& shape, double theta, float* dq, float* dk);

}  // namespace zs::kernels::cpu
