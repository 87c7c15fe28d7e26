#include "exec/weight_init.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "models/op_graph.h"
#include "models/zoo.h"

namespace zs::exec {
namespace {

using models::ParamTensor;

// A GPT-2 spec's parameters laid out back to back (aliases share their target's offset), and
// their initial values for `seed`.
struct Init {
  std::vector<ParamTensor> params;
  std::vector<std::int64_t> offsets;
  std::vector<float> flat;

  std::span<const float> values(const std::string& name) const {
    for (const ParamTensor& p : params) {
      if (p.name == name) {
        return std::span<const float>(flat).subspan(
            static_cast<std::size_t>(offsets[static_cast<std::size_t>(p.id)]),
            static_cast<std::size_t>(p.numel));
      }
    }
    ADD_FAILURE() << "no parameter " << name;
    return {};
  }
};

Init init(const models::ModelSpec& spec, std::uint64_t seed) {
  Init r;
  r.params = models::parameter_tensors(spec);
  std::int64_t numel = 0;
  for (const ParamTensor& p : r.params) {
    r.offsets.push_back(p.tied ? r.offsets[static_cast<std::size_t>(p.tied_to)] : numel);
    if (!p.tied) numel += p.numel;
  }
  r.flat.assign(static_cast<std::size_t>(numel), -1.0f);
  init_gpt2_weights(models::forward_ops(spec, {.seq_len = 8}), r.params, r.offsets, spec.num_layers,
                    seed, r.flat);
  return r;
}

double mean(std::span<const float> x) {
  double s = 0;
  for (float v : x) s += v;
  return s / static_cast<double>(x.size());
}

double stddev(std::span<const float> x) {
  const double m = mean(x);
  double s = 0;
  for (float v : x) s += (v - m) * (v - m);
  return std::sqrt(s / static_cast<double>(x.size()));
}

TEST(WeightInit, FollowsGpt2sRule) {
  const models::ModelSpec spec = models::zoo_model("tiny-gpt").value();  // L = 2
  const Init w = init(spec, 7);
  // The sample std of n normal draws is within 4·std/sqrt(2n) of the true one (4 sigma).
  auto expect_normal = [&](const std::string& name, double want_std) {
    const std::span<const float> x = w.values(name);
    const double n = static_cast<double>(x.size());
    EXPECT_NEAR(stddev(x), want_std, 4 * want_std / std::sqrt(2 * n)) << name;
    EXPECT_NEAR(mean(x), 0.0, 4 * want_std / std::sqrt(n)) << name;
  };
  expect_normal("transformer.wte.weight", 0.02);              // 256 x 64
  expect_normal("transformer.wpe.weight", 0.02);              // 64 x 64
  expect_normal("transformer.h.0.attn.c_attn.weight", 0.02);  // 64 x 192
  expect_normal("transformer.h.1.mlp.c_fc.weight", 0.02);     // 64 x 256
  expect_normal("transformer.h.0.attn.c_proj.weight", 0.01);  // 0.02 / sqrt(2 L)
  expect_normal("transformer.h.1.mlp.c_proj.weight", 0.01);
  for (const char* name : {"transformer.h.0.ln_1.weight", "transformer.ln_f.weight"}) {
    for (float v : w.values(name)) ASSERT_EQ(v, 1.0f) << name;
  }
  for (const ParamTensor& p : w.params) {
    if (!p.is_bias) continue;
    for (float v : w.values(p.name)) ASSERT_EQ(v, 0.0f) << p.name;
  }
}

TEST(WeightInit, IsDeterministicPerSeed) {
  const models::ModelSpec spec = models::zoo_model("tiny-gpt").value();
  const Init a = init(spec, 1), b = init(spec, 1), c = init(spec, 2);
  EXPECT_EQ(a.flat, b.flat);
  EXPECT_NE(a.flat, c.flat);
  // Pinned: mt19937_64's output is fixed by the standard and the draw order by weight_init.h,
  // so these hold on every platform. The values come from an independent Python transcription
  // (mt19937_64 checked against the standard's 10000th output, 9981545732273789042; then
  // 0.02 * sqrt(-2 ln u1) * cos / sin(2 pi u2)). A change of draw order changes them.
  const std::span<const float> wte = a.values("transformer.wte.weight");
  EXPECT_FLOAT_EQ(wte[0], 0.0262570307f);
  EXPECT_FLOAT_EQ(wte[1], 0.0303189307f);
}

}  // namespace
}  // namespace zs::exec
