// Directional behaviour of DeepSpeed's memory that the model must reproduce.
#include <gtest/gtest.h>

#include "models/activations.h"
#include "models/zoo.h"
#include "tests/plan/plan_test_util.h"

namespace zs::plan {
namespace {

std::string config(int stage, std::int64_t bucket, bool overlap, int micro = 4, int accum = 1,
                   const std::string& extra = "") {
  return R"({"train_micro_batch_size_per_gpu": )" + std::to_string(micro) +
         R"(, "gradient_accumulation_steps": )" + std::to_string(accum) +
         R"(, "bf16": {"enabled": true}, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
             "zero_optimization": {"stage": )" +
         std::to_string(stage) + R"(, "reduce_bucket_size": )" + std::to_string(bucket) +
         R"(, "overlap_comm": )" + (overlap ? "true" : "false") + extra + "}}";
}

PlanSetup llama() {
  PlanSetup s;
  s.model = "llama2-7b";
  s.seq_len = 2048;
  return s;
}

// The IPG buffers (k x reduce_bucket_size x 2 bytes) are live at the backward peak of stages
// 1 and 2 (allocated at the first gradient hook, stage_1_and_2.py setup_buckets), so doubling
// the bucket raises the peak by exactly their size, as long as no parameter crosses the bucket
// size in between (larger ones are reduced from their own gradient tensor: Llama-2 7B's largest
// is 131M elements, under both sizes here).
TEST(Behaviour, DoublingTheBucketRaisesTheStage12PeakByTheIpgBuffers) {
  const std::int64_t bucket = 200'000'000;
  for (int stage : {1, 2}) {
    for (bool overlap : {false, true}) {
      const auto small = plan_text(config(stage, bucket, overlap), llama());
      const auto large = plan_text(config(stage, 2 * bucket, overlap), llama());
      const Bytes k = overlap ? 2 : 1;
      EXPECT_EQ(small.memory.peak_phase, Phase::kBackward) << stage;
      EXPECT_EQ(large.memory.gpu_peak_bytes - small.memory.gpu_peak_bytes, k * bucket * 2)
          << "stage " << stage << " overlap " << overlap;
    }
  }
}

TEST(Behaviour, OverlapCommDoublesTheIpgBuffers) {
  const std::int64_t bucket = 200'000'000;
  for (int stage : {1, 2}) {
    const auto off = plan_text(config(stage, bucket, false), llama());
    const auto on = plan_text(config(stage, bucket, true), llama());
    EXPECT_EQ(off.memory.gpu_at_peak[Category::kBuffers], bucket * 2) << stage;
    EXPECT_EQ(on.memory.gpu_at_peak[Category::kBuffers], 2 * bucket * 2) << stage;
  }
}

// Where the IPG buffers are allocated decides whether the backward peak holds them. GPT-2 ties
// the LM head to the embedding, whose gradient hook fires last, so from DeepSpeed 0.18.3 (IPG
// buffers at the first gradient hook, after the LM head's backward, where the peak is) the bucket
// size and overlap_comm leave the peak alone; before it (backward_prologue allocated them ahead
// of loss.backward()) the peak grows by k x reduce_bucket_size x 2 bytes.
TEST(Behaviour, TheIpgBuffersJoinGpt2sBackwardPeakOnlyBeforeDeepSpeed0183) {
  PlanSetup s;
  s.model = "gpt2-medium";
  const std::int64_t small_bucket = 10'000'000, large_bucket = 500'000'000;
  for (const auto& [version, in_peak] :
       {std::pair<configs::DsVersion, bool>{{0, 18, 2}, true}, {{0, 19, 6}, false}}) {
    s.version = version;
    for (bool overlap : {false, true}) {
      const auto small = plan_text(config(2, small_bucket, overlap), s);
      const auto large = plan_text(config(2, large_bucket, overlap), s);
      const Bytes k = overlap ? 2 : 1;
      EXPECT_EQ(large.memory.peak_phase, Phase::kBackward);
      EXPECT_EQ(large.memory.gpu_peak_bytes - small.memory.gpu_peak_bytes,
                in_peak ? k * (large_bucket - small_bucket) * 2 : 0)
          << version.str() << " overlap " << overlap;
      EXPECT_EQ(large.memory.gpu_at_peak[Category::kBuffers], in_peak ? k * large_bucket * 2 : 0)
          << version.str() << " overlap " << overlap;
    }
  }
}

// deepspeedai/DeepSpeedExamples#336: ZeRO-2 can peak above ZeRO-1 when activations dominate.
// Both allocate their IPG buffers at the first gradient hook (at 0.19.6 stage 1 does too), but
// ZeRO-2 reduces during backward and the owner of the last partition allocates its
// grads_in_partition at the first bucket, while nearly every activation is still live; ZeRO-1
// without overlap_comm reduces after backward. (With overlap_comm and one micro-step stage 1
// reduces in the hooks as well and the two peak alike; with accumulation stage 1's full
// gradients make it the larger.)
TEST(Behaviour, Stage2CanPeakAboveStage1WhenActivationsDominate) {
  PlanSetup s = llama();
  s.seq_len = 4096;
  s.flash = false;  // eager attention: a layer's backward working set dominates
  const auto z1 = plan_text(config(1, 100'000'000, false, 1), s);
  const auto z2 = plan_text(config(2, 100'000'000, false, 1), s);
  EXPECT_GT(z2.memory.gpu_at_peak[Category::kActivations],
            4 * z2.memory.gpu_at_peak[Category::kGrads]);
  EXPECT_EQ(z2.memory.peak_phase, Phase::kBackward);
  EXPECT_GT(z2.memory.gpu_peak_bytes, z1.memory.gpu_peak_bytes);
  // The difference is the partition gradient stage 2 holds where stage 1 holds full gradients.
  EXPECT_GT(z2.memory.gpu_at_peak[Category::kGrads], z1.memory.gpu_at_peak[Category::kGrads]);
}

TEST(Behaviour, OptimizerOffloadMovesStatesToTheHost) {
  for (int stage : {1, 2, 3}) {
    const auto gpu = plan_text(config(stage, 200'000'000, true), llama());
    const auto cpu = plan_text(
        config(stage, 200'000'000, true, 4, 1, R"(, "offload_optimizer": {"device": "cpu"})"),
        llama());
    EXPECT_GT(gpu.memory.gpu_at_peak[Category::kOptimizerStates], 0) << stage;
    EXPECT_EQ(cpu.memory.gpu_at_peak[Category::kOptimizerStates], 0) << stage;
    EXPECT_EQ(gpu.memory.host_peak_bytes, 0) << stage;
    // 8 ranks' fp32 master and Adam states on the node's host.
    EXPECT_GE(cpu.memory.host_at_peak[Category::kOptimizerStates], cpu.params * 12 * 99 / 100)
        << stage;
    EXPECT_LT(cpu.memory.gpu_peak_bytes, gpu.memory.gpu_peak_bytes) << stage;
  }
}

// stage3_param_persistence_threshold above every tensor's size keeps every parameter whole on
// every rank (the maintainers' way to make stage 3 behave like stage 2, DeepSpeed#6876).
TEST(Behaviour, PersistenceAboveTheModelSizeKeepsFullParametersInStage3) {
  PlanSetup s;
  const auto partitioned = plan_text(config(3, 50'000'000, true), s);
  const auto persistent = plan_text(
      config(3, 50'000'000, true, 4, 1, R"(, "stage3_param_persistence_threshold": 1e9)"), s);
  const Bytes full = persistent.params * 2;
  auto resident = [](const PlannedText& r) {  // parameters held between modules
    Bytes total = 0;
    for (const Buffer& b : r.built.plan.buffers) {
      if (b.persistent && b.category == Category::kParams) total += b.bytes;
    }
    return total;
  };
  auto fetches = [](const PlannedText& r) {  // all-gathers in the micro-steps
    int n = 0;
    for (int i = 0; i < static_cast<int>(r.built.plan.ops.size()); ++i) {
      const auto* c = std::get_if<CollectiveWork>(&r.built.plan.ops[i].work);
      n += c != nullptr && c->kind == CollectiveKind::kAllGather &&
           r.built.plan.op_name(i).rfind("mb", 0) == 0;
    }
    return n;
  };
  EXPECT_GE(resident(persistent), full);
  EXPECT_GE(persistent.memory.gpu_at_peak[Category::kParams], full);
  EXPECT_EQ(fetches(persistent), 0);
  EXPECT_LT(resident(partitioned), full / 4);  // 1/8 of each tensor, plus small ones whole
  EXPECT_GT(fetches(partitioned), 0);
}

// Full activation checkpointing keeps each layer's input plus, during backward, one layer's
// recomputed activations (Korthikanti et al. 2022, section 5).
TEST(Behaviour, CheckpointingCutsActivationsToLayerInputsPlusOneLayer) {
  PlanSetup plain = llama();
  PlanSetup ckpt = llama();
  ckpt.checkpointing = true;
  const auto a = plan_text(config(2, 200'000'000, true), plain);
  const auto b = plan_text(config(2, 200'000'000, true), ckpt);
  const auto spec = models::zoo_model("llama2-7b");
  const models::ActivationSummary sum =
      models::activation_summary(*spec, models::Workload{4, 2048, 2, true});
  const Bytes ckpt_act = b.memory.gpu_at_peak[Category::kActivations];
  EXPECT_LT(ckpt_act, a.memory.gpu_at_peak[Category::kActivations] / 4);
  EXPECT_GE(ckpt_act, 32 * sum.checkpoint_per_layer_bytes);
  EXPECT_LE(ckpt_act, 32 * sum.checkpoint_per_layer_bytes + sum.per_layer_bytes +
                          sum.non_layer_bytes + sum.logits_bytes + 2 * sum.per_layer_bytes);
  // Without checkpointing the peak holds every layer's activations.
  EXPECT_GE(a.memory.gpu_at_peak[Category::kActivations], 32 * sum.per_layer_bytes);
}

TEST(Behaviour, Stage2AccumulationKeepsTwoPartitionGradientsInLaterMicroSteps) {
  const auto one = plan_text(config(2, 200'000'000, true, 4, 1), llama());
  const auto four = plan_text(config(2, 200'000'000, true, 4, 4), llama());
  const Bytes s = one.built.layout.owned_full * 2;
  EXPECT_EQ(four.memory.gpu_at_peak[Category::kGrads] - one.memory.gpu_at_peak[Category::kGrads],
            s);
}

}  // namespace
}  // namespace zs::plan
