#include "common/check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/dtype.h"

namespace zs::kernels::cuda {
namespace {

using internal::from_float;
using internal::to_float;

template <class In, class Out>
__global__ void cast_kernel(const In* in, Out* out, std::int64_t n) {
  for (std::int64_t i = internal::grid_index(); i < n; i += internal::grid_stride()) {
    out[i] = from_float<Out>(to_float(in[i]));
  }
}

template <class In, class Out>
void cast(const In* in, Out* out, std::int64_t n, cudaStream_t stream) {
  ZS_CHECK(n >= 0);
  if (n == 0) return;
  ZS_CHECK(in != nullptr && out != nullptr);
  cast_kernel<<<internal::elementwise_blocks(n), internal::kElementwiseThreads, 0, stream>>>(
      in, out, n);
  ZS_CUDA_CHECK_LAUNCH();
}

}  // namespace

void float_to_bf16(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream) {
  cast(in, out, n, stream);
}
void float_to_fp16(const float* in, __half* out, std::int64_t n, cudaStream_t stream) {
  cast(in, out, n, stream);
}
void bf16_to_float(const __nv_bfloat16* in, float* out, std::int64_t n, cudaStream_t stream) {
  cast(in, out, n, stream);
}
void fp16_to_float(const __half* in, float* out, std::int64_t n, cudaStream_t stream) {
  cast(in, out, n, stream);
}

}  // namespace zs::kernels::cuda
