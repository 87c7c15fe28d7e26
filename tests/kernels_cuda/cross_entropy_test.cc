#include "kernels/cuda/cross_entropy.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/cross_entropy.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using models::CrossEntropyShape;
using test_util::device_copy;
using test_util::DeviceBuffer;
using test_util::download_floats;
using test_util::random_ids;
using test_util::random_normal;
using test_util::rounded;
using test_util::Storage;
using test_util::Tolerance;

// Vocabularies that are not multiples of the 512-thread row block: a small one with many rows,
// and GPT-2's with a few.
const CrossEntropyShape kShapes[] = {{.tokens = 37, .vocab = 1000}, {.tokens = 3, .vocab = 50257}};

// Tolerance of the losses (values ~5-11): the kernel's logsumexp is an fp32 online sum of V
// terms (relative error ~log2(V)·2^-24 ≈ 1e-6 of the sum, i.e. ~1e-6 absolute after the log)
// against the CPU's double: abs 1e-5, rel 1e-6. The mean adds an fp32 sum of t such values.
constexpr Tolerance kLossTolerance{1e-5, 1e-6};

template <class T>
class CudaCrossEntropy : public test_util::CudaTest {};
TYPED_TEST_SUITE(CudaCrossEntropy, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaCrossEntropy, ForwardMatchesCpu) {
  using T = TypeParam;
  for (const CrossEntropyShape& s : kShapes) {
    SCOPED_TRACE(s.vocab);
    const std::vector<float> logits = rounded<T>(random_normal(s.tokens * s.vocab, 141, 2.0f));
    const std::vector<std::int32_t> targets =
        random_ids(s.tokens, static_cast<std::int32_t>(s.vocab), 142);
    std::vector<float> want(static_cast<std::size_t>(s.tokens));
    const double want_mean =
        cpu::cross_entropy_forward(s, logits.data(), targets.data(), want.data());
    DeviceBuffer<T> d_logits = device_copy<T>(logits);
    DeviceBuffer<std::int32_t> d_targets(targets);
    DeviceBuffer<float> losses(s.tokens);
    DeviceBuffer<float> mean(1);
    cuda::cross_entropy_forward<T>(s, d_logits.get(), d_targets.get(), losses.get(), mean.get(),
                                   this->stream_);
    this->sync();
    EXPECT_TRUE(test_util::all_near(losses.download(), want, kLossTolerance));
    EXPECT_TRUE(
        test_util::all_near(mean.download(), std::vector<double>{want_mean}, kLossTolerance));
  }
}

// Tolerance of dlogits = (p - onehot)·dloss/t: p is an fp32 exp over an fp32 normaliser, within
// ~1e-6 relative of the CPU's double, and p - 1 at the target may cancel, so abs 2e-6·dloss/t
// and rel 1e-5, plus one ulp of T.
template <class T>
Tolerance gradient_tolerance(const CrossEntropyShape& s, float dloss) {
  return {2e-6 * dloss / static_cast<double>(s.tokens), 1e-5 + Storage<T>::kRel};
}

// dloss 1 (bf16 / fp32 training) and 1024 (an fp16 loss scale); in place (dlogits aliases
// logits) as llm.c reuses the logits buffer.
TYPED_TEST(CudaCrossEntropy, BackwardMatchesCpuInPlace) {
  using T = TypeParam;
  for (const CrossEntropyShape& s : kShapes) {
    for (const float dloss : {1.0f, 1024.0f}) {
      SCOPED_TRACE(std::to_string(s.vocab) + " dloss " + std::to_string(dloss));
      const std::vector<float> logits = rounded<T>(random_normal(s.tokens * s.vocab, 151, 2.0f));
      const std::vector<std::int32_t> targets =
          random_ids(s.tokens, static_cast<std::int32_t>(s.vocab), 152);
      std::vector<float> want(logits.size());
      cpu::cross_entropy_backward(s, logits.data(), targets.data(), dloss, want.data());
      DeviceBuffer<T> d_logits = device_copy<T>(logits);
      DeviceBuffer<std::int32_t> d_targets(targets);
      cuda::cross_entropy_backward<T>(s, d_logits.get(), d_targets.get(), dloss, d_logits.get(),
                                      this->stream_);
      this->sync();
      EXPECT_TRUE(
          test_util::all_near(download_floats(d_logits), want, gradient_tolerance<T>(s, dloss)));
    }
  }
}

}  // namespace
}  // namespace zs::kernels::cuda
