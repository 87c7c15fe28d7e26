#include "kernels/cpu/embedding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tests/kernels/kernel_test_util.h"

namespace zs::kernels::cpu {
namespace {

using models::EmbeddingShape;
using testing::matches_numeric_grad;
using testing::numeric_grad;
using testing::uniform_vector;

TEST(Embedding, ForwardAddsTokenAndPositionRows) {
  // V = 3, h = 2, two sequences of 2 tokens.
  const EmbeddingShape s{.tokens = 4, .hidden = 2, .vocab = 3, .learned_positions = true};
  const std::vector<std::int32_t> tokens = {2, 0, 2, 1};
  const std::vector<float> wte = {1, 2, 10, 20, 100, 200};     // (3, 2)
  const std::vector<float> wpe = {0.5f, 0.25f, 3, 4, 99, 99};  // (3, 2); row 2 is past seq_len
  std::vector<float> out(8);
  embedding_forward(s, 2, tokens.data(), wte.data(), wpe.data(), out.data());
  EXPECT_EQ(out, (std::vector<float>{100.5f, 200.25f, 4, 6, 100.5f, 200.25f, 13, 24}));

  const EmbeddingShape no_pos{.tokens = 4, .hidden = 2, .vocab = 3, .learned_positions = false};
  embedding_forward(no_pos, 2, tokens.data(), wte.data(), nullptr, out.data());
  EXPECT_EQ(out, (std::vector<float>{100, 200, 1, 2, 100, 200, 10, 20}));
}

// L = Σ out·r is linear in wte and wpe: the central difference is exact up to fp32 rounding of
// the 4·5 outputs (~1e-7 each) over the 2e-2 step. Tolerance: 1e-4 absolute + 1e-4 relative.
TEST(Embedding, BackwardMatchesFiniteDifference) {
  const EmbeddingShape s{.tokens = 6, .hidden = 5, .vocab = 4, .learned_positions = true};
  const std::int64_t seq_len = 3;
  const std::vector<std::int32_t> tokens = {3, 1, 3, 3, 0, 1};  // repeated ids; id 2 unused
  std::mt19937 rng(21);
  std::vector<float> wte = uniform_vector(rng, s.vocab * s.hidden);
  std::vector<float> wpe = uniform_vector(rng, 4 * s.hidden);  // one row more than seq_len
  const std::vector<float> r = uniform_vector(rng, s.tokens * s.hidden);
  auto loss = [&] {
    std::vector<float> out(s.tokens * s.hidden);
    embedding_forward(s, seq_len, tokens.data(), wte.data(), wpe.data(), out.data());
    double l = 0;
    for (std::size_t i = 0; i < out.size(); ++i) l += static_cast<double>(out[i]) * r[i];
    return l;
  };
  std::vector<float> dwte(wte.size(), 0.0f), dwpe(wpe.size(), 0.0f);
  embedding_backward(s, seq_len, tokens.data(), r.data(), dwte.data(), dwpe.data());
  EXPECT_TRUE(matches_numeric_grad(dwte, numeric_grad(wte, loss, 1e-2f), 1e-4, 1e-4));
  EXPECT_TRUE(matches_numeric_grad(dwpe, numeric_grad(wpe, loss, 1e-2f), 1e-4, 1e-4));
  // The unused id's row and the row past seq_len get nothing.
  for (std::int64_t j = 0; j < s.hidden; ++j) {
    EXPECT_EQ(dwte[2 * s.hidden + j], 0.0f);
    EXPECT_EQ(dwpe[3 * s.hidden + j], 0.0f);
  }
}

TEST(Embedding, BackwardAccumulates) {
  const EmbeddingShape s{.tokens = 4, .hidden = 3, .vocab = 5, .learned_positions = true};
  const std::vector<std::int32_t> tokens = {4, 4, 0, 4};
  std::mt19937 rng(22);
  const std::vector<float> dout = uniform_vector(rng, 12);
  std::vector<float> dwte(15, 0.0f), dwpe(6, 0.0f);
  embedding_backward(s, 2, tokens.data(), dout.data(), dwte.data(), dwpe.data());
  // Hand check: row 4 of dwte is the sum of tokens 0, 1 and 3's gradients, in that order.
  for (int j = 0; j < 3; ++j) EXPECT_EQ(dwte[4 * 3 + j], dout[j] + dout[3 + j] + dout[9 + j]);
  const std::vector<float> dwte1 = dwte, dwpe1 = dwpe;
  embedding_backward(s, 2, tokens.data(), dout.data(), dwte.data(), dwpe.data());
  for (std::size_t i = 0; i < dwte.size(); ++i) EXPECT_EQ(dwte[i], 2.0f * dwte1[i]);
  for (std::size_t i = 0; i < dwpe.size(); ++i) EXPECT_EQ(dwpe[i], 2.0f * dwpe1[i]);
}

TEST(EmbeddingDeathTest, TokenIdOutOfRangeAborts) {
  const EmbeddingShape s{.tokens = 2, .hidden = 1, .vocab = 3, .learned_positions = false};
  const std::vector<float> wte = {1, 2, 3};
  std::vector<float> out(2);
  const std::vector<std::int32_t> too_big = {0, 3};
  const std::vector<std::int32_t> negative = {-1, 0};
  EXPECT_DEATH(embedding_forward(s, 2, too_big.data(), wte.data(), nullptr, out.data()),
               "token id");
  EXPECT_DEATH(embedding_forward(s, 2, negative.data(), wte.data(), nullptr, out.data()),
               "token id");
}

}  // namespace
}  // namespace zs::kernels::cpu
