// Eager PyTorch kernels (sim/eager_kernels.h): what HF's modules launch, as recorded by
// scripts/measure_eager_kernels.py, and what pricing them does to a step.
#include "sim/eager_kernels.h"

#include <gtest/gtest.h>

#include "models/hf_config.h"
#include "plan/model_graph.h"
#include "tests/sim/sim_test_util.h"

namespace zs::sim {
namespace {

const models::Op& op_named(const plan::ModelGraph& g, const std::string& name) {
  for (const models::Op& op : g.ops) {
    if (op.name == name) return op;
  }
  ADD_FAILURE() << "no op " << name;
  return g.ops.front();
}

std::shared_ptr<const plan::ModelGraph> graph(const std::string& model, bool flash) {
  models::Workload w;
  w.micro_batch = 2;
  w.seq_len = 512;
  w.flash_attention = flash;
  auto spec = models::resolve_model(model);
  EXPECT_TRUE(spec.ok());
  auto g = plan::make_model_graph(*spec, w);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return *g;
}

TEST(EagerKernels, Gpt2sGeluNewIsEightKernelsForwardOverTheMlpActivation) {
  const auto g = graph("gpt2", /*flash=*/false);
  const models::Op& act = op_named(*g, "layers.0.mlp.act");
  const EagerWork e = eager_work(act, g->spec, g->workload).value();
  // 8 kernels of gelu_new plus the residual dropout (GPT-2's resid_pdrop is 0.1).
  EXPECT_EQ(e.fwd_kernels, 9);
  EXPECT_EQ(e.bwd_kernels, 14);
  // Far more traffic than one fused GELU (read x, write y: 2 x 2 bytes per element).
  const double t_i = 2.0 * 512 * g->spec.intermediate_size;
  EXPECT_GT(e.fwd_bytes, 8 * t_i);
  EXPECT_LT(act.cost.fwd_hbm_bytes, 5 * t_i);
}

TEST(EagerKernels, EagerAttentionPassesTheScoresSeveralTimesAndFlashDoesNot) {
  const auto eager = graph("gpt2", false);
  const auto flash = graph("gpt2", true);
  const double scores = 2.0 * 12 * 512 * 512;  // b * a * s * s
  const EagerWork e =
      eager_work(op_named(*eager, "layers.0.attn.core"), eager->spec, eager->workload).value();
  const EagerWork f =
      eager_work(op_named(*flash, "layers.0.attn.core"), flash->spec, flash->workload).value();
  EXPECT_GT(e.fwd_bytes, 2 * 5 * scores);  // scale, mask, softmax, dropout: 2-byte elements
  // Flash: only the copies, the residual dropout and the bias sums around the fused core.
  EXPECT_LT(f.fwd_bytes + f.bwd_bytes, 0.2 * (e.fwd_bytes + e.bwd_bytes));
}

TEST(EagerKernels, LlamasRmsNormUpcastsToFp32AndRotaryIsInsideAttention) {
  const auto g = graph("llama2-7b", true);
  const EagerWork norm =
      eager_work(op_named(*g, "layers.0.attn_norm"), g->spec, g->workload).value();
  EXPECT_EQ(norm.fwd_kernels, 8);
  const double t_h = 2.0 * 512 * g->spec.hidden_size;
  EXPECT_GT(norm.fwd_bytes, 28 * t_h);  // fp32 copies of x: 4-byte reads and writes
  const EagerWork rotary =
      eager_work(op_named(*g, "layers.0.attn.rotary"), g->spec, g->workload).value();
  EXPECT_EQ(rotary.fwd_kernels, 0);
  EXPECT_EQ(rotary.fwd_bytes, 0);
  EXPECT_FALSE(eager_work(op_named(*g, "lm_head"), g->spec, g->workload).has_value());
}

TEST(EagerKernels, ParsesTheStyleAndNamesTheFlagWhenItCannot) {
  EXPECT_EQ(parse_kernel_style("--kernels", "eager").value(), KernelStyle::kEager);
  EXPECT_EQ(parse_kernel_style("--kernels", "fused").value(), KernelStyle::kFused);
  const auto bad = parse_kernel_style("--kernels", "compiled");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("--kernels: \"compiled\""), std::string::npos);
  EXPECT_NE(bad.status().message().find("eager or fused"), std::string::npos);
}

TEST(EagerKernels, AnEagerStepIsSlowerAndLaunchesMoreKernelsThanAFusedOne) {
  const std::string config =
      R"({"train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": true},
          "zero_optimization": {"stage": 1}})";
  sim::SimSetup s;
  s.seq_len = 1024;
  const auto eager = sim::simulate_text(config, s);
  s.kernels = KernelStyle::kFused;
  const auto fused = sim::simulate_text(config, s);
  EXPECT_GT(eager.time.step_s, 1.1 * fused.time.step_s);
  EXPECT_GT(eager.time.breakdown.compute_s, fused.time.breakdown.compute_s);
  const auto& em = eager.time.priced_model->times;
  const auto& fm = fused.time.priced_model->times;
  // 19 forward kernels per GPT-2 layer against 10 (one per op).
  EXPECT_GT(em.fwd_prefix_kernels.back(), 1.8 * fm.fwd_prefix_kernels.back());
}

}  // namespace
}  // namespace zs::sim
