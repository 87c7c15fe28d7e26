// Step-time behaviour that DeepSpeed users rely on, through the whole simulate() path.
#include "sim/step_time.h"

#include <gtest/gtest.h>

#include "tests/sim/sim_test_util.h"

namespace zs::sim {
namespace {

std::string zero(int stage, const std::string& extra, int micro_batch = 4, int accum = 1) {
  return R"({"train_micro_batch_size_per_gpu": )" + std::to_string(micro_batch) +
         R"(, "gradient_accumulation_steps": )" + std::to_string(accum) +
         R"(, "bf16": {"enabled": true}, "zero_optimization": {"stage": )" + std::to_string(stage) +
         (extra.empty() ? "" : ", " + extra) + "}}";
}

// Two DGX A100 nodes: enough NIC traffic for communication to matter.
SimSetup two_nodes(const std::string& model = "gpt2-1.5b") {
  SimSetup s;
  s.model = model;
  s.nodes = 2;
  s.seq_len = 1024;
  return s;
}

TEST(StepTime, PartsSumToTheStep) {
  const auto r = simulate_text(zero(2, R"("overlap_comm": true)", 4, 2), two_nodes());
  const TimeBreakdown& b = r.time.breakdown;
  EXPECT_GT(r.time.step_s, 0);
  EXPECT_NEAR(b.compute_s + b.optimizer_s + b.exposed_comm_s + b.exposed_offload_s + b.other_s,
              r.time.step_s, 1e-6 * r.time.step_s);
  EXPECT_GT(r.time.mfu, 0.05);
  EXPECT_LT(r.time.mfu, 0.9);
  EXPECT_NEAR(r.time.samples_per_s * r.time.step_s, static_cast<double>(r.train_batch_size), 1e-6);
}

// Where the GPU has the work to hide the host's (micro-batches of 4 and 8 here). At micro-batch 1
// the host bounds the step, and overlap_comm's synchronize at the end of backward
// (independent_gradient_partition_epilogue) leaves the step's Python after it exposed: there it
// may cost a few percent, as host_time_test says.
TEST(StepTime, OverlapCommIsNeverSlowerAndStrictlyFasterWhenCommunicationMatters) {
  for (int stage : {1, 2, 3}) {
    for (int mb : {4, 8}) {
      const auto on = simulate_text(zero(stage, R"("overlap_comm": true)", mb, 2), two_nodes());
      const auto off = simulate_text(zero(stage, R"("overlap_comm": false)", mb, 2), two_nodes());
      EXPECT_LE(on.time.step_s, off.time.step_s * (1 + 1e-9)) << "stage " << stage << " mb " << mb;
    }
  }
  // Stage 2 across two nodes is communication-heavy.
  const auto on = simulate_text(zero(2, R"("overlap_comm": true)", 4, 2), two_nodes());
  const auto off = simulate_text(zero(2, R"("overlap_comm": false)", 4, 2), two_nodes());
  EXPECT_GT(off.time.breakdown.exposed_comm_s, 0.1 * off.time.step_s);
  EXPECT_LT(on.time.step_s, 0.98 * off.time.step_s);
  EXPECT_LT(on.time.breakdown.exposed_comm_s, 0.7 * off.time.breakdown.exposed_comm_s);
  EXPECT_LT(on.time.breakdown.exposed_comm_s, off.time.breakdown.exposed_comm_s);
}

TEST(StepTime, ReduceBucketSizeHasAnInteriorMinimumWhenCommunicationBound) {
  // GPT-2 350M on two nodes, micro-batch 4. Tiny buckets pay NCCL's latency and DeepSpeed's
  // Python (reduce_ipg_grads, about 200 us on the reference host) per bucket; a bucket as large
  // as the model reduces everything after backward. At micro-batch 1 the host's per-step work
  // hides the reduction whatever the bucket.
  const double sizes[] = {2e4, 2e5, 2e6, 2e7, 2e8, 2e9};
  std::vector<double> t;
  for (double b : sizes) {
    char extra[160];
    std::snprintf(
        extra, sizeof extra,
        R"("overlap_comm": true, "reduce_bucket_size": %.0f, "allgather_bucket_size": %.0f)", b, b);
    t.push_back(simulate_text(zero(2, extra, 4, 1), two_nodes("gpt2-medium")).time.step_s);
  }
  const auto best = std::min_element(t.begin(), t.end()) - t.begin();
  EXPECT_GT(best, 0) << "tiny buckets should be latency bound";
  EXPECT_LT(best, static_cast<long>(t.size()) - 1) << "huge buckets should expose the reduction";
  EXPECT_GT(t.front(), 1.05 * t[best]);
  EXPECT_GT(t.back(), 1.02 * t[best]);
}

// Bus bytes (what each rank sends) of the collectives in the segment named `segment`.
double bus_bytes(const sim::SimulationResult& r, const std::string& segment) {
  const plan::Plan& p = r.built.plan;
  for (const plan::Segment& s : p.segments) {
    if (s.name != segment) continue;
    double sum = 0;
    for (int i = s.first_op; i < s.end_op; ++i) {
      if (const auto* c = std::get_if<plan::CollectiveWork>(&p.ops[i].work)) {
        sum += kernels::bus_factor(c->kind, c->group_size) * static_cast<double>(c->bytes);
      }
    }
    return sum;
  }
  ADD_FAILURE() << "no segment " << segment;
  return 0;
}

TEST(StepTime, StageThreeMovesOneAndAHalfTimesTheBytesOfStageTwoPerMicroStep) {
  // Llama: untied embeddings, so no parameter is gathered twice per pass (GPT-2's tied wte is:
  // at the embedding and again at the LM head).
  SimSetup s = two_nodes("llama-2-7b");
  s.seq_len = 512;
  const auto z2 = simulate_text(zero(2, R"("overlap_comm": true)", 2, 3), s);
  // Without prefetching every module gathers its parameters on demand in forward and again in
  // backward (the oracle's stage3_prefetch_bucket_size 0 runs); with it, DeepSpeed's prefetcher
  // keeps what it fetched for the backward and moves less (plan/schedule_stage3.cc).
  const auto z3 = simulate_text(zero(3,
                                     R"("stage3_param_persistence_threshold": 0,
                                        "stage3_max_reuse_distance": 0,
                                        "stage3_prefetch_bucket_size": 0)",
                                     2, 3),
                                s);
  // Stage 2: one all-reduce of the gradients (2(n-1)/n Psi). Stage 3: parameters all-gathered
  // in forward and again in backward, gradients reduce-scattered (3 x (n-1)/n Psi).
  const double b2 = bus_bytes(z2, "micro_step.1");
  const double b3 = bus_bytes(z3, "micro_step.0-2");
  EXPECT_NEAR(b3 / b2, 1.5, 0.015);
  EXPECT_GT(z3.time.comm_busy_s, z2.time.comm_busy_s);
}

TEST(StepTime, CpuOffloadStepGrowsWithModelSizeAtTheCpuAdamRate) {
  const std::string cfg =
      zero(2, R"("offload_optimizer": {"device": "cpu", "pin_memory": true})", 2, 1);
  SimSetup s;
  s.seq_len = 1024;
  std::vector<double> step, adam, expected;
  for (const char* m : {"gpt2-350m", "gpt2-774m", "gpt2-1.5b"}) {
    s.model = m;
    const auto r = simulate_text(cfg, s);
    step.push_back(r.time.step_s);
    adam.push_back(r.time.cpu_optimizer_s);
    const double part = static_cast<double>(r.built.layout.partition);
    // The unscale pass (8 bytes per element), CPU Adam (28), the cast to bf16 (4 + 2).
    expected.push_back(part * (8 + 28 + 4 + 2) / r.time.cpu_adam_bytes_per_s);
  }
  for (std::size_t i = 0; i < step.size(); ++i) EXPECT_NEAR(adam[i], expected[i], 1e-6 * adam[i]);
  for (std::size_t i = 1; i < step.size(); ++i) {
    EXPECT_GT(step[i], step[i - 1]);
    // The CPU step is on the critical path: the step grows at least by its growth.
    EXPECT_GE(step[i] - step[i - 1], 0.95 * (adam[i] - adam[i - 1]));
  }
}

TEST(StepTime, Fp16SimulatesTheSkippedStepToo) {
  const auto r = simulate_text(
      R"({"train_micro_batch_size_per_gpu": 2, "fp16": {"enabled": true},
          "zero_optimization": {"stage": 2}})");
  EXPECT_TRUE(r.time.overflow_possible);
  EXPECT_LT(r.time.overflow_step_s, r.time.step_s);
  EXPECT_GT(r.time.overflow_step_s, 0);
}

