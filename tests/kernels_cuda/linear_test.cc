#include "kernels/cuda/linear.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/cpu/linear.h"
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

// Tolerance of a product with inner dimension k over N(0, 1) inputs: both sides accumulate in
// fp32, in different orders (cuBLASLt's tiles and split-k vs. Eigen's blocks), so results
// differ by a few fp32 roundings of partial sums of size up to ~k: abs 1e-6·k (2.6e-4 at
// k = 256, where results are ~16), rel 1e-6; a T output adds one ulp of T.
Tolerance product_tolerance(std::int64_t k, double storage_rel) {
  return {1e-6 * static_cast<double>(k), 1e-6 + storage_rel};
}

// What accumulating into a T output may add: cuBLASLt may round the product to T before it adds
// C (seen on an H100 with CUDA 13.0, 2026-11-26, bf16 and fp16, beta = 1; the fp32 output is
// exact), so each element may carry one more rounding of T at the product's magnitude:
// storage_rel·|want - c0| (storage_rel is an ulp, twice the rounding error). Empty (nothing
// more) for an fp32 output or an overwrite.
// b (n) repeated for each of m rows: the c0 of a forward with bias.
std::vector<float> bias_rows(const std::vector<float>& b, std::int64_t m) {
  std::vector<float> rows;
  for (std::int64_t r = 0; r < m; ++r) rows.insert(rows.end(), b.begin(), b.end());
  return rows;
}

std::vector<double> product_rounding(const std::vector<float>& want, const std::vector<float>& c0,
                                     double storage_rel) {
  if (storage_rel == 0.0) return {};
  std::vector<double> extra(want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    extra[i] = storage_rel * std::fabs(static_cast<double>(want[i]) - c0[i]);
  }
  return extra;
}

// Odd sizes (no tensor-core-friendly alignment) and aligned sizes (tensor-core algorithms).
struct Dims {
  std::int64_t m, n, k;
};
const Dims kDims[] = {{37, 29, 70}, {64, 128, 256}};

template <class T>
class CudaLinear : public test_util::CudaTest {
 protected:
  void SetUp() override {
    test_util::CudaTest::SetUp();
    if (IsSkipped()) return;
    ctx_.emplace();
  }
  void TearDown() override {
    ctx_.reset();
    test_util::CudaTest::TearDown();
  }
  // Runs matmul<T, TOut> on rounded inputs and an initial c; returns c as fp32.
  template <class TOut>
  std::vector<float> device_matmul(const cpu::MatmulShape& s, const std::vector<float>& a,
                                   const std::vector<float>& b, const std::vector<float>& c0) {
    DeviceBuffer<T> d_a = device_copy<T>(a);
    DeviceBuffer<T> d_b = device_copy<T>(b);
    DeviceBuffer<TOut> d_c = device_copy<TOut>(c0);
    cuda::matmul<T, TOut>(*ctx_, s, d_a.get(), d_b.get(), d_c.get(), this->stream_);
    this->sync();
    return download_floats(d_c);
  }
  // Every (transpose_a, transpose_b, accumulate) against the CPU matmul, output TOut.
  template <class TOut>
  void expect_matmuls_match_cpu() {
    for (const Dims& d : kDims) {
      for (int flags = 0; flags < 8; ++flags) {
        const cpu::MatmulShape s{.m = d.m,
                                 .n = d.n,
                                 .k = d.k,
                                 .transpose_a = (flags & 1) != 0,
                                 .transpose_b = (flags & 2) != 0,
                                 .accumulate = (flags & 4) != 0};
        SCOPED_TRACE(std::to_string(d.m) + "x" + std::to_string(d.n) + "x" + std::to_string(d.k) +
                     " flags " + std::to_string(flags));
        const std::vector<float> a = rounded<T>(random_normal(d.m * d.k, 61));
        const std::vector<float> b = rounded<T>(random_normal(d.k * d.n, 62));
        const std::vector<float> c0 = rounded<TOut>(random_normal(d.m * d.n, 63));
        std::vector<float> want = c0;
        cpu::matmul(s, a.data(), b.data(), want.data());
        const std::vector<float> got = device_matmul<TOut>(s, a, b, c0);
        EXPECT_TRUE(test_util::all_near(got, want, product_tolerance(d.k, Storage<TOut>::kRel),
                                        s.accumulate
                                            ? product_rounding(want, c0, Storage<TOut>::kRel)
                                            : std::vector<double>{}));
      }
    }
  }

