#include "kernels/cuda/embedding.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cpu/embedding.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using models::EmbeddingShape;
using test_util::device_copy;
using test_util::DeviceBuffer;
using test_util::download_floats;
using test_util::random_ids;
using test_util::random_normal;
using test_util::rounded;

// Tolerance: none, for every T. The forward adds the same two fp32 values as the CPU twin and
// rounds the sum to T to nearest even (the reference is rounded with kernels/cpu/dtype); the
// backward adds each id's rows to the existing gradient in token order, the CPU twin's order,
// with plain fp32 additions, so the bits agree.

constexpr std::int64_t kSeqLen = 37;
constexpr std::int64_t kBatch = 3;
constexpr std::int64_t kHidden = 300;             // not a multiple of the 256-column block
constexpr std::int64_t kPositions = kSeqLen + 3;  // rows past seq_len must stay untouched

struct Case {
  const char* name;
  EmbeddingShape shape;
  std::vector<std::int32_t> tokens;
};
// Many repeats (a vocab smaller than t), one id repeated t times, and a vocab larger than t
// (most rows untouched).
std::vector<Case> cases() {
  const std::int64_t t = kBatch * kSeqLen;
  const EmbeddingShape small{
      .tokens = t, .hidden = kHidden, .vocab = 50, .learned_positions = true};
  const EmbeddingShape large{.tokens = t, .hidden = kHidden, .vocab = 5000};
  return {{"repeats_with_positions", small, random_ids(t, 50, 101)},
          {"one_id", small, std::vector<std::int32_t>(static_cast<std::size_t>(t), 7)},
          {"large_vocab_no_positions", large, random_ids(t, 5000, 102)}};
}

template <class T>
class CudaEmbedding : public test_util::CudaTest {};
TYPED_TEST_SUITE(CudaEmbedding, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaEmbedding, ForwardMatchesCpuBitwise) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const EmbeddingShape& s = c.shape;
    const bool pos = s.learned_positions;
    const std::vector<float> wte = rounded<T>(random_normal(s.vocab * kHidden, 111));
    const std::vector<float> wpe = rounded<T>(random_normal(kPositions * kHidden, 112));
    std::vector<float> want(static_cast<std::size_t>(s.tokens * kHidden));
    cpu::embedding_forward(s, kSeqLen, c.tokens.data(), wte.data(), pos ? wpe.data() : nullptr,
                           want.data());
    DeviceBuffer<std::int32_t> tokens(c.tokens);
    DeviceBuffer<T> d_wte = device_copy<T>(wte);
    DeviceBuffer<T> d_wpe = device_copy<T>(wpe);
    DeviceBuffer<T> d_out(s.tokens * kHidden);
    cuda::embedding_forward<T>(s, kSeqLen, tokens.get(), d_wte.get(), pos ? d_wpe.get() : nullptr,
                               d_out.get(), this->stream_);
    this->sync();
    EXPECT_EQ(download_floats(d_out), rounded<T>(want));
  }
}

// Backward twice from non-zero gradients: each call adds its rows again.
TYPED_TEST(CudaEmbedding, BackwardAccumulatesInTokenOrder) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const EmbeddingShape& s = c.shape;
    const bool pos = s.learned_positions;
    const std::vector<float> dout = rounded<T>(random_normal(s.tokens * kHidden, 121));
    const std::vector<float> dwte_start = random_normal(s.vocab * kHidden, 122);
    const std::vector<float> dwpe_start = random_normal(kPositions * kHidden, 123);
    std::vector<float> want_dwte = dwte_start;
    std::vector<float> want_dwpe = dwpe_start;
    for (int call = 0; call < 2; ++call) {
      cpu::embedding_backward(s, kSeqLen, c.tokens.data(), dout.data(), want_dwte.data(),
                              pos ? want_dwpe.data() : nullptr);
    }
    DeviceBuffer<std::int32_t> tokens(c.tokens);
    DeviceBuffer<T> d_dout = device_copy<T>(dout);
    DeviceBuffer<float> dwte(dwte_start);
    DeviceBuffer<float> dwpe(dwpe_start);
    const std::int64_t workspace_bytes = cuda::embedding_backward_workspace_bytes(s);
    DeviceBuffer<std::byte> workspace(workspace_bytes);
    for (int call = 0; call < 2; ++call) {
      cuda::embedding_backward<T>(s, kSeqLen, tokens.get(), d_dout.get(), dwte.get(),
                                  pos ? dwpe.get() : nullptr, workspace.get(), workspace_bytes,
                                  this->stream_);
    }
    this->sync();
    EXPECT_EQ(dwte.download(), want_dwte);
    EXPECT_EQ(dwpe.download(), want_dwpe);
  }
}

}  // namespace
}  // namespace zs::kernels::cuda
