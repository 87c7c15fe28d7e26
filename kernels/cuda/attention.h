// Scaled dot-product self-attention with grouped-query heads, forward and backward, on the
// device: the CUDA twin of kernels/cpu/attention.h, FlashAttention-2 style (Dao 2023,
// Algorithms 1 and 2): the s x s score matrix is never materialised in global memory.
//
// Conventions (kernels/cuda/types.h): q, k, v, out, dout, dq, dk, dv are T (float,
// __nv_bfloat16 or __half), lse is fp32; scores, softmax and every accumulator are fp32; input
// gradients are OVERWRITTEN; each call enqueues on `stream`; REQUIRES: abort through ZS_CHECK.
// Deterministic: dk and dv are owned by one block per key tile (the query heads of a GQA group
// are summed inside that block), and dq by one block per query tile, so there are no atomics.
//
// Shapes and layout, as the CPU twin (b batch, s seq, a heads, g kv_heads, d head_dim,
// a % g == 0; query head j reads kv head j / (a / g)):
//   q, out, dout, dq (b, s, a, d)    k, v, dk, dv (b, s, g, d)    lse (b, a, s)
// Forward, per (batch, head, query row i), scale = 1 / sqrt(d):
//   S[i][j] = scale·q_i·k_j for j <= i (causal) or all j; lse[i] = log Σ_j exp(S[i][j]);
//   out_i = Σ_j exp(S[i][j] - lse[i])·v_j
// Backward recomputes P[i][j] = exp(S[i][j] - lse[i]) and D_i = dout_i·out_i:
//   dv_j = Σ_i P[i][j]·dout_i;  dS = P∘(dout_i·v_j - D_i);  dq_i = scale·Σ_j dS[i][j]·k_j;
//   dk_j = scale·Σ_i dS[i][j]·q_i   (summed over the query heads of j's group)
//
// Kernels: tiles of q (64 rows) against tiles of k/v in shared memory, fp32, one block per
// (query tile, head, batch) for the forward and for dq, one per (key tile, kv head, batch) for
// dk/dv; the online softmax keeps a running max and sum per row. The forward writes lse; the
// backward takes it, recomputes P tile by tile, and computes D from out and dout inside each
// kernel (no extra buffer). head_dim is padded to 32, 64 or 128 in shared memory.
// The products run on the CUDA cores in fp32 (no tensor cores): correct for every T and
// head_dim, not FlashAttention's speed.
#pragma once

#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// out (b, s, a, d) and lse (b, a, s) are overwritten; q (b, s, a, d), k, v (b, s, g, d) are read.
// REQUIRES: batch, seq, heads, kv_heads, head_dim >= 1; head_dim <= 128; heads % kv_heads == 0;
// batch, heads <= 65535; seq < 2^30; shape.dropout == 0; all pointers non-null; out and lse
// overlap no input.
template <class T>
void attention_forward(const models::AttentionShape& shape, const T* q, const T* k, const T* v,
                       T* out, float* lse, cudaStream_t stream);

// Gradients of attention_forward's out with respect to q, k and v, given dout (b, s, a, d) and
// the forward's own out and lse. dq (b, s, a, d), dk and dv (b, s, g, d) are OVERWRITTEN.
// REQUIRES: as attention_forward; out and lse are what attention_forward returned for these
// q, k, v and shape; dq, dk, dv overlap no input and each other.
template <class T>
void attention_backward(const models::AttentionShape& shape, const T* q, const T* k, const T* v,
                        const T* out, const float* lse, const T* dout, T* dq, T* dk, T* dv,
                        cudaStream_t stream);

}  // namespace zs::kernels::cuda
