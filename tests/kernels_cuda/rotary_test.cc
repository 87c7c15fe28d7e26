#include "kernels/cuda/rotary.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/rotary.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using models::AttentionShape;
using test_util::device_copy;
using test_util::DeviceBuffer;
using test_util::download_floats;
using test_util::random_normal;
using test_util::rounded;
using test_util::Storage;
using test_util::Tolerance;

struct Case {
  const char* name;
  AttentionShape shape;
  double theta;
};
// GQA with a sequence that is not a multiple of anything; the largest head_dim (256); and long
// positions (up to 4095 radians at theta = 5e5), where the angle's rounding matters.
std::vector<Case> cases() {
  return {
      {"gqa", {.batch = 2, .seq = 37, .heads = 4, .kv_heads = 2, .head_dim = 64}, 1e4},
      {"head_dim_256", {.batch = 1, .seq = 33, .heads = 2, .kv_heads = 1, .head_dim = 256}, 1e4},
      {"long", {.batch = 1, .seq = 4096, .heads = 1, .kv_heads = 1, .head_dim = 128}, 5e5}};
}

// Tolerance: the angles are the same fp32 products on both sides (inv_freq is computed on the
// host as the CPU twin does); the device's sincosf is within 2 ulp of glibc's for every
// argument (2.4e-7 absolute), and nvcc contracts the rotation into FMAs. Each output is a sum of
// two products of inputs up to ~5 with cos/sin: 2·5·2.4e-7 plus an ulp of the result, so abs
// 5e-6 and rel 1e-6, plus one ulp of T.
template <class T>
Tolerance tolerance() {
  return {5e-6, 1e-6 + Storage<T>::kRel};
}

template <class T>
class CudaRotary : public test_util::CudaTest {
 protected:
  // Applies the forward (sign +1) or backward (-1) to q and k on both sides and compares.
  void expect_matches_cpu(bool forward) {
    for (const Case& c : cases()) {
      SCOPED_TRACE(c.name);
      const AttentionShape& s = c.shape;
      const std::int64_t t = s.batch * s.seq;
      std::vector<float> q = rounded<T>(random_normal(t * s.heads * s.head_dim, 131));
      std::vector<float> k = rounded<T>(random_normal(t * s.kv_heads * s.head_dim, 132));
      DeviceBuffer<T> d_q = device_copy<T>(q);
      DeviceBuffer<T> d_k = device_copy<T>(k);
      if (forward) {
        cpu::rotary_forward(s, c.theta, q.data(), k.data());
        cuda::rotary_forward<T>(s, c.theta, d_q.get(), d_k.get(), this->stream_);
      } else {
        cpu::rotary_backward(s, c.theta, q.data(), k.data());
        cuda::rotary_backward<T>(s, c.theta, d_q.get(), d_k.get(), this->stream_);
      }
      this->sync();
      EXPECT_TRUE(test_util::all_near(download_floats(d_q), q, tolerance<T>()));
      EXPECT_TRUE(test_util::all_near(download_floats(d_k), k, tolerance<T>()));
    }
  }
};
TYPED_TEST_SUITE(CudaRotary, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaRotary, ForwardMatchesCpu) { this->expect_matches_cpu(/*forward=*/true); }

TYPED_TEST(CudaRotary, BackwardMatchesCpu) { this->expect_matches_cpu(/*forward=*/false); }

}  // namespace
}  // namespace zs::kernels::cuda
