#include "kernels/cuda/pack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "exec/collective_buffer.h"
#include "tests/kernels_cuda/cuda_test_util.h"

namespace zs::kernels::cuda {
namespace {

using test_util::CudaTest;
using test_util::DeviceBuffer;

// Tolerance: none. Both sides multiply in fp32 and round to nearest even once (kernels/cpu/dtype.h
// matches CUDA's casts bit for bit), so the device's buffers and tensors equal the CPU reference
// (exec/collective_buffer.h pack and unpack) to the bit.

// A buffer of 3 blocks of 40 positions over a flat tensor of 200 elements: runs of uneven
// lengths in each block, out of flat order, padding between and after them (ZeRO-3's rank
// pieces look like this), and one run longer than a block of threads.
exec::BufferMap test_map() {
  exec::BufferMap m;
  m.elems = 3 * 40 + 300;
  m.block_elems = 40;
  m.runs = {{0, 150, 7},  {7, 3, 20},   {30, 60, 9}, {40, 157, 7},   {47, 23, 20},
            {80, 164, 6}, {86, 43, 17}, {120, 0, 0}, {121, 200, 299}};
  return m;
}
constexpr std::int64_t kFlat = 500;

std::vector<PackRun> pack_runs_of(const exec::BufferMap& m) {
  std::vector<PackRun> out;
  for (const exec::BufferRun& r : m.runs) out.push_back({r.pos, r.flat, r.n});
  return out;
}

struct Dtype {
  plan::Dtype plan;
  ElemType elem;
  std::int64_t size;
};
const Dtype kDtypes[] = {{plan::Dtype::kFp32, ElemType::kF32, 4},
                         {plan::Dtype::kBf16, ElemType::kBf16, 2},
                         {plan::Dtype::kFp16, ElemType::kF16, 2}};

class PackTest : public CudaTest {};

TEST_F(PackTest, TakesGradientsIntoTheBufferAsTheCpuPacks) {
  const exec::BufferMap m = test_map();
  const std::vector<PackRun> runs = pack_runs_of(m);
  DeviceBuffer<PackRun> d_runs(runs);
  const std::vector<float> grads = test_util::random_normal(kFlat, 7);
  for (const Dtype& t : kDtypes) {
    for (float scale : {1.0f, 0.25f, 1.0f / 3.0f}) {
      SCOPED_TRACE(std::string(plan::dtype_name(t.plan)) + " scale " + std::to_string(scale));
      std::vector<std::byte> want(static_cast<std::size_t>(m.elems * t.size), std::byte{0x5a});
      exec::pack(m, grads, scale, t.plan, 0, m.elems, want.data());
      std::vector<float> want_grads = grads;
      for (const exec::BufferRun& r : m.runs) {
        for (std::int64_t i = 0; i < r.n; ++i) want_grads[r.flat + i] = 0.0f;
      }

      DeviceBuffer<float> d_grads(grads);
      std::vector<std::byte> poison(want.size(), std::byte{0x5a});
      DeviceBuffer<std::byte> d_buffer(poison);
      pack_runs(d_runs.get(), static_cast<std::int64_t>(runs.size()), d_grads.get(), ElemType::kF32,
                scale, /*take=*/true, 0, m.elems, d_buffer.get(), t.elem, stream_);
      sync();
      EXPECT_EQ(d_buffer.download(), want);
      EXPECT_EQ(d_grads.download(), want_grads);
    }
  }
}

TEST_F(PackTest, AddsABlockOfTheBufferIntoTheReducedGradientsAsTheCpuUnpacks) {
  const exec::BufferMap m = test_map();
  const std::vector<PackRun> runs = pack_runs_of(m);
  DeviceBuffer<PackRun> d_runs(runs);
  const std::vector<float> reduced = test_util::random_normal(kFlat, 11);
  const std::vector<float> values = test_util::random_normal(m.elems, 13);
  for (const Dtype& t : kDtypes) {
    for (float scale : {1.0f, 0.5f, 1.0f / 3.0f}) {
      for (auto [lo, hi] : {std::pair<std::int64_t, std::int64_t>{0, m.elems}, {40, 80}}) {
        SCOPED_TRACE(std::string(plan::dtype_name(t.plan)) + " scale " + std::to_string(scale) +
                     " from " + std::to_string(lo));
        std::vector<std::byte> buffer(static_cast<std::size_t>(m.elems * t.size));
        exec::BufferMap whole;
        whole.elems = m.elems;
        whole.runs = {{0, 0, m.elems}};
        exec::pack(whole, values, 1.0f, t.plan, 0, m.elems, buffer.data());
        std::vector<float> want = reduced;
        exec::unpack(m, buffer.data(), scale, t.plan, lo, hi,
                     [&](std::int64_t flat, std::span<const float> v) {
                       for (std::size_t i = 0; i < v.size(); ++i) want[flat + i] += v[i];
                     });

        DeviceBuffer<std::byte> d_buffer(buffer);
        DeviceBuffer<float> d_reduced(reduced);
        unpack_runs(d_runs.get(), static_cast<std::int64_t>(runs.size()), d_buffer.get(), t.elem,
                    scale, lo, hi, d_reduced.get(), ElemType::kF32, /*add=*/true, stream_);
        sync();
        EXPECT_EQ(d_reduced.download(), want);
      }
    }
  }
}

TEST_F(PackTest, GathersSixteenBitWeightsThroughTheBufferAsTheCpuDoes) {
  const exec::BufferMap m = test_map();
  const std::vector<PackRun> runs = pack_runs_of(m);
  DeviceBuffer<PackRun> d_runs(runs);
  // This rank's block [40, 80) is packed from its weights; the others' land in them.
  const std::int64_t lo = 40, hi = 80;
  const std::vector<float> weights =
      test_util::rounded<__nv_bfloat16>(test_util::random_normal(kFlat, 17));
  std::vector<std::byte> want(static_cast<std::size_t>(m.elems * 2), std::byte{0x11});
  exec::pack(m, weights, 1.0f, plan::Dtype::kBf16, lo, hi, want.data());

  DeviceBuffer<__nv_bfloat16> d_weights(test_util::to_storage<__nv_bfloat16>(weights));
  DeviceBuffer<std::byte> d_buffer(std::vector<std::byte>(want.size(), std::byte{0x11}));
  pack_runs(d_runs.get(), static_cast<std::int64_t>(runs.size()), d_weights.get(), ElemType::kBf16,
            1.0f, /*take=*/false, lo, hi, d_buffer.get(), ElemType::kBf16, stream_);
  sync();
  EXPECT_EQ(d_buffer.download(), want);

  // Every other block from other ranks' values.
  const std::vector<float> others = test_util::random_normal(m.elems, 19);
  std::vector<std::byte> gathered(want.size());
  exec::BufferMap whole;
  whole.elems = m.elems;
  whole.runs = {{0, 0, m.elems}};
  exec::pack(whole, others, 1.0f, plan::Dtype::kBf16, 0, m.elems, gathered.data());
  std::vector<float> want_weights = weights;
  const auto place = [&](std::int64_t flat, std::span<const float> v) {
    for (std::size_t i = 0; i < v.size(); ++i) want_weights[flat + i] = v[i];
  };
  exec::unpack(m, gathered.data(), 1.0f, plan::Dtype::kBf16, 0, lo, place);
  exec::unpack(m, gathered.data(), 1.0f, plan::Dtype::kBf16, hi, m.elems, place);
  d_buffer.upload(gathered);
  unpack_runs(d_runs.get(), static_cast<std::int64_t>(runs.size()), d_buffer.get(), ElemType::kBf16,
              1.0f, 0, lo, d_weights.get(), ElemType::kBf16, /*add=*/false, stream_);
  unpack_runs(d_runs.get(), static_cast<std::int64_t>(runs.size()), d_buffer.get(), ElemType::kBf16,
              1.0f, hi, m.elems, d_weights.get(), ElemType::kBf16,
              /*add=*/false, stream_);
  sync();
  EXPECT_EQ(test_util::to_floats(d_weights.download()), want_weights);
}

// Offload's gradient copies: added into the destination, the source zeroed, in both directions,
// with the host side in pinned memory that the kernel reaches through its mapping.
TEST_F(PackTest, MovesGradientsBetweenDeviceAndPinnedHostMemory) {
  const std::vector<PackRun> runs = pack_runs_of(test_map());
  DeviceBuffer<PackRun> d_runs(runs);
  const std::vector<float> dev0 = test_util::random_normal(kFlat, 23);
  const std::vector<float> host0 = test_util::random_normal(kFlat, 29);
  float* host = nullptr;
  ZS_CUDA_CHECK(
      cudaHostAlloc(reinterpret_cast<void**>(&host), kFlat * sizeof(float), cudaHostAllocDefault));
  for (bool down : {true, false}) {
    SCOPED_TRACE(down ? "down" : "up");
    std::copy(host0.begin(), host0.end(), host);
    DeviceBuffer<float> dev(dev0);
    std::vector<float> want_dev = dev0, want_host = host0;
    for (const PackRun& r : runs) {
      for (std::int64_t i = r.flat; i < r.flat + r.n; ++i) {
        float& from = down ? want_dev[i] : want_host[i];
        float& to = down ? want_host[i] : want_dev[i];
        to += from;
        from = 0.0f;
      }
    }
    move_runs(d_runs.get(), static_cast<std::int64_t>(runs.size()), down ? dev.get() : host,
              down ? host : dev.get(), stream_);
    sync();
    EXPECT_EQ(dev.download(), want_dev);
    EXPECT_EQ(std::vector<float>(host, host + kFlat), want_host);
  }
  ZS_CUDA_CHECK(cudaFreeHost(host));
}

}  // namespace
}  // namespace zs::kernels::cuda
