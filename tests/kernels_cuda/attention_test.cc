#include "kernels/cuda/attention.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/cpu/attention.h"
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

std::int64_t q_numel(const AttentionShape& a) { return a.batch * a.seq * a.heads * a.head_dim; }
std::int64_t kv_numel(const AttentionShape& a) { return a.batch * a.seq * a.kv_heads * a.head_dim; }
std::int64_t lse_numel(const AttentionShape& a) { return a.batch * a.heads * a.seq; }

struct Case {
  const char* name;
  AttentionShape shape;
};
// Sequences that are not multiples of the tiles (64 query rows, 64 or 32 keys); causal and not;
// multi-head, grouped-query and multi-query; head_dim at each padding bucket (32, 64, 128) and
// between buckets (80, 96: padded in shared memory); a single token.
std::vector<Case> cases() {
  auto shape = [](std::int64_t b, std::int64_t s, std::int64_t a, std::int64_t g, std::int64_t d,
                  bool causal) {
    return AttentionShape{
        .batch = b, .seq = s, .heads = a, .kv_heads = g, .head_dim = d, .causal = causal};
  };
  return {{"causal_gqa_d64", shape(2, 77, 4, 2, 64, true)},
          {"full_mha_d128", shape(1, 130, 2, 2, 128, false)},
          {"causal_mqa_d32", shape(1, 65, 4, 1, 32, true)},
          {"full_gqa_d80", shape(2, 50, 6, 3, 80, false)},
          {"causal_multi_tile_d96", shape(1, 200, 2, 1, 96, true)},
          {"causal_one_token", shape(1, 1, 2, 1, 16, true)}};
}

struct Inputs {
  std::vector<float> q, k, v, dout;
};
template <class T>
Inputs random_inputs(const AttentionShape& a, std::uint32_t seed) {
  return {rounded<T>(random_normal(q_numel(a), seed)),
          rounded<T>(random_normal(kv_numel(a), seed + 1)),
          rounded<T>(random_normal(kv_numel(a), seed + 2)),
          rounded<T>(random_normal(q_numel(a), seed + 3))};
}

// Tolerances. Scores are fp32 dot products of d terms on both sides (different order), and the
// softmax sums run in fp32 here and in double in the CPU twin: out, a convex combination of v
// rows (|v| < ~5), agrees to abs 1e-5, rel 1e-5; lse (values ~1-6) to abs 1e-5. The gradients
// add two more levels of fp32 sums over up to s·(heads/kv_heads) terms with cancellation
// (dS = P·(dP - D)): abs 1e-4, rel 1e-4. 16-bit outputs add one ulp of T.
template <class T>
Tolerance out_tolerance() {
  return {1e-5, 1e-5 + Storage<T>::kRel};
}
constexpr Tolerance kLseTolerance{1e-5, 1e-6};
template <class T>
Tolerance grad_tolerance() {
  return {1e-4, 1e-4 + Storage<T>::kRel};
}

template <class T>
class CudaAttention : public test_util::CudaTest {
 protected:
  struct Outputs {
    std::vector<float> out, lse;
  };
  Outputs device_forward(const AttentionShape& a, const Inputs& in) {
    DeviceBuffer<T> q = device_copy<T>(in.q);
    DeviceBuffer<T> k = device_copy<T>(in.k);
    DeviceBuffer<T> v = device_copy<T>(in.v);
    DeviceBuffer<T> out(q_numel(a));
    DeviceBuffer<float> lse(lse_numel(a));
    cuda::attention_forward<T>(a, q.get(), k.get(), v.get(), out.get(), lse.get(), this->stream_);
    this->sync();
    return {download_floats(out), lse.download()};
  }
  struct Gradients {
    std::vector<float> dq, dk, dv;
  };
  // out: the forward's output as T values; lse: its fp32 lse.
  Gradients device_backward(const AttentionShape& a, const Inputs& in,
                            const std::vector<float>& out, const std::vector<float>& lse) {
    DeviceBuffer<T> q = device_copy<T>(in.q);
    DeviceBuffer<T> k = device_copy<T>(in.k);
    DeviceBuffer<T> v = device_copy<T>(in.v);
    DeviceBuffer<T> d_out = device_copy<T>(out);
    DeviceBuffer<float> d_lse(lse);
    DeviceBuffer<T> dout = device_copy<T>(in.dout);
    // Garbage in the gradients first: the backward overwrites them.
    DeviceBuffer<T> dq = device_copy<T>(random_normal(q_numel(a), 161));
    DeviceBuffer<T> dk = device_copy<T>(random_normal(kv_numel(a), 162));
    DeviceBuffer<T> dv = device_copy<T>(random_normal(kv_numel(a), 163));
    cuda::attention_backward<T>(a, q.get(), k.get(), v.get(), d_out.get(), d_lse.get(), dout.get(),
                                dq.get(), dk.get(), dv.get(), this->stream_);
    this->sync();
    return {download_floats(dq), download_floats(dk), download_floats(dv)};
  }
};
TYPED_TEST_SUITE(CudaAttention, test_util::StorageTypes, test_util::StorageTypeNames);

