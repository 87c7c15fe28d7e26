// CudaModelRunner against ModelRunner (the CPU reference) on small GPT-2 and llama models, and
// its memory lifetimes. Labelled "gpu": every test skips itself without a CUDA device.
#include "exec/cuda/cuda_model_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "exec/caching_allocator.h"
#include "exec/cuda/cuda_memory.h"
#include "exec/model_runner.h"
#include "kernels/cpu/dtype.h"
#include "models/zoo.h"
#include "tests/exec/exec_test_models.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::exec {
namespace {

using models::ModelSpec;
using models::ParamTensor;
using models::Workload;
using testing::kSmall;
using testing::random_ids;
using testing::small_gpt;
using testing::small_llama;

// x rounded to bf16 and widened back (what a bf16 runner's weights hold).
std::vector<float> rounded_to_bf16(std::vector<float> x) {
  for (float& v : x) v = kernels::cpu::bf16_to_float(kernels::cpu::float_to_bf16(v));
  return x;
}

// Per parameter tensor: ||got - want|| <= rel_norm·||want|| and, element by element,
// |got - want| <= abs_of_max·max|want| + rel·|want|.
struct GradTolerance {
  double rel_norm = 0;
  double abs_of_max = 0;
  double rel = 0;
};

void expect_grads_near(const ModelRunner& cpu, const std::vector<float>& got,
                       const GradTolerance& tol) {
  const std::span<const float> want = cpu.flat_grads();
  ASSERT_EQ(got.size(), want.size());
  for (const ParamTensor& p : cpu.params()) {
    if (p.tied) continue;
    const auto at = static_cast<std::size_t>(cpu.param_offset(p.id));
    const auto n = static_cast<std::size_t>(p.numel);
    double diff2 = 0, want2 = 0, want_max = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      diff2 += (double{got[i]} - want[i]) * (double{got[i]} - want[i]);
      want2 += double{want[i]} * want[i];
      want_max = std::max(want_max, std::fabs(double{want[i]}));
    }
    ASSERT_GT(want_max, 0.0) << p.name;
    EXPECT_LE(std::sqrt(diff2), tol.rel_norm * std::sqrt(want2)) << p.name;
    int bad = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      const double err = std::fabs(double{got[i]} - want[i]);
      if (!(err <= tol.abs_of_max * want_max + tol.rel * std::fabs(double{want[i]}))) ++bad;
    }
    EXPECT_EQ(bad, 0) << p.name << ": elements outside the tolerance";
  }
}

// The ops of transformer layer `layer` as a range [first, last].
std::pair<int, int> layer_range(const std::vector<models::Op>& ops, int layer) {
  int first = -1, last = -1;
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    if (ops[static_cast<std::size_t>(i)].layer != layer) continue;
    if (first < 0) first = i;
    last = i;
  }
  return {first, last};
}

class CudaModelRunnerTest : public kernels::cuda::test_util::CudaTest {
 protected:
  void SetUp() override {
    CudaTest::SetUp();
    if (IsSkipped()) return;
    raw_ = std::make_unique<CudaRawMemory>();
    allocator_ = std::make_unique<CachingAllocator>(*raw_);
  }
  void TearDown() override {
    allocator_.reset();
    raw_.reset();
    CudaTest::TearDown();
  }

