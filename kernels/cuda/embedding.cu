#include <algorithm>
#include <bit>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <limits>

#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/embedding.h"

namespace zs::kernels::cuda {
namespace {

using internal::ceil_div;
using internal::from_float;
using internal::to_float;

// Threads of the backward kernels, one column each; blockIdx.y walks column blocks.
constexpr int kColumnThreads = 256;
// Every workspace array starts on this boundary (cub's and cudaMalloc's alignment).
constexpr std::int64_t kWorkspaceAlign = 256;

void check_shape(const models::EmbeddingShape& shape, std::int64_t seq_len,
                 const std::int32_t* tokens, const void* pos_table) {
  ZS_CHECK(shape.tokens >= 1 && shape.hidden >= 1 && shape.vocab >= 1 && seq_len >= 1);
  ZS_CHECK_MSG(shape.tokens % seq_len == 0, "tokens must be whole sequences (t = b * seq_len)");
  ZS_CHECK_MSG(shape.tokens <= std::numeric_limits<std::int32_t>::max(),
               "token indices are int32 in the sort");
  ZS_CHECK_MSG(shape.vocab - 1 <= std::numeric_limits<std::int32_t>::max(), "ids are int32");
  ZS_CHECK_MSG(shape.dropout == 0, "the CUDA kernels do not implement embedding dropout");
  ZS_CHECK(tokens != nullptr);
  ZS_CHECK_MSG(shape.learned_positions == (pos_table != nullptr),
               "the position table must be given exactly when learned_positions");
}

// The sort looks at the bits an id in [0, V) can have, at least one.
int id_bits(std::int64_t vocab) {
  return std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(vocab - 1))));
}

std::int64_t align_up(std::int64_t bytes) {
  return ceil_div(bytes, kWorkspaceAlign) * kWorkspaceAlign;
}

// The radix sort's own scratch for t items (a host-side query: nothing is launched).
std::int64_t sort_scratch_bytes(std::int64_t t, int bits) {
  std::size_t bytes = 0;
  ZS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
      nullptr, bytes, static_cast<const std::int32_t*>(nullptr),
      static_cast<std::int32_t*>(nullptr), static_cast<const std::int32_t*>(nullptr),
      static_cast<std::int32_t*>(nullptr), static_cast<int>(t), 0, bits));
  return static_cast<std::int64_t>(bytes);
}

// The workspace carved into the sort's arrays, each (t) int32, and its scratch.
struct SortBuffers {
  std::int32_t* sorted_ids;    // token ids, ascending
  std::int32_t* order;         // 0, 1, ..., t-1
  std::int32_t* sorted_order;  // the token index of each sorted id (stable: ascending per id)
  std::byte* scratch;
  std::int64_t scratch_bytes;
};
SortBuffers carve(std::byte* workspace, std::int64_t t, std::int64_t scratch_bytes) {
  const std::int64_t array_bytes = align_up(t * static_cast<std::int64_t>(sizeof(std::int32_t)));
  SortBuffers b;
  b.sorted_ids = reinterpret_cast<std::int32_t*>(workspace);
  b.order = reinterpret_cast<std::int32_t*>(workspace + array_bytes);
  b.sorted_order = reinterpret_cast<std::int32_t*>(workspace + 2 * array_bytes);
  b.scratch = workspace + 3 * array_bytes;
  b.scratch_bytes = scratch_bytes;
  return b;
}

template <class T>
__global__ void embedding_forward_kernel(const std::int32_t* tokens, const T* wte, const T* wpe,
                                         T* out, std::int64_t t, std::int64_t h, std::int64_t vocab,
                                         std::int64_t seq_len) {
  for (std::int64_t e = internal::grid_index(); e < t * h; e += internal::grid_stride()) {
    const std::int64_t i = e / h;
    const std::int64_t j = e - i * h;
    const std::int64_t id = tokens[i];
    if (id < 0 || id >= vocab) __trap();  // REQUIRES: ids in [0, V)
    float v = to_float(wte[id * h + j]);
    if (wpe != nullptr) v += to_float(wpe[(i % seq_len) * h + j]);
    out[e] = from_float<T>(v);
  }
}

__global__ void iota_kernel(std::int32_t* order, std::int64_t t) {
  for (std::int64_t i = internal::grid_index(); i < t; i += internal::grid_stride()) {
    order[i] = static_cast<std::int32_t>(i);
  }
}

