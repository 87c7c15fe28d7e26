#include "kernels/cpu/embedding.h"

#include "common/check.h"

namespace zs::kernels::cpu {
namespace {

void check_shape(const models::EmbeddingShape& shape, std::int64_t seq_len,
                 const std::int32_t* tokens, const float* pos_table) {
  ZS_CHECK(shape.tokens >= 1 && shape.hidden >= 1 && shape.vocab >= 1 && seq_len >= 1);
  ZS_CHECK_MSG(shape.tokens % seq_len == 0, "tokens must be whole sequences (t = b * seq_len)");
  ZS_CHECK_MSG(shape.dropout == 0, "the CPU kernels do not implement embedding dropout");
  ZS_CHECK(tokens != nullptr);
  ZS_CHECK_MSG(shape.learned_positions == (pos_table != nullptr),
               "the position table must be given exactly when learned_positions");
}

}  // namespace

void embedding_forward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                       const std::int32_t* tokens, const float* wte, const float* wpe, float* out) {
  check_shape(shape, seq_len, tokens, wpe);
  ZS_CHECK(wte != nullptr && out != nullptr);
  const std::int64_t h = shape.hidden;
  for (std::int64_t i = 0; i < shape.tokens; ++i) {
    const std::int64_t id = tokens[i];
    ZS_CHECK_MSG(id >= 0 && id < shape.vocab, "token id out of [0, vocab)");
    const float* te = wte + id * h;
    float* o = out + i * h;
    if (wpe != nullptr) {
      const float* pe = wpe + (i % seq_len) * h;
      for (std::int64_t j = 0; j < h; ++j) o[j] = te[j] + pe[j];
    } else {
      for (std::int64_t j = 0; j < h; ++j) o[j] = te[j];
    }
  }
}

void embedding_backward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                        const std::int32_t* tokens, const float* dout, float* dwte, float* dwpe) {
  check_shape(shape, seq_len, tokens, dwpe);
  ZS_CHECK(dout != nullptr && dwte != nullptr);
  const std::int64_t h = shape.hidden;
  // Tokens in order: a fixed summation order per row keeps repeated ids deterministic.
  for (std::int64_t i = 0; i < shape.tokens; ++i) {
    const std::int64_t id = tokens[i];
    ZS_CHECK_MSG(id >= 0 && id < shape.vocab, "token id out of [0, vocab)");
    const float* g = dout + i * h;
    float* dte = dwte + id * h;
    for (std::int64_t j = 0; j < h; ++j) dte[j] += g[j];
    if (dwpe != nullptr) {
      float* dpe = dwpe + (i % seq_len) * h;
      for (std::int64_t j = 0; j < h; ++j) dpe[j] += g[j];
    }
  }
}

}  // namespace zs::kernels::cpu