  std::optional<LtContext> ctx_;
};
TYPED_TEST_SUITE(CudaLinear, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaLinear, MatmulMatchesCpu) { this->template expect_matmuls_match_cpu<TypeParam>(); }

// T inputs, fp32 output (the weight-gradient path).
TYPED_TEST(CudaLinear, MatmulWithFloatOutputMatchesCpu) {
  this->template expect_matmuls_match_cpu<float>();
}

TYPED_TEST(CudaLinear, ForwardMatchesCpu) {
  using T = TypeParam;
  for (const Dims& d : kDims) {
    for (const bool bias : {false, true}) {
      SCOPED_TRACE(std::to_string(d.m) + (bias ? " with bias" : " without bias"));
      const models::GemmShape s{.m = d.m, .n = d.n, .k = d.k, .bias = bias};
      const std::vector<float> x = rounded<T>(random_normal(d.m * d.k, 71));
      const std::vector<float> w = rounded<T>(random_normal(d.n * d.k, 72));
      const std::vector<float> b = rounded<T>(random_normal(d.n, 73));
      std::vector<float> want(static_cast<std::size_t>(d.m * d.n));
      cpu::linear_forward(s, x.data(), w.data(), bias ? b.data() : nullptr, want.data());
      DeviceBuffer<T> d_x = device_copy<T>(x);
      DeviceBuffer<T> d_w = device_copy<T>(w);
      DeviceBuffer<T> d_b = device_copy<T>(b);
      // Garbage in y first: the forward overwrites it.
      DeviceBuffer<T> d_y = device_copy<T>(random_normal(d.m * d.n, 74));
      cuda::linear_forward<T>(*this->ctx_, s, d_x.get(), d_w.get(), bias ? d_b.get() : nullptr,
                              d_y.get(), this->stream_);
      this->sync();
      // With a bias, the forward writes the bias into y and accumulates the product onto it.
      EXPECT_TRUE(
          test_util::all_near(download_floats(d_y), want, product_tolerance(d.k, Storage<T>::kRel),
                              bias ? product_rounding(want, bias_rows(b, d.m), Storage<T>::kRel)
                                   : std::vector<double>{}));
    }
  }
}

