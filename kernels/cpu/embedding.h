// Token embedding lookup (+ learned position embedding) on the CPU, as GPT-2's wte + wpe.
//
// Conventions (shared by kernels/cpu/): raw contiguous row-major fp32 buffers; parameter
// gradients ACCUMULATE (+=); REQUIRES: preconditions abort through ZS_CHECK; deterministic.
// Tokens are token-major: index i = b·seq_len + s, and token i sits at position i % seq_len.
// Dropout is not supported (the executor trains with dropout 0).
#pragma once

#include <cstdint>

#include "models/ops.h"

namespace zs::kernels::cpu {

// out (t, h) = wte[tokens[i], :] (+ wpe[i % seq_len, :] when shape.learned_positions);
// overwritten. t = shape.tokens, h = shape.hidden, V = shape.vocab.
// tokens (t) int32; wte (V, h); wpe (>= seq_len, h), read only when learned_positions.
// REQUIRES: t, h, V, seq_len >= 1; t % seq_len == 0; shape.dropout == 0; tokens, wte, out
// non-null; wpe non-null iff learned_positions; every token id in [0, V) (checked per token).
void embedding_forward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                       const std::int32_t* tokens, const float* wte, const float* wpe, float* out);

// Gradients of embedding_forward given dout (t, h):
//   dwte (V, h): row tokens[i] += dout[i]  ACCUMULATED (repeated ids add up)
//   dwpe (>= seq_len, h): row i % seq_len += dout[i]  ACCUMULATED; only when learned_positions,
//   else nullptr. Rows of dwpe at or past seq_len are untouched.
// There is no input gradient (token ids are integers).
// REQUIRES: as embedding_forward, with dout, dwte in place of wte, out and dwpe of wpe.
void embedding_backward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                        const std::int32_t* tokens, const float* dout, float* dwte, float* dwpe);

}  // namespace zs::kernels::cpu
