#include "kernels/cuda/grad_norm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/grad_norm.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using test_util::device_copy;
using test_util::DeviceBuffer;
using test_util::random_normal;
using test_util::rounded;
using test_util::to_storage;

// The largest finite value of each storage type, as fp32.
template <class T>
float largest_finite() {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return test_util::Storage<T>::to_float(test_util::bf16_from_bits(0x7F7F));
  } else if constexpr (std::is_same_v<T, __half>) {
    return 65504.0f;
  } else {
    return std::numeric_limits<float>::max();
  }
}

template <class T>
class CudaGradNorm : public test_util::CudaTest {
 protected:
  // Runs sum_squares on x (rounded to T) and returns the device's double.
  double device_sum_squares(const std::vector<float>& x) {
    DeviceBuffer<T> d_x = device_copy<T>(x);
    DeviceBuffer<double> partials(kSumSquaresPartials);
    DeviceBuffer<double> result(1);
    cuda::sum_squares<T>(d_x.get(), d_x.size(), partials.get(), result.get(), this->stream_);
    this->sync();
    return result.download()[0];
  }
  std::int32_t device_flag(const std::vector<T>& x) {
    DeviceBuffer<T> d_x(x);
    DeviceBuffer<std::int32_t> flag(std::vector<std::int32_t>{7});  // overwritten either way
    cuda::has_inf_or_nan<T>(d_x.get(), d_x.size(), flag.get(), this->stream_);
    this->sync();
    return flag.download()[0];
  }
};
TYPED_TEST_SUITE(CudaGradNorm, test_util::StorageTypes, test_util::StorageTypeNames);

// Tolerance: relative 1e-10. Each square of an fp32 value is exact in double and both sides
// add in double, only in different orders (index order vs. the fixed two-pass tree), so they
// differ by at most n·2^-53 relative (3.3e-10 for the largest n here), and by far less in
// practice for same-signed terms.
TYPED_TEST(CudaGradNorm, SumSquaresMatchesCpu) {
  using T = TypeParam;
  // 0, 1, and sizes below and past one element per thread of the fixed grid (512 x 256).
  for (const std::int64_t n :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{1000}, std::int64_t{3'000'001}}) {
    SCOPED_TRACE(n);
    const std::vector<float> x = rounded<T>(random_normal(n, 11, 0.5f));
    const double want = cpu::sum_squares(x.data(), n);
    const double got = this->device_sum_squares(x);
    EXPECT_NEAR(got, want, 1e-10 * want);
  }
}

TYPED_TEST(CudaGradNorm, SumSquaresIsDeterministic) {
  const std::vector<float> x = rounded<TypeParam>(random_normal(1'000'003, 12));
  const double first = this->device_sum_squares(x);
  const double second = this->device_sum_squares(x);
  EXPECT_EQ(std::memcmp(&first, &second, sizeof(double)), 0) << first << " vs " << second;
}

TYPED_TEST(CudaGradNorm, SumSquaresPropagatesInf) {
  std::vector<float> x = random_normal(4097, 13);
  x[4000] = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(std::isinf(this->device_sum_squares(x)));
}

// Tolerance: none. Both sides multiply the same fp32 value by the same fp32 factor and round
// the product to T to nearest even (kernels/cpu/dtype for the reference), so the bits agree.
TYPED_TEST(CudaGradNorm, ScaleByInverseMatchesCpuBitwise) {
  using T = TypeParam;
  for (const double divisor : {3.0, 1024.0, 0.37}) {
    SCOPED_TRACE(divisor);
    const std::int64_t n = 70001;
    const std::vector<float> x = rounded<T>(random_normal(n, 14, 4.0f));
    std::vector<float> scaled = x;
    cpu::scale_by_inverse(scaled.data(), n, divisor);
    const std::vector<float> want = rounded<T>(scaled);
    DeviceBuffer<T> d_x = device_copy<T>(x);
    cuda::scale_by_inverse<T>(d_x.get(), n, divisor, this->stream_);
    this->sync();
    EXPECT_EQ(test_util::download_floats(d_x), want);
  }
}

TYPED_TEST(CudaGradNorm, HasInfOrNanFlagsEachKind) {
  using T = TypeParam;
  constexpr float kInf = std::numeric_limits<float>::infinity();
  const std::vector<float> clean = random_normal(100003, 15);
  EXPECT_EQ(this->device_flag(to_storage<T>(clean)), 0);
  EXPECT_EQ(this->device_flag({}), 0);
  // The largest finite value of T is not an overflow.
  std::vector<float> big = clean;
  big[17] = largest_finite<T>();
  big[18] = -big[17];
  EXPECT_EQ(this->device_flag(to_storage<T>(big)), 0);
  // +inf last, -inf in the middle, NaN first.
  const std::vector<std::pair<std::size_t, float>> cases = {
      {clean.size() - 1, kInf}, {clean.size() / 2, -kInf}, {0, std::nanf("")}};
  for (const auto& [index, value] : cases) {
    SCOPED_TRACE(index);
    std::vector<float> x = clean;
    x[index] = value;
    EXPECT_TRUE(cpu::has_inf_or_nan(x.data(), static_cast<std::int64_t>(x.size())));
    EXPECT_EQ(this->device_flag(to_storage<T>(x)), 1);
  }
}

}  // namespace
}  // namespace zs::kernels::cuda