// Backward twice from non-zero dw and dbias: dx is overwritten (the same both times), dw and
// dbias accumulate (start + 2·gradient), as PyTorch's .grad across micro-steps.
TYPED_TEST(CudaLinear, BackwardMatchesCpuAndAccumulates) {
  using T = TypeParam;
  for (const Dims& d : kDims) {
    SCOPED_TRACE(d.m);
    const models::GemmShape s{.m = d.m, .n = d.n, .k = d.k, .bias = true};
    const std::vector<float> dy = rounded<T>(random_normal(d.m * d.n, 81));
    const std::vector<float> x = rounded<T>(random_normal(d.m * d.k, 82));
    const std::vector<float> w = rounded<T>(random_normal(d.n * d.k, 83));
    const std::vector<float> dw_start = random_normal(d.n * d.k, 84);
    const std::vector<float> dbias_start = random_normal(d.n, 85);
    std::vector<float> want_dx(static_cast<std::size_t>(d.m * d.k));
    std::vector<float> want_dw = dw_start;
    std::vector<float> want_dbias = dbias_start;
    for (int call = 0; call < 2; ++call) {
      cpu::linear_backward(s, dy.data(), x.data(), w.data(), want_dx.data(), want_dw.data(),
                           want_dbias.data());
    }
    DeviceBuffer<T> d_dy = device_copy<T>(dy);
    DeviceBuffer<T> d_x = device_copy<T>(x);
    DeviceBuffer<T> d_w = device_copy<T>(w);
    DeviceBuffer<T> d_dx(d.m * d.k);
    DeviceBuffer<float> d_dw(dw_start);
    DeviceBuffer<float> d_dbias(dbias_start);
    for (int call = 0; call < 2; ++call) {
      cuda::linear_backward<T>(*this->ctx_, s, d_dy.get(), d_x.get(), d_w.get(), d_dx.get(),
                               d_dw.get(), d_dbias.get(), this->stream_);
    }
    this->sync();
    // dx: inner dimension n; dw: inner dimension m, twice; dbias: sums of m rows, twice.
    EXPECT_TRUE(test_util::all_near(download_floats(d_dx), want_dx,
                                    product_tolerance(d.n, Storage<T>::kRel)));
    EXPECT_TRUE(test_util::all_near(d_dw.download(), want_dw, product_tolerance(2 * d.m, 0.0)));
    EXPECT_TRUE(
        test_util::all_near(d_dbias.download(), want_dbias, product_tolerance(2 * d.m, 0.0)));
  }
}

// A context moved from another still works; the moved-from one is only destroyed.
TYPED_TEST(CudaLinear, ContextIsMovable) {
  using T = TypeParam;
  LtContext moved = std::move(*this->ctx_);
  EXPECT_EQ(moved.workspace_bytes(), LtContext::kDefaultWorkspaceBytes);
  const cpu::MatmulShape s{.m = 8, .n = 8, .k = 8};
  const std::vector<float> a = rounded<T>(random_normal(64, 91));
  const std::vector<float> b = rounded<T>(random_normal(64, 92));
  std::vector<float> want(64);
  cpu::matmul(s, a.data(), b.data(), want.data());
  DeviceBuffer<T> d_a = device_copy<T>(a);
  DeviceBuffer<T> d_b = device_copy<T>(b);
  DeviceBuffer<T> d_c(64);
  cuda::matmul<T, T>(moved, s, d_a.get(), d_b.get(), d_c.get(), this->stream_);
  this->sync();
  EXPECT_TRUE(
      test_util::all_near(download_floats(d_c), want, product_tolerance(8, Storage<T>::kRel)));
}

// A context on a workspace the caller owns (the executor's caching allocator gives it) computes
// bitwise what a context with its own workspace of the same size computes: the same algorithm
// for the same shapes, types and alignments.
TYPED_TEST(CudaLinear, BorrowedWorkspaceGivesTheSameProducts) {
  using T = TypeParam;
  DeviceBuffer<std::byte> workspace(LtContext::kDefaultWorkspaceBytes);
  LtContext borrowed(workspace.get(), workspace.size());
  EXPECT_EQ(borrowed.workspace_bytes(), LtContext::kDefaultWorkspaceBytes);
  const Dims d = kDims[1];
  const cpu::MatmulShape s{.m = d.m, .n = d.n, .k = d.k, .transpose_b = true};
  DeviceBuffer<T> d_a = device_copy<T>(random_normal(d.m * d.k, 95));
  DeviceBuffer<T> d_b = device_copy<T>(random_normal(d.n * d.k, 96));
  DeviceBuffer<T> own(d.m * d.n);
  DeviceBuffer<T> theirs(d.m * d.n);
  cuda::matmul<T, T>(*this->ctx_, s, d_a.get(), d_b.get(), own.get(), this->stream_);
  cuda::matmul<T, T>(borrowed, s, d_a.get(), d_b.get(), theirs.get(), this->stream_);
  this->sync();
  EXPECT_EQ(download_floats(own), download_floats(theirs));
}

}  // namespace
}  // namespace zs::kernels::cuda
