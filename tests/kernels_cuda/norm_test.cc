#include "kernels/cuda/norm.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/norm.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using models::NormKind;
using models::NormShape;
using test_util::device_copy;
using test_util::DeviceBuffer;
using test_util::download_floats;
using test_util::random_normal;
using test_util::rounded;
using test_util::Storage;
using test_util::Tolerance;

constexpr double kEps = 1e-5;

struct Case {
  const char* name;
  NormShape shape;
  bool bias;
};
// Columns not a multiple of 32 (or of the 256-thread row block), and one row wider than 16
// threads' worth per thread.
std::vector<Case> cases() {
  return {{"layer_norm_bias", {.rows = 37, .cols = 300, .kind = NormKind::kLayerNorm}, true},
          {"layer_norm_no_bias", {.rows = 37, .cols = 300, .kind = NormKind::kLayerNorm}, false},
          {"rms_norm", {.rows = 37, .cols = 300, .kind = NormKind::kRmsNorm}, false},
          {"layer_norm_wide", {.rows = 5, .cols = 4099, .kind = NormKind::kLayerNorm}, true}};
}

// Inputs with a non-zero mean (so LayerNorm's centring matters) and weights near 1.
struct Inputs {
  std::vector<float> x, weight, bias, dout;
};
template <class T>
Inputs random_inputs(const Case& c, std::uint32_t seed) {
  const std::int64_t n = c.shape.rows * c.shape.cols;
  Inputs in{rounded<T>(random_normal(n, seed, 1.5f, 0.5f)),
            rounded<T>(random_normal(c.shape.cols, seed + 1, 0.1f, 1.0f)),
            {},
            rounded<T>(random_normal(n, seed + 3))};
  if (c.bias) in.bias = rounded<T>(random_normal(c.shape.cols, seed + 2, 0.1f));
  return in;
}

// Tolerances. Row statistics: fp32 block sums of c terms vs. the CPU's double, relative error
// ~log2(c)·2^-24, so abs 1e-6 for the mean (values ~0.5) and rel 1e-5 for rstd. Outputs and dx:
// a few fp32 roundings of O(1) values (abs 1e-5, rel 1e-5) plus one ulp of T. Parameter
// gradients are fp32 sums over the rows of O(1) products (rows·2^-24 ~ 1e-5 relative at most):
// abs 1e-4, rel 1e-5.
template <class T>
Tolerance activation_tolerance() {
  return {1e-5, 1e-5 + Storage<T>::kRel};
}
constexpr Tolerance kMeanTolerance{1e-6, 1e-6};
constexpr Tolerance kRstdTolerance{0.0, 1e-5};
constexpr Tolerance kParamGradTolerance{1e-4, 1e-5};

template <class T>
class CudaNorm : public test_util::CudaTest {};
TYPED_TEST_SUITE(CudaNorm, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaNorm, ForwardMatchesCpu) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const NormShape& s = c.shape;
    const bool layer_norm = s.kind == NormKind::kLayerNorm;
    const Inputs in = random_inputs<T>(c, 41);
    std::vector<float> want(in.x.size());
    std::vector<float> want_mean(static_cast<std::size_t>(s.rows));
    std::vector<float> want_rstd(static_cast<std::size_t>(s.rows));
    cpu::norm_forward(s, kEps, in.x.data(), in.weight.data(), c.bias ? in.bias.data() : nullptr,
                      want.data(), layer_norm ? want_mean.data() : nullptr, want_rstd.data());

    DeviceBuffer<T> x = device_copy<T>(in.x);
    DeviceBuffer<T> weight = device_copy<T>(in.weight);
    DeviceBuffer<T> bias = device_copy<T>(in.bias);
    DeviceBuffer<float> mean(s.rows);
    DeviceBuffer<float> rstd(s.rows);
    // In place: out aliases x.
    cuda::norm_forward<T>(s, kEps, x.get(), weight.get(), c.bias ? bias.get() : nullptr, x.get(),
                          layer_norm ? mean.get() : nullptr, rstd.get(), this->stream_);
    this->sync();
    EXPECT_TRUE(test_util::all_near(download_floats(x), want, activation_tolerance<T>()));
    if (layer_norm) {
      EXPECT_TRUE(test_util::all_near(mean.download(), want_mean, kMeanTolerance));
    }
    EXPECT_TRUE(test_util::all_near(rstd.download(), want_rstd, kRstdTolerance));
  }
}

// Backward three times from non-zero parameter gradients, the third in place (dx aliases dout):
// dx is overwritten (the same every time), dweight and dbias accumulate (start + 3·gradient).
TYPED_TEST(CudaNorm, BackwardMatchesCpuAndAccumulates) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const NormShape& s = c.shape;
    const bool layer_norm = s.kind == NormKind::kLayerNorm;
    const Inputs in = random_inputs<T>(c, 51);
    // The saved statistics come from the CPU forward and are given to both backward passes.
    std::vector<float> y(in.x.size());
    std::vector<float> mean(static_cast<std::size_t>(s.rows));
    std::vector<float> rstd(static_cast<std::size_t>(s.rows));
    cpu::norm_forward(s, kEps, in.x.data(), in.weight.data(), c.bias ? in.bias.data() : nullptr,
                      y.data(), layer_norm ? mean.data() : nullptr, rstd.data());
    const std::vector<float> dweight_start = random_normal(s.cols, 52);
    const std::vector<float> dbias_start = random_normal(s.cols, 53);
    std::vector<float> want_dx(in.x.size());
    std::vector<float> want_dweight = dweight_start;
    std::vector<float> want_dbias = dbias_start;
    for (int call = 0; call < 3; ++call) {
      cpu::norm_backward(s, in.dout.data(), in.x.data(), in.weight.data(),
                         layer_norm ? mean.data() : nullptr, rstd.data(), want_dx.data(),
                         want_dweight.data(), c.bias ? want_dbias.data() : nullptr);
    }

    DeviceBuffer<T> x = device_copy<T>(in.x);
    DeviceBuffer<T> weight = device_copy<T>(in.weight);
    DeviceBuffer<float> d_mean(mean);
    DeviceBuffer<float> d_rstd(rstd);
    DeviceBuffer<T> dout = device_copy<T>(in.dout);
    DeviceBuffer<T> dx(static_cast<std::int64_t>(in.x.size()));
    DeviceBuffer<float> dweight(dweight_start);
    DeviceBuffer<float> dbias(dbias_start);
    for (int call = 0; call < 2; ++call) {
      cuda::norm_backward<T>(s, dout.get(), x.get(), weight.get(),
                             layer_norm ? d_mean.get() : nullptr, d_rstd.get(), dx.get(),
                             dweight.get(), c.bias ? dbias.get() : nullptr, this->stream_);
    }
    cuda::norm_backward<T>(s, dout.get(), x.get(), weight.get(),
                           layer_norm ? d_mean.get() : nullptr, d_rstd.get(), dout.get(),
                           dweight.get(), c.bias ? dbias.get() : nullptr, this->stream_);
    this->sync();
    EXPECT_TRUE(test_util::all_near(download_floats(dx), want_dx, activation_tolerance<T>()));
    EXPECT_TRUE(test_util::all_near(download_floats(dout), want_dx, activation_tolerance<T>()));
    EXPECT_TRUE(test_util::all_near(dweight.download(), want_dweight, kParamGradTolerance));
    if (c.bias) {
      EXPECT_TRUE(test_util::all_near(dbias.download(), want_dbias, kParamGradTolerance));
    } else {
      EXPECT_EQ(dbias.download(), dbias_start);
    }
  }
}

}  // namespace
}  // namespace zs::kernels::cuda
