#include "plan/deepspeed_estimators.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>

namespace zs::plan {
namespace {

// P and L are odd so that every floor() and every truncation below is visible.
constexpr std::int64_t kP = 1'000'000'001;
constexpr std::int64_t kL = 100'000'003;

DsEstimatorInputs inputs(std::int64_t gpus_per_node, std::int64_t nodes) {
  DsEstimatorInputs in;
  in.total_params = kP;
  in.largest_layer_params = kL;
  in.num_gpus_per_node = gpus_per_node;
  in.num_nodes = nodes;
  return in;
}

DsModelStatesBytes zero2(DsEstimatorInputs in, bool cpu_offload) {
  in.cpu_offload = cpu_offload;
  return estimate_zero2_model_states_bytes(in);
}

DsModelStatesBytes zero3(DsEstimatorInputs in, bool cpu_offload, bool cpu_offload_params,
                         bool zero_init) {
  in.cpu_offload = cpu_offload;
  in.cpu_offload_params = cpu_offload_params;
  in.zero_init = zero_init;
  return estimate_zero3_model_states_bytes(in);
}

void expect_bytes(const DsModelStatesBytes& got, Bytes gpu_bytes, Bytes cpu_bytes) {
  EXPECT_EQ(got.gpu_bytes, gpu_bytes);
  EXPECT_EQ(got.cpu_bytes, cpu_bytes);
}

// The rows of DeepSpeed's ZeRO-3 table, in its order: (offload_param, offload_optimizer) =
// (cpu, cpu), (none, cpu), (none, none), each with zero_init 1 then 0.
void expect_zero3_table(const DsEstimatorInputs& in,
                        const std::array<DsModelStatesBytes, 6>& want) {
  constexpr bool kRows[6][3] = {{true, true, true},   {true, true, false},  {true, false, true},
                                {true, false, false}, {false, false, true}, {false, false, false}};
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("row " + std::to_string(i));
    expect_bytes(zero3(in, kRows[i][0], kRows[i][1], kRows[i][2]), want[i].gpu_bytes,
                 want[i].cpu_bytes);
  }
}

TEST(DsEstimators, DefaultsAreDeepSpeeds) {
  const DsEstimatorInputs in;
  EXPECT_EQ(in.num_gpus_per_node, 1);
  EXPECT_EQ(in.num_nodes, 1);
  EXPECT_EQ(in.additional_buffer_factor, 1.5);
  EXPECT_TRUE(in.cpu_offload);
  EXPECT_TRUE(in.cpu_offload_params);
  EXPECT_TRUE(in.zero_init);
}

TEST(DsEstimators, Zero2OneNodeEightGpus) {
  const DsEstimatorInputs in = inputs(8, 1);  // N = 8
  // Offload: gpu = 2P = 2,000,000,002; cpu = P * max(4*8, 16) * 1.5 = 48P = 48,000,000,048.
  expect_bytes(zero2(in, true), 2'000'000'002, 48'000'000'048);
  // No offload: gpu = 2P + floor(18P/8) = 2,000,000,002 + floor(2,250,000,002.25)
  //   = 4,250,000,004; cpu = P * 4 * 8 * 1.5 = 48P = 48,000,000,048.
  expect_bytes(zero2(in, false), 4'250'000'004, 48'000'000'048);
}

TEST(DsEstimators, Zero2OneGpu) {
  const DsEstimatorInputs in = inputs(1, 1);  // N = 1
  // Offload: gpu = 2P; cpu = P * max(4, 16) * 1.5 = 24P = 24,000,000,024.
  expect_bytes(zero2(in, true), 2'000'000'002, 24'000'000'024);
  // No offload: gpu = 2P + 18P = 20P = 20,000,000,020; cpu = P * 4 * 1 * 1.5 = 6P.
  expect_bytes(zero2(in, false), 20'000'000'020, 6'000'000'006);
}

TEST(DsEstimators, Zero2OffloadCpuUsesTotalGpusAcrossNodes) {
  // 2 nodes x 4 GPUs, N = 8. Offload: cpu = P * max(4*8, 16) * 1.5 = 48P per node, although each
  // node has 4 GPUs (max(4*4, 16) would give 24P). No offload: gpu = 2P + floor(18P/8) as on one
  // node; cpu = P * 4 * 4 * 1.5 = 24P, which does use GPUs per node.
  expect_bytes(zero2(inputs(4, 2), true), 2'000'000'002, 48'000'000'048);
  expect_bytes(zero2(inputs(4, 2), false), 4'250'000'004, 24'000'000'024);
  // 4 nodes x 8 GPUs, N = 32: cpu = P * 128 * 1.5 = 192P = 192,000,000,192 per node.
  // No offload: gpu = 2P + floor(18,000,000,018/32 = 562,500,000.56) = 2,562,500,002.
  expect_bytes(zero2(inputs(8, 4), true), 2'000'000'002, 192'000'000'192);
  expect_bytes(zero2(inputs(8, 4), false), 2'562'500'002, 48'000'000'048);
}

TEST(DsEstimators, Zero3OneNodeEightGpusEveryCombination) {
  // N = 8, gf = 1/1 = 1.0, LL = 4L = 400,000,012.
  // Both offloaded: gpu = LL; cpu = P * 18 * 1.0 * 1.5 = 27P = 27,000,000,027 (zero_init), or
  //   P * max(4*8, 18*1.0) * 1.5 = 48P = 48,000,000,048.
  // Optimizer only: gpu = LL + floor(2P/8 = 250,000,000.25) = 650,000,012; cpu = P * 16 * 1.0 *
  //   1.5 = 24P = 24,000,000,024, or P * max(32, 16.0) * 1.5 = 48P.
  // No offload: gpu = LL + floor(18P/8 = 2,250,000,002.25) = 2,650,000,014; cpu = L * 4 * 8 * 1.5
  //   = 48L = 4,800,000,144, or P * 4 * 8 * 1.5 = 48P.
  expect_zero3_table(inputs(8, 1), {{{400'000'012, 27'000'000'027},
                                     {400'000'012, 48'000'000'048},
                                     {650'000'012, 24'000'000'024},
                                     {650'000'012, 48'000'000'048},
                                     {2'650'000'014, 4'800'000'144},
                                     {2'650'000'014, 48'000'000'048}}});
}

TEST(DsEstimators, Zero3IgnoresOffloadParamsWithoutOffloadOptimizer) {
  // DeepSpeed's no-offload branch never reads cpu_offload_params.
  const DsEstimatorInputs in = inputs(8, 1);
  expect_bytes(zero3(in, false, true, true), 2'650'000'014, 4'800'000'144);
  expect_bytes(zero3(in, false, true, false), 2'650'000'014, 48'000'000'048);
}

TEST(DsEstimators, Zero3OneGpu) {
  // N = 1, gf = 1.0, LL = 400,000,012.
  // Both offloaded: cpu = 27P either way, since max(4*1, 18*1.0) = 18 → P * 18 * 1.5 = 27P.
  // Optimizer only: gpu = LL + 2P = 400,000,012 + 2,000,000,002 = 2,400,000,014; cpu = 24P
  //   either way (max(4, 16.0) = 16).
  // No offload: gpu = LL + 18P = 400,000,012 + 18,000,000,018 = 18,400,000,030; cpu = L * 4 * 1.5
  //   = 6L = 600,000,018 (zero_init), or 6P = 6,000,000,006.
  expect_zero3_table(inputs(1, 1), {{{400'000'012, 27'000'000'027},
                                     {400'000'012, 27'000'000'027},
                                     {2'400'000'014, 24'000'000'024},
                                     {2'400'000'014, 24'000'000'024},
                                     {18'400'000'030, 600'000'018},
                                     {18'400'000'030, 6'000'000'006}}});
}

TEST(DsEstimators, Zero3TwoNodesFourGpus) {
  // N = 8, gf = 0.5, LL = 400,000,012.
  // Both offloaded: cpu = P * 18 * 0.5 * 1.5 = 13.5P = 13,500,000,013.5 → 13,500,000,013
  //   (zero_init), or max(4*4, 18*0.5) = 16 → 24P = 24,000,000,024.
  // Optimizer only: gpu = LL + floor(2P/8) = 650,000,012; cpu = P * 16 * 0.5 * 1.5 = 12P =
  //   12,000,000,012, or max(16, 8.0) = 16 → 24P.
  // No offload: gpu = LL + floor(18P/8) = 2,650,000,014; cpu = L * 4 * 4 * 1.5 = 24L =
  //   2,400,000,072, or 24P.
  expect_zero3_table(inputs(4, 2), {{{400'000'012, 13'500'000'013},
                                     {400'000'012, 24'000'000'024},
                                     {650'000'012, 12'000'000'012},
                                     {650'000'012, 24'000'000'024},
                                     {2'650'000'014, 2'400'000'072},
                                     {2'650'000'014, 24'000'000'024}}});
}

TEST(DsEstimators, Zero3ThreeNodesRoundsInPythonsOrder) {
  // gf = 1/3 is inexact: ((P * 16) * (1/3)) * 1.5 = 8,000,000,007.99... in doubles, so Python's
  // int() gives 8,000,000,007 where exact arithmetic (8P) gives 8,000,000,008.
  // gpu = LL + floor(2P/3 = 666,666,667.33) = 400,000,012 + 666,666,667 = 1,066,666,679.
  expect_bytes(zero3(inputs(1, 3), true, false, true), 1'066'666'679, 8'000'000'007);
  // ((P * 18) * (1/3)) * 1.5 happens to land on 9P = 9,000,000,009.
  expect_bytes(zero3(inputs(1, 3), true, true, true), 400'000'012, 9'000'000'009);
}

TEST(DsEstimators, CpuBytesTruncateAfterBufferFactor) {
  DsEstimatorInputs in = inputs(1, 1);
  in.additional_buffer_factor = 1.1;
  // ZeRO-2 offload: P * 16 * 1.1 = 17,600,000,017.6 → 17,600,000,017.
  expect_bytes(zero2(in, true), 2'000'000'002, 17'600'000'017);
  // ZeRO-3 both offloaded, zero_init: P * 18 * 1.0 * 1.1 = 19,800,000,019.8 → 19,800,000,019.
  expect_bytes(zero3(in, true, true, true), 400'000'012, 19'800'000'019);
  // GPU bytes never see the factor.
  in.additional_buffer_factor = 0;
  expect_bytes(zero2(in, false), 20'000'000'020, 0);
}

TEST(DsEstimators, FloorDivisionMatchesPythonAtTheParamLimit) {
  // kMaxEstimatorParams = floor((2^53 - 1) / 18) = 500,399,958,596,721, so 18P =
  // 9,007,199,254,740,978 < 2^53 and int(18P / 7) == 18P // 7 = 1,286,742,750,677,282.
  ASSERT_EQ(kMaxEstimatorParams, 500'399'958'596'721);
  DsEstimatorInputs in;
  in.total_params = kMaxEstimatorParams;
  in.largest_layer_params = kMaxEstimatorParams;
  in.num_gpus_per_node = 7;
  // ZeRO-2: gpu = 2P + 1,286,742,750,677,282 = 2,287,542,667,870,724. cpu = P * 4 * 7 * 1.5 =
  // 42P = 21,016,798,261,062,282 exactly, but the double is a multiple of 4 at that size and the
  // tie rounds to even: Python prints 21,016,798,261,062,280.
  expect_bytes(zero2(in, false), 2'287'542'667'870'724, 21'016'798'261'062'280);
  // ZeRO-3, no offload, no zero_init: gpu = 4P + 1,286,742,750,677,282 = 3,288,342,585,064,166.
  expect_bytes(zero3(in, false, false, false), 3'288'342'585'064'166, 21'016'798'261'062'280);
}

TEST(DsEstimators, LargestLayerBytesIsFourPerParam) {
  EXPECT_EQ(zero3_largest_layer_bytes(kL), 400'000'012);
  EXPECT_EQ(zero3_largest_layer_bytes(0), 0);
}

TEST(DsEstimators, RowFormatsGibWithTwoDecimals) {
  // 48,000,000,048 / 2^30 = 44.703...; 2,000,000,002 / 2^30 = 1.8626...
  EXPECT_EQ(format_ds_estimate_row({2'000'000'002, 48'000'000'048}, "x"),
            "   44.70GB |   1.86GB | x");
  EXPECT_EQ(format_ds_estimate_row({0, 0}, ""), "    0.00GB |   0.00GB | ");
}

// docs/code-docs/source/memory.rst (rewritten for the offload names by PR #1536), the cold call
// with total_params=2851e6 on 1 node x 8 GPUs. Offload: cpu = 48P = 136,848,000,000 B = 127.45
// GiB, gpu = 2P = 5,702,000,000 B = 5.31 GiB. No offload at HEAD: gpu = 2P + 18P/8 =
// 12,116,750,000 B = 11.28 GiB; the docs' 15.93 is the formula before PR #5099 (4P + 16P/8 =
// 17,106,000,000 B). Everything else in the docs' table still holds. The docs lost the trailing
// space of "cpu " that Python <= 3.10 prints.
TEST(DsEstimators, Zero2ColdReportMatchesDocsExceptPr5099) {
  DsEstimatorInputs in;
  in.total_params = 2'851'000'000;
  in.num_gpus_per_node = 8;
  EXPECT_EQ(zero2_all_cold_report(in),
            "Estimated memory needed for params, optim states and gradients for a:\n"
            "HW: Setup with 1 node, 8 GPUs per node.\n"
            "SW: Model with 2851M total params.\n"
            "  per CPU  |  per GPU |   Options\n"
            "  127.45GB |   5.31GB | offload_optimizer=cpu \n"
            "  127.45GB |  11.28GB | offload_optimizer=none\n");
}

// The same page's cold ZeRO-3 call (total_params=2851e6, largest_layer_params=32e6, 8 GPUs); the
// ZeRO-3 estimator is unchanged since 2021, so every number holds at HEAD. LL = 128,000,000.
//   71.69 = 18P * 1.5 = 76,977,000,000 B        0.12 = LL
//   127.45 = max(32, 18) * 1.5 * P               0.78 = LL + 2P/8 = 840,750,000 B
//   63.72 = 16P * 1.5 = 68,424,000,000 B         6.09 = LL + 18P/8 = 6,542,750,000 B
//   1.43 = 32e6 * 4 * 8 * 1.5 = 1,536,000,000 B
TEST(DsEstimators, Zero3ColdReportMatchesDocs) {
  DsEstimatorInputs in;
  in.total_params = 2'851'000'000;
  in.largest_layer_params = 32'000'000;
  in.num_gpus_per_node = 8;
  EXPECT_EQ(zero3_all_cold_report(in),
            "Estimated memory needed for params, optim states and gradients for a:\n"
            "HW: Setup with 1 node, 8 GPUs per node.\n"
            "SW: Model with 2851M total params, 32M largest layer params.\n"
            "  per CPU  |  per GPU |   Options\n"
            "   71.69GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=1\n"
            "  127.45GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=0\n"
            "   63.72GB |   0.78GB | offload_param=none, offload_optimizer=cpu , zero_init=1\n"
            "  127.45GB |   0.78GB | offload_param=none, offload_optimizer=cpu , zero_init=0\n"
            "    1.43GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=1\n"
            "  127.45GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=0\n");
}

// The docs' live t5-3b tables (PR #1536: ZeRO-2 127.48 / 5.31 / 15.93, ZeRO-3 71.71 / 0.12 ...).
// P = 2,851,598,336 and L = 32,899,072 (the 32128 x 1024 shared embedding) reproduce every
// number printed there, so we take them as the live counts. At HEAD only the ZeRO-2 no-offload
// GPU value moves: 2P + 18P/8 = 12,119,292,928 B = 11.29 GiB (was 6P = 15.93 GiB).
TEST(DsEstimators, LiveT5ThreeBillionNumbers) {
  DsEstimatorInputs in;
  in.total_params = 2'851'598'336;
  in.largest_layer_params = 32'899'072;
  in.num_gpus_per_node = 8;
  EXPECT_EQ(format_ds_estimate_row(zero2(in, true), ""), "  127.48GB |   5.31GB | ");
  EXPECT_EQ(format_ds_estimate_row(zero2(in, false), ""), "  127.48GB |  11.29GB | ");
  EXPECT_EQ(format_ds_estimate_row(zero3(in, true, true, true), ""), "   71.71GB |   0.12GB | ");
  EXPECT_EQ(format_ds_estimate_row(zero3(in, true, false, true), ""), "   63.74GB |   0.79GB | ");
  EXPECT_EQ(format_ds_estimate_row(zero3(in, false, false, true), ""), "    1.47GB |   6.10GB | ");
}

// memory.rst's hand example: t5-large (737.67M params, largest layer 32.90M) on 4 GPUs prints
// largest layer 125MB, case1 3291MB, case2 125MB, case3 477MB (bytes >> 20).
TEST(DsEstimators, T5LargeGpuExampleFromDocs) {
  DsEstimatorInputs in;
  in.total_params = 737'668'096;
  in.largest_layer_params = 32'899'072;
  in.num_gpus_per_node = 4;
  // LL = 131,596,288 → 125; + floor(18P/4) = 3,319,506,432 → 3,451,102,720 → 3291;
  // + floor(2P/4) = 368,834,048 → 500,430,336 → 477.
  EXPECT_EQ(zero3_largest_layer_bytes(in.largest_layer_params) >> 20, 125);
  EXPECT_EQ(zero3(in, false, false, true).gpu_bytes >> 20, 3291);
  EXPECT_EQ(zero3(in, true, true, true).gpu_bytes >> 20, 125);
  EXPECT_EQ(zero3(in, true, false, true).gpu_bytes >> 20, 477);
}

TEST(DsEstimators, ReportHeaderPluralsAndPython311Labels) {
  // 2 nodes x 4 GPUs; values from Zero3TwoNodesFourGpus: 13,500,000,013 B = 12.57 GiB, LL =
  // 400,000,012 B = 0.37 GiB, ..., 24L = 2,400,000,072 B = 2.24 GiB, 2,650,000,014 B = 2.47 GiB.
  const std::string report = zero3_all_cold_report(inputs(4, 2), DsEnumFormat::kPython311);
  EXPECT_EQ(report,
            "Estimated memory needed for params, optim states and gradients for a:\n"
            "HW: Setup with 2 nodes, 4 GPUs per node.\n"
            "SW: Model with 1000M total params, 100M largest layer params.\n"
            "  per CPU  |  per GPU |   Options\n"
            "   12.57GB |   0.37GB | offload_param=OffloadDeviceEnum.cpu, "
            "offload_optimizer=OffloadDeviceEnum.cpu, zero_init=1\n"
            "   22.35GB |   0.37GB | offload_param=OffloadDeviceEnum.cpu, "
            "offload_optimizer=OffloadDeviceEnum.cpu, zero_init=0\n"
            "   11.18GB |   0.61GB | offload_param=none, "
            "offload_optimizer=OffloadDeviceEnum.cpu, zero_init=1\n"
            "   22.35GB |   0.61GB | offload_param=none, "
            "offload_optimizer=OffloadDeviceEnum.cpu, zero_init=0\n"
            "    2.24GB |   2.47GB | offload_param=none, offload_optimizer=none, zero_init=1\n"
            "   22.35GB |   2.47GB | offload_param=none, offload_optimizer=none, zero_init=0\n");
  // One node, one GPU: singular nouns. 24P = 22.35 GiB, 2P = 1.86 GiB, 6P = 5.59, 20P = 18.63.
  EXPECT_EQ(zero2_all_cold_report(inputs(1, 1), DsEnumFormat::kPython311),
            "Estimated memory needed for params, optim states and gradients for a:\n"
            "HW: Setup with 1 node, 1 GPU per node.\n"
            "SW: Model with 1000M total params.\n"
            "  per CPU  |  per GPU |   Options\n"
            "   22.35GB |   1.86GB | offload_optimizer=OffloadDeviceEnum.cpu\n"
            "    5.59GB |  18.63GB | offload_optimizer=none\n");
}

TEST(DsEstimatorsDeathTest, RequiresAtLeastOneNode) {
  DsEstimatorInputs in = inputs(8, 0);
  EXPECT_DEATH(estimate_zero2_model_states_bytes(in), "num_nodes");
}

}  // namespace
}  // namespace zs::plan