TEST(StepTime, EachHalfPrecisionUsesItsOwnPeak) {
  // A custom cluster's fp16_flops_per_s was ignored whenever bf16_flops_per_s was set.
  configs::GpuSpec gpu;
  gpu.fp32_flops_per_s = 1e13;
  gpu.fp16_flops_per_s = 1e14;
  gpu.bf16_flops_per_s = 2e14;
  EXPECT_EQ(peak_flops(gpu, configs::Precision::kFp16), 1e14);
  EXPECT_EQ(peak_flops(gpu, configs::Precision::kBf16), 2e14);
  EXPECT_EQ(peak_flops(gpu, configs::Precision::kFp32), 1e13);
  gpu.fp16_flops_per_s.reset();  // a GPU listing one 16-bit rate: the other falls back to it
  EXPECT_EQ(peak_flops(gpu, configs::Precision::kFp16), 2e14);
  gpu.bf16_flops_per_s.reset();
  EXPECT_EQ(peak_flops(gpu, configs::Precision::kBf16), 1e13);

  // End to end: the same step in fp16 on a GPU whose fp16 rate is half its bf16 rate is slower,
  // and its MFU is against the fp16 peak.
  auto cluster = configs::make_cluster("a100-80gb", 1, 8);
  ASSERT_TRUE(cluster.ok());
  cluster->gpu.fp16_flops_per_s = *cluster->gpu.bf16_flops_per_s / 2;
  const auto run = [&](const std::string& precision) {
    const std::string path =
        ::testing::TempDir() + "zs_peak_" + std::to_string(getpid()) + "_" + precision + ".json";
    std::ofstream(path) << R"({"train_micro_batch_size_per_gpu": 8, ")" + precision +
                               R"(": {"enabled": true}, "zero_optimization": {"stage": 2}})";
    SimulationRequest r;
    r.config_path = path;
    r.model = *models::resolve_model("gpt2");
    r.cluster = *cluster;
    auto out = simulate(r);
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? out->time : StepTime{};
  };
  const StepTime bf16 = run("bf16"), fp16 = run("fp16");
  EXPECT_GT(fp16.breakdown.compute_s, 1.3 * bf16.breakdown.compute_s);
  EXPECT_NEAR(fp16.mfu, fp16.model_flops / fp16.step_s / *cluster->gpu.fp16_flops_per_s, 1e-12);
}