TYPED_TEST(CudaAttention, ForwardMatchesCpu) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const AttentionShape& a = c.shape;
    const Inputs in = random_inputs<T>(a, 171);
    std::vector<float> want_out(static_cast<std::size_t>(q_numel(a)));
    std::vector<float> want_lse(static_cast<std::size_t>(lse_numel(a)));
    cpu::attention_forward(a, in.q.data(), in.k.data(), in.v.data(), want_out.data(),
                           want_lse.data());
    const auto got = this->device_forward(a, in);
    EXPECT_TRUE(test_util::all_near(got.out, want_out, out_tolerance<T>()));
    EXPECT_TRUE(test_util::all_near(got.lse, want_lse, kLseTolerance));
  }
}

// Both backward passes get the same inputs: the CPU forward's lse and its out rounded to T (what
// a T forward would have stored), so only the backward's own arithmetic differs.
TYPED_TEST(CudaAttention, BackwardMatchesCpu) {
  using T = TypeParam;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const AttentionShape& a = c.shape;
    const Inputs in = random_inputs<T>(a, 181);
    std::vector<float> out(static_cast<std::size_t>(q_numel(a)));
    std::vector<float> lse(static_cast<std::size_t>(lse_numel(a)));
    cpu::attention_forward(a, in.q.data(), in.k.data(), in.v.data(), out.data(), lse.data());
    out = rounded<T>(out);
    std::vector<float> want_dq(out.size());
    std::vector<float> want_dk(static_cast<std::size_t>(kv_numel(a)));
    std::vector<float> want_dv(want_dk.size());
    cpu::attention_backward(a, in.q.data(), in.k.data(), in.v.data(), out.data(), lse.data(),
                            in.dout.data(), want_dq.data(), want_dk.data(), want_dv.data());
    const auto got = this->device_backward(a, in, out, lse);
    EXPECT_TRUE(test_util::all_near(got.dq, want_dq, grad_tolerance<T>()));
    EXPECT_TRUE(test_util::all_near(got.dk, want_dk, grad_tolerance<T>()));
    EXPECT_TRUE(test_util::all_near(got.dv, want_dv, grad_tolerance<T>()));
  }
}

// No atomics: the same inputs give the same bits, forward and backward.
TYPED_TEST(CudaAttention, IsDeterministic) {
  using T = TypeParam;
  const AttentionShape a = cases()[0].shape;  // GQA: dk, dv sum two query heads
  const Inputs in = random_inputs<T>(a, 191);
  const auto first = this->device_forward(a, in);
  const auto second = this->device_forward(a, in);
  EXPECT_EQ(first.out, second.out);
  EXPECT_EQ(first.lse, second.lse);
  const auto grads1 = this->device_backward(a, in, first.out, first.lse);
  const auto grads2 = this->device_backward(a, in, first.out, first.lse);
  EXPECT_EQ(grads1.dq, grads2.dq);
  EXPECT_EQ(grads1.dk, grads2.dk);
  EXPECT_EQ(grads1.dv, grads2.dv);
}

}  // namespace
}  // namespace zs::kernels::cuda
