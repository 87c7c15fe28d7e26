#include "kernels/cuda/adamw.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/adamw.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using test_util::DeviceBuffer;
using test_util::random_normal;
using test_util::Tolerance;

constexpr std::int64_t kN = 10007;

// Optimizer state mid-training: params ~ N(0, 1), grads ~ N(0, 0.1²), exp_avg ~ N(0, 0.01²),
// exp_avg_sq = a positive second moment.
struct State {
  std::vector<float> params, grads, exp_avg, exp_avg_sq;
};
State random_state(std::uint32_t seed) {
  State s{random_normal(kN, seed), random_normal(kN, seed + 1, 0.1f),
          random_normal(kN, seed + 2, 0.01f), random_normal(kN, seed + 3, 0.01f)};
  for (float& v : s.exp_avg_sq) v = v * v + 1e-6f;
  return s;
}

struct Case {
  const char* name;
  cpu::AdamConfig config;
  std::int64_t step;
};
std::vector<Case> cases() {
  return {
      {"adamw_step1", {.lr = 1e-3f, .weight_decay = 0.01f}, 1},
      {"l2_step7", {.lr = 1e-3f, .weight_decay = 0.1f, .mode = cpu::AdamMode::kL2}, 7},
      {"no_bias_correction", {.lr = 1e-2f, .eps = 1e-6f, .bias_correction = false}, 3},
      {"adamw_step1000", {.lr = 3e-4f, .beta2 = 0.95f, .weight_decay = 0.1f}, 1000},
  };
}

// Tolerance: abs 1e-7, rel 1e-6, what kernels/cpu/adamw.h prescribes. nvcc contracts the m and v
// updates into FMAs (as in DeepSpeed's kernel) and the CPU does not, so each state differs by
// about an fp32 ulp of its larger term (abs 1e-7 covers m near zero); params move by lr·update,
// so they differ by an ulp of the param at most.
constexpr Tolerance kTolerance{1e-7, 1e-6};

template <class T>
class CudaAdamW : public test_util::CudaTest {};
TYPED_TEST_SUITE(CudaAdamW, test_util::StorageTypes, test_util::StorageTypeNames);

// The step with a copy-out to T: fp32 states match the CPU twin, and the copy is exactly the
// updated fp32 params rounded to T.
TYPED_TEST(CudaAdamW, StepWithCopyMatchesCpu) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const State start = random_state(21);
    State want = start;
    cpu::adam_step(want.params.data(), want.grads.data(), want.exp_avg.data(),
                   want.exp_avg_sq.data(), kN, c.config, c.step);

    DeviceBuffer<float> params(start.params);
    DeviceBuffer<float> grads(start.grads);
    DeviceBuffer<float> exp_avg(start.exp_avg);
    DeviceBuffer<float> exp_avg_sq(start.exp_avg_sq);
    DeviceBuffer<T> copy(kN);
    cuda::adam_step<T>(params.get(), grads.get(), exp_avg.get(), exp_avg_sq.get(), kN, c.config,
                       c.step, copy.get(), this->stream_);
    this->sync();
    const std::vector<float> got_params = params.download();
    EXPECT_TRUE(test_util::all_near(got_params, want.params, kTolerance));
    EXPECT_TRUE(test_util::all_near(exp_avg.download(), want.exp_avg, kTolerance));
    EXPECT_TRUE(test_util::all_near(exp_avg_sq.download(), want.exp_avg_sq, kTolerance));
    EXPECT_EQ(grads.download(), start.grads);
    EXPECT_EQ(test_util::download_floats(copy), test_util::rounded<T>(got_params));
  }
}

using CudaAdamWNoCopy = test_util::CudaTest;

TEST_F(CudaAdamWNoCopy, StepMatchesCpu) {
  const Case c = cases()[1];
  const State start = random_state(31);
  State want = start;
  cpu::adam_step(want.params.data(), want.grads.data(), want.exp_avg.data(), want.exp_avg_sq.data(),
                 kN, c.config, c.step);
  DeviceBuffer<float> params(start.params);
  DeviceBuffer<float> grads(start.grads);
  DeviceBuffer<float> exp_avg(start.exp_avg);
  DeviceBuffer<float> exp_avg_sq(start.exp_avg_sq);
  cuda::adam_step(params.get(), grads.get(), exp_avg.get(), exp_avg_sq.get(), kN, c.config, c.step,
                  stream_);
  sync();
  EXPECT_TRUE(test_util::all_near(params.download(), want.params, kTolerance));
  EXPECT_TRUE(test_util::all_near(exp_avg.download(), want.exp_avg, kTolerance));
  EXPECT_TRUE(test_util::all_near(exp_avg_sq.download(), want.exp_avg_sq, kTolerance));
}

}  // namespace
}  // namespace zs::kernels::cuda