  template <class T>
  std::unique_ptr<CudaModelRunner<T>> make(const ModelSpec& spec, const Workload& w = kSmall) {
    auto r = CudaModelRunner<T>::create(spec, w, 1, *allocator_, stream_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    std::unique_ptr<CudaModelRunner<T>> runner = std::move(r).value();
    const std::int64_t t = w.tokens();
    EXPECT_TRUE(
        runner->set_batch(random_ids(t, spec.vocab_size, 11), random_ids(t, spec.vocab_size, 12))
            .is_ok());
    return runner;
  }

  // The CPU reference with the same seed and batch; with `bf16`, its weights rounded to bf16.
  static ModelRunner reference(const ModelSpec& spec, bool bf16) {
    ModelRunner r = ModelRunner::create(spec, kSmall, 1).value();
    if (bf16) {
      const std::vector<float> w =
          rounded_to_bf16({r.flat_params().begin(), r.flat_params().end()});
      std::copy(w.begin(), w.end(), r.flat_params().begin());
    }
    const std::int64_t t = kSmall.tokens();
    EXPECT_TRUE(r.set_batch(random_ids(t, spec.vocab_size, 11), random_ids(t, spec.vocab_size, 12))
                    .is_ok());
    return r;
  }

  std::unique_ptr<CudaRawMemory> raw_;
  std::unique_ptr<CachingAllocator> allocator_;
};

// fp32: the same math in other summation orders (cuBLASLt tiles, block reductions in fp32
// where the CPU reduces rows in double): the loss within 1e-5 relative; each tensor's
// gradient within 1e-4 of its norm, and every element within 1e-4 of the tensor's largest
// |gradient| plus 1e-3 of its own value.
TEST_F(CudaModelRunnerTest, Fp32LossAndGradientsMatchTheCpuRunner) {
  for (const ModelSpec& spec : {small_gpt(), small_llama()}) {
    ModelRunner cpu = reference(spec, false);
    auto gpu = make<float>(spec);
    // The same initial weights, bit for bit (create() rounds nothing in fp32).
    const std::vector<float> w = gpu->params_to_host();
    ASSERT_EQ(w.size(), cpu.flat_params().size());
    ASSERT_TRUE(std::equal(w.begin(), w.end(), cpu.flat_params().begin())) << spec.name;
    const int last = cpu.num_ops() - 1;
    cpu.forward(0, last);
    cpu.backward(0, last);
    ASSERT_TRUE(gpu->forward(0, last).is_ok());
    ASSERT_TRUE(gpu->backward(0, last).is_ok());
    EXPECT_NEAR(gpu->loss(), cpu.loss(), 1e-5 * cpu.loss()) << spec.name;
    expect_grads_near(cpu, gpu->grads_to_host(),
                      {.rel_norm = 1e-4, .abs_of_max = 1e-4, .rel = 1e-3});
  }
}

// bf16: weights and every activation and activation gradient are bf16 on the device (8
// significant bits, rounded at each op) where the CPU keeps fp32 activations: the loss within
// 1e-2 relative, each tensor's gradient within 5e-2 of its norm, elements within 5e-2 of the
// tensor's largest |gradient| plus 5e-2 of their own value.
TEST_F(CudaModelRunnerTest, Bf16LossAndGradientsMatchTheCpuRunner) {
  for (const ModelSpec& spec : {small_gpt(), small_llama()}) {
    ModelRunner cpu = reference(spec, true);
    auto gpu = make<__nv_bfloat16>(spec);
    const std::vector<float> w = gpu->params_to_host();
    ASSERT_EQ(w.size(), cpu.flat_params().size());
    ASSERT_TRUE(std::equal(w.begin(), w.end(), cpu.flat_params().begin())) << spec.name;
    const int last = cpu.num_ops() - 1;
    cpu.forward(0, last);
    cpu.backward(0, last);
    ASSERT_TRUE(gpu->forward(0, last).is_ok());
    ASSERT_TRUE(gpu->backward(0, last).is_ok());
    EXPECT_NEAR(gpu->loss(), cpu.loss(), 1e-2 * cpu.loss()) << spec.name;
    expect_grads_near(cpu, gpu->grads_to_host(),
                      {.rel_norm = 5e-2, .abs_of_max = 5e-2, .rel = 5e-2});
  }
}

// Full checkpointing (drop each layer, recompute it before its backward) and uneven ranges
// give bitwise the gradients of one plain pass: the kernels are deterministic, and every
// buffer the allocator hands out is 512-byte aligned, so cuBLASLt picks the same algorithms.
TEST_F(CudaModelRunnerTest, RangesAndRecomputeGiveBitwiseTheSameGradients) {
  for (const ModelSpec& spec : {small_gpt(), small_llama()}) {
    auto plain = make<float>(spec);
    const int last = plain->num_ops() - 1;
    ASSERT_TRUE(plain->forward(0, last).is_ok());
    ASSERT_TRUE(plain->backward(0, last).is_ok());
    const std::vector<float> want = plain->grads_to_host();
    const double want_loss = plain->loss();
    plain.reset();

    auto ckpt = make<float>(spec);
    const auto [l0_first, l0_last] = layer_range(ckpt->ops(), 0);
    const auto [l1_first, l1_last] = layer_range(ckpt->ops(), 1);
    ASSERT_TRUE(ckpt->forward(0, l0_first - 1).is_ok());
    ASSERT_TRUE(ckpt->forward(l0_first, l0_last).is_ok());
    ckpt->drop_activations(l0_first, l0_last);
    ASSERT_TRUE(ckpt->forward(l1_first, l1_last).is_ok());
    ckpt->drop_activations(l1_first, l1_last);
    ASSERT_TRUE(ckpt->forward(l1_last + 1, last).is_ok());
    ASSERT_TRUE(ckpt->backward(l1_last + 1, last).is_ok());
    ASSERT_TRUE(ckpt->recompute(l1_first, l1_last).is_ok());
    ASSERT_TRUE(ckpt->backward(l1_first, l1_last).is_ok());
    ASSERT_TRUE(ckpt->recompute(l0_first, l0_last).is_ok());
    ASSERT_TRUE(ckpt->backward(l0_first, l0_last).is_ok());
    ASSERT_TRUE(ckpt->backward(0, l0_first - 1).is_ok());
    EXPECT_EQ(ckpt->take_losses().size(), 1u);
    EXPECT_EQ(ckpt->loss(), want_loss) << spec.name;
    EXPECT_TRUE(ckpt->grads_to_host() == want) << spec.name;
  }
}

TEST_F(CudaModelRunnerTest, WeightGradientsAccumulateUntilZeroed) {
  auto r = make<float>(small_llama());
  const int last = r->num_ops() - 1;
  ASSERT_TRUE(r->forward(0, last).is_ok());
  ASSERT_TRUE(r->backward(0, last).is_ok());
  const std::vector<float> once = r->grads_to_host();
  ASSERT_TRUE(r->forward(0, last).is_ok());
  ASSERT_TRUE(r->backward(0, last).is_ok());
  const std::vector<float> twice = r->grads_to_host();
  for (std::size_t i = 0; i < once.size(); ++i) {
    ASSERT_NEAR(twice[i], 2 * once[i], 1e-6 * std::fabs(once[i])) << i;
  }
  r->zero_grads();
  for (float g : r->grads_to_host()) ASSERT_EQ(g, 0.0f);
  EXPECT_EQ(r->take_losses().size(), 2u);
}

// Activations live from their forward to their backward (or drop): after a whole micro-step
// the allocator holds what it held before it; during it, more.
TEST_F(CudaModelRunnerTest, ActivationsAreFreedAfterBackwardAndOnDrop) {
  auto r = make<__nv_bfloat16>(small_gpt());
  const int last = r->num_ops() - 1;
  const std::int64_t idle = allocator_->stats().allocated_bytes;
  ASSERT_TRUE(r->forward(0, last).is_ok());
  const std::int64_t after_forward = allocator_->stats().allocated_bytes;
  EXPECT_GT(after_forward, idle);
  // Both layers, as full checkpointing drops them: the last layer's output (read by the final
  // norm) stays.
  const int first_layer_op = layer_range(r->ops(), 0).first;
  const int last_layer_op = layer_range(r->ops(), 1).second;
  r->drop_activations(first_layer_op, last_layer_op);
  const std::int64_t after_drop = allocator_->stats().allocated_bytes;
  EXPECT_LT(after_drop, after_forward);
  ASSERT_TRUE(r->recompute(first_layer_op, last_layer_op).is_ok());
  EXPECT_GT(allocator_->stats().allocated_bytes, after_drop);
  ASSERT_TRUE(r->backward(0, last).is_ok());
  EXPECT_EQ(allocator_->stats().allocated_bytes, idle);  // only the runner's persistent arrays
  const Stats s = allocator_->stats();
  EXPECT_GE(s.peak_allocated_bytes, after_forward);
  EXPECT_LE(s.peak_allocated_bytes, s.peak_reserved_bytes);
}

// A head wider than the attention kernel's tiles.
ModelSpec wide_head_gpt() {
  ModelSpec spec = small_gpt();
  spec.num_heads = 1;
  spec.num_kv_heads = 1;
  spec.head_dim = 256;
  spec.hidden_size = 256;
  return spec;
}

// Needs no device: runs (and passes) on every machine with a CUDA build.
TEST(CheckCudaRunnable, NamesTheLimitAModelBreaks) {
  EXPECT_TRUE(check_cuda_runnable(small_gpt(), kSmall).is_ok());
  EXPECT_TRUE(check_cuda_runnable(small_llama(), kSmall).is_ok());
  const Status s = check_cuda_runnable(wide_head_gpt(), kSmall);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("model \"small-gpt\": head_dim = 256"), std::string::npos)
      << s.message();
  // check_runnable's own errors come first.
  ModelSpec relu = small_gpt();
  relu.activation = "relu";
  EXPECT_NE(check_cuda_runnable(relu, kSmall).message().find("activation = \"relu\""),
            std::string::npos);
}

TEST_F(CudaModelRunnerTest, RejectsBadTokensAndWhatTheKernelsCannotRun) {
  auto r = make<float>(small_gpt());
  std::vector<std::int32_t> tokens(32, 1), targets(32, 2);
  tokens[3] = 64;
  const Status bad = r->set_batch(tokens, targets);
  EXPECT_NE(bad.message().find("tokens[3] = 64"), std::string::npos) << bad.message();
  EXPECT_FALSE(
      CudaModelRunner<float>::create(wide_head_gpt(), kSmall, 1, *allocator_, stream_).ok());
}

}  // namespace
}  // namespace zs::exec