// HF GPT-2's 50257-word vocabulary puts the LM head's GEMMs off the 16-byte grid; nanoGPT's
// padding to 50304 adds 47 rows of work and is faster (cost_profile.cc cites the measurement).
TEST(StepTime, AVocabularyOffTheSixteenByteGridSlowsTheLmHeadAndIsExplained) {
  auto with_vocab = [](std::int64_t vocab) {
    SimSetup s;
    auto spec = models::resolve_model("gpt2");
    EXPECT_TRUE(spec.ok());
    s.spec = *spec;
    s.spec->vocab_size = vocab;
    s.gpus_per_node = 1;
    // Micro-batch 16: at 4 the one GPU waits for DeepSpeed's Python, which hides the GEMMs.
    return simulate_text(zero(0, "", 16), s);
  };
  const auto odd = with_vocab(50257);
  const auto padded = with_vocab(50304);
  EXPECT_GT(odd.time.step_s, 1.1 * padded.time.step_s);
  EXPECT_NE(odd.time.bottleneck.find("lm_head: 16384 x 50257 x 768"), std::string::npos)
      << odd.time.bottleneck;
  EXPECT_NE(odd.time.bottleneck.find("50304"), std::string::npos);
  EXPECT_EQ(padded.time.bottleneck.find("alignment"), std::string::npos) << padded.time.bottleneck;
  EXPECT_EQ(padded.time.priced_model->times.unaligned_extra_s, 0);
  EXPECT_GT(odd.time.priced_model->times.unaligned_extra_s, 0);
}

TEST(StepTime, AStragglerStretchesEveryCollective) {
  const std::string path = ::testing::TempDir() + "zs_straggler.json";
  std::ofstream(path) << zero(2, R"("overlap_comm": true)", 1, 2);
  sim::SimulationRequest r;
  r.config_path = path;
  r.model = *models::resolve_model("gpt2");
  r.cluster = *configs::make_cluster("a100-80gb", 2, 8);
  r.seq_len = 1024;
  const auto normal = sim::simulate(r);
  r.collective_slowdown = 2.0;
  const auto slow = sim::simulate(r);
  ASSERT_TRUE(normal.ok() && slow.ok());
  // Every collective's latency and transfer doubles (how much busy time that makes depends
  // on how concurrent collectives then share the link); nothing else changes.
  const plan::Plan& plan = normal->built.plan;
  int collectives = 0;
  for (std::size_t i = 0; i < plan.ops.size(); ++i) {
    const OpCost& a = normal->time.priced.costs[i];
    const OpCost& b = slow->time.priced.costs[i];
    const bool collective = std::holds_alternative<plan::CollectiveWork>(plan.ops[i].work);
    collectives += collective;
    EXPECT_DOUBLE_EQ(b.fixed_s, (collective ? 2 : 1) * a.fixed_s) << i;
    EXPECT_DOUBLE_EQ(b.link_amount, (collective ? 2 : 1) * a.link_amount) << i;
    EXPECT_DOUBLE_EQ(b.host_s, a.host_s);
  }
  EXPECT_GE(collectives, 4);
  EXPECT_GT(slow->time.comm_busy_s, 1.3 * normal->time.comm_busy_s);
  EXPECT_GT(slow->time.step_s, normal->time.step_s);
}

