// Token embedding lookup (+ learned position embedding) on the device: the CUDA twin of
// kernels/cpu/embedding.h (GPT-2's wte + wpe), same shapes and semantics.
//
// Conventions (kernels/cuda/types.h): T is float, __nv_bfloat16 or __half for the tables and
// the activation; parameter gradients are fp32 and ACCUMULATE (+=); each call enqueues on
// `stream`; REQUIRES: abort through ZS_CHECK; deterministic. Tokens are token-major: token
// i = b·seq_len + s sits at position i % seq_len. A token id outside [0, V) traps in the kernel
// (the CPU twin checks it per token). Dropout is not supported.
//
// The backward adds repeated ids without float atomics: it sorts the token ids (a stable radix
// sort, so each id's tokens stay in index order) and adds each id's rows in that order, which is
// the order the CPU twin adds them in. The sort needs a caller-provided workspace.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// out (t, h) = wte[tokens[i], :] (+ wpe[i % seq_len, :] when shape.learned_positions), summed in
// fp32 and overwritten. tokens (t) int32 on the device; wte (V, h); wpe (>= seq_len, h) or
// nullptr. REQUIRES: t, h, V, seq_len >= 1; t % seq_len == 0; t < 2^31; shape.dropout == 0;
// tokens, wte, out non-null; wpe non-null iff learned_positions; token ids in [0, V).
template <class T>
void embedding_forward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                       const std::int32_t* tokens, const T* wte, const T* wpe, T* out,
                       cudaStream_t stream);

// Returns the bytes of device workspace embedding_backward needs for shape.tokens tokens and
// shape.vocab ids (a few int32 arrays of t elements plus the radix sort's scratch).
// REQUIRES: t, V >= 1; t < 2^31.
std::int64_t embedding_backward_workspace_bytes(const models::EmbeddingShape& shape);

// Gradients of embedding_forward given dout (t, h), fp32, ACCUMULATED:
//   dwte (V, h): row tokens[i] += dout[i], repeated ids in token order
//   dwpe (>= seq_len, h): row i % seq_len += dout[i] in token order; only when
//   learned_positions, else nullptr. Rows at or past seq_len are untouched.
// workspace: device memory of at least embedding_backward_workspace_bytes(shape) bytes,
// 256-byte aligned (as cudaMalloc returns), clobbered; it must not be in use by other work.
// REQUIRES: as embedding_forward, with dout, dwte in place of wte, out and dwpe of wpe;
// workspace non-null and workspace_bytes >= embedding_backward_workspace_bytes(shape).
template <class T>
void embedding_backward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                        const std::int32_t* tokens, const T* dout, float* dwte, float* dwpe,
                        std::byte* workspace, std::int64_t workspace_bytes, cudaStream_t stream);

}  // namespace zs::kernels::cuda
