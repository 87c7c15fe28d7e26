#include "kernels/cuda/activation.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/activation.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using test_util::device_copy;
using test_util::DeviceBuffer;
using test_util::download_floats;
using test_util::random_normal;
using test_util::rounded;
using test_util::Storage;
using test_util::Tolerance;

// Not a multiple of the 256-thread block.
constexpr std::int64_t kNumel = 10007;
const models::ElementwiseShape kShape{.numel = kNumel};

// Tolerance: elementwise fp32 math on identical inputs. The device's tanhf and expf are within
// 2 ulp of glibc's and nvcc contracts a·b + c into FMAs, so fp32 results agree to a few ulp
// (rel 1e-5). Near tanh(u) = ±1 the derivatives multiply tanh's 2-ulp error (2.4e-7 in
// 1 - tanh²) by 0.5·x·du/dx, up to ~10 where tanh(u) is not yet exactly ±1 in fp32, so
// abs 1e-5. A 16-bit output adds one ulp of T (Storage<T>::kRel).
template <class T>
Tolerance tolerance() {
  return {1e-5, 1e-5 + Storage<T>::kRel};
}

template <class T>
class CudaActivation : public test_util::CudaTest {};
TYPED_TEST_SUITE(CudaActivation, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaActivation, GeluForwardMatchesCpu) {
  using T = TypeParam;
  const std::vector<float> x = rounded<T>(random_normal(kNumel, 1, 2.0f));
  std::vector<float> want(kNumel);
  cpu::gelu_forward(kShape, x.data(), want.data());
  DeviceBuffer<T> d_x = device_copy<T>(x);
  DeviceBuffer<T> d_out(kNumel);
  cuda::gelu_forward<T>(kShape, d_x.get(), d_out.get(), this->stream_);
  // In place (out == x), as the contract allows.
  cuda::gelu_forward<T>(kShape, d_x.get(), d_x.get(), this->stream_);
  this->sync();
  EXPECT_TRUE(test_util::all_near(download_floats(d_out), want, tolerance<T>()));
  EXPECT_TRUE(test_util::all_near(download_floats(d_x), want, tolerance<T>()));
}

TYPED_TEST(CudaActivation, GeluBackwardMatchesCpu) {
  using T = TypeParam;
  const std::vector<float> x = rounded<T>(random_normal(kNumel, 2, 2.0f));
  const std::vector<float> dout = rounded<T>(random_normal(kNumel, 3));
  std::vector<float> want(kNumel);
  cpu::gelu_backward(kShape, x.data(), dout.data(), want.data());
  DeviceBuffer<T> d_x = device_copy<T>(x);
  DeviceBuffer<T> d_dout = device_copy<T>(dout);
  // dx aliases dout.
  cuda::gelu_backward<T>(kShape, d_x.get(), d_dout.get(), d_dout.get(), this->stream_);
  this->sync();
  EXPECT_TRUE(test_util::all_near(download_floats(d_dout), want, tolerance<T>()));
}

TYPED_TEST(CudaActivation, SwigluForwardMatchesCpu) {
  using T = TypeParam;
  const std::vector<float> gate = rounded<T>(random_normal(kNumel, 4, 3.0f));
  const std::vector<float> up = rounded<T>(random_normal(kNumel, 5));
  std::vector<float> want(kNumel);
  cpu::swiglu_forward(kShape, gate.data(), up.data(), want.data());
  DeviceBuffer<T> d_gate = device_copy<T>(gate);
  DeviceBuffer<T> d_up = device_copy<T>(up);
  DeviceBuffer<T> d_out(kNumel);
  cuda::swiglu_forward<T>(kShape, d_gate.get(), d_up.get(), d_out.get(), this->stream_);
  this->sync();
  EXPECT_TRUE(test_util::all_near(download_floats(d_out), want, tolerance<T>()));
}

TYPED_TEST(CudaActivation, SwigluBackwardMatchesCpu) {
  using T = TypeParam;
  const std::vector<float> gate = rounded<T>(random_normal(kNumel, 6, 3.0f));
  const std::vector<float> up = rounded<T>(random_normal(kNumel, 7));
  const std::vector<float> dout = rounded<T>(random_normal(kNumel, 8));
  std::vector<float> want_dgate(kNumel);
  std::vector<float> want_dup(kNumel);
  cpu::swiglu_backward(kShape, gate.data(), up.data(), dout.data(), want_dgate.data(),
                       want_dup.data());
  DeviceBuffer<T> d_gate = device_copy<T>(gate);
  DeviceBuffer<T> d_up = device_copy<T>(up);
  DeviceBuffer<T> d_dout = device_copy<T>(dout);
  DeviceBuffer<T> d_dup(kNumel);
  // dgate aliases dout.
  cuda::swiglu_backward<T>(kShape, d_gate.get(), d_up.get(), d_dout.get(), d_dout.get(),
                           d_dup.get(), this->stream_);
  this->sync();
  EXPECT_TRUE(test_util::all_near(download_floats(d_dout), want_dgate, tolerance<T>()));
  EXPECT_TRUE(test_util::all_near(download_floats(d_dup), want_dup, tolerance<T>()));
}

// Tolerance: one fp32 addition, the same on both sides, so fp32 is exact and a 16-bit output
// differs only by its rounding.
TYPED_TEST(CudaActivation, ResidualForwardMatchesCpu) {
  using T = TypeParam;
  const std::vector<float> a = rounded<T>(random_normal(kNumel, 9));
  const std::vector<float> b = rounded<T>(random_normal(kNumel, 10));
  std::vector<float> want(kNumel);
  cpu::residual_forward(kShape, a.data(), b.data(), want.data());
  DeviceBuffer<T> d_a = device_copy<T>(a);
  DeviceBuffer<T> d_b = device_copy<T>(b);
  // out aliases a.
  cuda::residual_forward<T>(kShape, d_a.get(), d_b.get(), d_a.get(), this->stream_);
  this->sync();
  EXPECT_TRUE(test_util::all_near(download_floats(d_a), want, {0.0, Storage<T>::kRel}));
}

}  // namespace
}  // namespace zs::kernels::cuda