// Stage 3 with a tiny reduce bucket: the host's round trips before fetches and reductions
// overlap the ends of ops on other streams (once a check failure in the engine's time order).
TEST(StepTime, StageThreeWithManySmallReductionsSimulates) {
  SimSetup one_node = two_nodes("gpt2-xl");
  one_node.nodes = 1;
  const auto r =
      simulate_text(zero(3, R"("overlap_comm": true, "reduce_bucket_size": 1e6)", 1, 1), one_node);
  EXPECT_GT(r.time.step_s, 0);
}

TEST(StepTime, IdenticalInputsGiveIdenticalResults) {
  const auto a = simulate_text(zero(3, "", 2, 4), two_nodes("gpt2"));
  const auto b = simulate_text(zero(3, "", 2, 4), two_nodes("gpt2"));
  EXPECT_EQ(a.time.timeline.step_ns, b.time.timeline.step_ns);
  EXPECT_EQ(a.time.bottleneck, b.time.bottleneck);
}

// What a sweep shares and skips (a shared model graph and kernel pricing, no op names) must not
// change a single predicted number.
TEST(StepTime, SweepModeGivesTheSameNumbers) {
  for (const std::string& config :
       {zero(3, R"("stage3_prefetch_bucket_size": 2e7, "reduce_bucket_size": 3e7)", 2, 4),
        zero(2, R"("overlap_comm": true)", 1, 2),
        zero(3, R"("offload_optimizer": {"device": "cpu"})", 1, 2)}) {
    const std::string path = ::testing::TempDir() + "zs_sweep_mode.json";
    std::ofstream(path) << config;
    sim::SimulationRequest r;
    r.config_path = path;
    r.model = *models::resolve_model("gpt2");
    r.cluster = *configs::make_cluster("a100-80gb", 2, 8);
    r.seq_len = 1024;
    const auto full = sim::simulate(r);
    ASSERT_TRUE(full.ok()) << full.status().message();
    r.graph = full->built.layout.graph;
    r.priced_model = full->time.priced_model;
    r.op_names = false;
    const auto sweep = sim::simulate(r);
    ASSERT_TRUE(sweep.ok()) << sweep.status().message();
    EXPECT_EQ(sweep->time.priced_model, full->time.priced_model);  // priced once
    EXPECT_TRUE(sweep->built.plan.names.empty());
    EXPECT_EQ(sweep->built.plan.ops.size(), full->built.plan.ops.size());
    EXPECT_EQ(sweep->time.timeline.step_ns, full->time.timeline.step_ns) << config;
    EXPECT_EQ(sweep->time.breakdown.exposed_comm_s, full->time.breakdown.exposed_comm_s);
    EXPECT_EQ(sweep->time.breakdown.compute_s, full->time.breakdown.compute_s);
    EXPECT_EQ(sweep->memory.gpu_peak_bytes, full->memory.gpu_peak_bytes);
    EXPECT_EQ(sweep->memory.host_peak_bytes, full->memory.host_peak_bytes);
    EXPECT_EQ(sweep->memory.peak_op, full->memory.peak_op);
  }
}

// The bottleneck's advice names only knobs the config has not already set: no "flash attention"
// when attention is fused already, no "fewer recomputed layers" without checkpointing.
TEST(StepTime, ComputeBoundAdviceNamesOnlyWhatIsNotAlreadyOn) {
  SimSetup s;
  s.gpus_per_node = 1;
  const auto flash = simulate_text(zero(0, "", 16), s);
  ASSERT_EQ(flash.time.bottleneck.rfind("Compute-bound", 0), 0u) << flash.time.bottleneck;
  EXPECT_EQ(flash.time.bottleneck.find("flash"), std::string::npos) << flash.time.bottleneck;
  EXPECT_EQ(flash.time.bottleneck.find("recomputed"), std::string::npos);
  s.flash = false;
  s.checkpointing = true;
  const auto eager = simulate_text(zero(0, "", 16), s);
  ASSERT_EQ(eager.time.bottleneck.rfind("Compute-bound", 0), 0u) << eager.time.bottleneck;
  EXPECT_NE(eager.time.bottleneck.find("fused (flash) attention"), std::string::npos);
  EXPECT_NE(eager.time.bottleneck.find("fewer recomputed layers"), std::string::npos);
}

}  // namespace
}  // namespace zs::sim