// Block (r, column block): when sorted position r starts a run of equal ids, adds the run's
// dout rows, in token order, to that id's dwte row; other blocks return at once.
template <class T>
__global__ void wte_grad_kernel(const std::int32_t* sorted_ids, const std::int32_t* sorted_order,
                                const T* dout, float* dwte, std::int64_t t, std::int64_t h,
                                std::int64_t vocab) {
  const std::int64_t r = blockIdx.x;
  const std::int32_t id = sorted_ids[r];
  if (r > 0 && sorted_ids[r - 1] == id) return;
  if (id < 0 || id >= vocab) __trap();
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
  if (j >= h) return;
  float* row = dwte + static_cast<std::int64_t>(id) * h;
  float acc = row[j];  // the CPU twin's order: existing value, then each token's row
  for (std::int64_t e = r; e < t && sorted_ids[e] == id; ++e) {
    acc += to_float(dout[static_cast<std::int64_t>(sorted_order[e]) * h + j]);
  }
  row[j] = acc;
}

// Block (position p, column block): dwpe[p] += dout rows p, p + seq_len, ... in token order.
template <class T>
__global__ void wpe_grad_kernel(const T* dout, float* dwpe, std::int64_t t, std::int64_t h,
                                std::int64_t seq_len) {
  const std::int64_t p = blockIdx.x;
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.y) * blockDim.x + threadIdx.x;
  if (j >= h) return;
  float acc = dwpe[p * h + j];
  for (std::int64_t i = p; i < t; i += seq_len) acc += to_float(dout[i * h + j]);
  dwpe[p * h + j] = acc;
}

}  // namespace

template <class T>
void embedding_forward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                       const std::int32_t* tokens, const T* wte, const T* wpe, T* out,
                       cudaStream_t stream) {
  check_shape(shape, seq_len, tokens, wpe);
  ZS_CHECK(wte != nullptr && out != nullptr);
  const std::int64_t numel = shape.tokens * shape.hidden;
  embedding_forward_kernel<<<internal::elementwise_blocks(numel), internal::kElementwiseThreads, 0,
                             stream>>>(tokens, wte, wpe, out, shape.tokens, shape.hidden,
                                       shape.vocab, seq_len);
  ZS_CUDA_CHECK_LAUNCH();
}

std::int64_t embedding_backward_workspace_bytes(const models::EmbeddingShape& shape) {
  ZS_CHECK(shape.tokens >= 1 && shape.vocab >= 1);
  ZS_CHECK(shape.tokens <= std::numeric_limits<std::int32_t>::max());
  const std::int64_t array_bytes =
      align_up(shape.tokens * static_cast<std::int64_t>(sizeof(std::int32_t)));
  return 3 * array_bytes + sort_scratch_bytes(shape.tokens, id_bits(shape.vocab));
}

template <class T>
void embedding_backward(const models::EmbeddingShape& shape, std::int64_t seq_len,
                        const std::int32_t* tokens, const T* dout, float* dwte, float* dwpe,
                        std::byte* workspace, std::int64_t workspace_bytes, cudaStream_t stream) {
  check_shape(shape, seq_len, tokens, dwpe);
  ZS_CHECK(dout != nullptr && dwte != nullptr && workspace != nullptr);
  ZS_CHECK_MSG(workspace_bytes >= embedding_backward_workspace_bytes(shape),
               "workspace smaller than embedding_backward_workspace_bytes()");
  const std::int64_t t = shape.tokens;
  const std::int64_t h = shape.hidden;
  const int bits = id_bits(shape.vocab);
  const SortBuffers b = carve(workspace, t, sort_scratch_bytes(t, bits));

  iota_kernel<<<internal::elementwise_blocks(t), internal::kElementwiseThreads, 0, stream>>>(
      b.order, t);
  ZS_CUDA_CHECK_LAUNCH();
  auto scratch_bytes = static_cast<std::size_t>(b.scratch_bytes);
  ZS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(b.scratch, scratch_bytes, tokens, b.sorted_ids,
                                                b.order, b.sorted_order, static_cast<int>(t), 0,
                                                bits, stream));

  const auto column_blocks = static_cast<unsigned>(ceil_div(h, kColumnThreads));
  wte_grad_kernel<<<dim3(static_cast<unsigned>(t), column_blocks), kColumnThreads, 0, stream>>>(
      b.sorted_ids, b.sorted_order, dout, dwte, t, h, shape.vocab);
  ZS_CUDA_CHECK_LAUNCH();
  if (dwpe != nullptr) {
    wpe_grad_kernel<<<dim3(static_cast<unsigned>(seq_len), column_blocks), kColumnThreads, 0,
                      stream>>>(dout, dwpe, t, h, seq_len);
    ZS_CUDA_CHECK_LAUNCH();
  }
}

#define ZS_INSTANTIATE(T)                                                                        \
  template void embedding_forward<T>(const models::EmbeddingShape&, std::int64_t,                \
                                     const std::int32_t*, const T*, const T*, T*, cudaStream_t); \
  template void embedding_backward<T>(const models::EmbeddingShape&, std::int64_t,               \
                                      const std::int32_t*, const T*, float*, float*, std::byte*, \
                                      std::int64_t, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
