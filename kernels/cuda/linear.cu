#include <cstdint>
#include <string>
#include <type_traits>

#include "common/check.h"
#include "kernels/cuda/cublas_check.h"
#include "kernels/cuda/device_util.cuh"
#include "kernels/cuda/linear.h"

namespace zs::kernels::cuda {

struct LtContext::Impl {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;  // device memory, 256-byte aligned
  std::int64_t workspace_bytes = 0;
  bool owns_workspace = false;  // cudaMalloc'd here (else the caller's)

  explicit Impl(std::int64_t bytes) : workspace_bytes(bytes), owns_workspace(true) {
    ZS_CHECK(bytes >= 0);
    ZS_CUBLAS_CHECK(cublasLtCreate(&handle));
    if (bytes > 0) ZS_CUDA_CHECK(cudaMalloc(&workspace, static_cast<std::size_t>(bytes)));
  }
  Impl(void* borrowed, std::int64_t bytes) : workspace(borrowed), workspace_bytes(bytes) {
    ZS_CHECK(bytes >= 0);
    ZS_CHECK_MSG(bytes == 0 || (borrowed != nullptr &&
                                reinterpret_cast<std::uintptr_t>(borrowed) % 256 == 0),
                 "a cuBLASLt workspace must be non-null and 256-byte aligned");
    ZS_CUBLAS_CHECK(cublasLtCreate(&handle));
  }
  ~Impl() {
    if (owns_workspace && workspace != nullptr) ZS_CUDA_CHECK(cudaFree(workspace));
    ZS_CUBLAS_CHECK(cublasLtDestroy(handle));
  }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
};

LtContext::LtContext(std::int64_t workspace_bytes)
    : impl_(std::make_unique<Impl>(workspace_bytes)) {}
LtContext::LtContext(void* workspace, std::int64_t workspace_bytes)
    : impl_(std::make_unique<Impl>(workspace, workspace_bytes)) {}
LtContext::~LtContext() = default;
LtContext::LtContext(LtContext&& other) noexcept = default;
LtContext& LtContext::operator=(LtContext&& other) noexcept = default;

struct LtContextAccess {
  static const LtContext::Impl& impl(const LtContext& ctx) {
    ZS_CHECK_MSG(ctx.impl_ != nullptr, "use of a moved-from LtContext");
    return *ctx.impl_;
  }
};

std::int64_t LtContext::workspace_bytes() const {
  return LtContextAccess::impl(*this).workspace_bytes;
}

namespace {

using internal::to_float;

template <class T>
constexpr cudaDataType_t data_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return CUDA_R_16BF;
  if constexpr (std::is_same_v<T, __half>) return CUDA_R_16F;
}

// Owners of the cuBLASLt descriptors of one call.
struct MatmulDesc {
  cublasLtMatmulDesc_t desc = nullptr;
  MatmulDesc(bool trans_a, bool trans_b) {
    ZS_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t op_a = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t op_b = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    ZS_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
    ZS_CUBLAS_CHECK(
        cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
  }
  ~MatmulDesc() { ZS_CUBLAS_CHECK(cublasLtMatmulDescDestroy(desc)); }
  MatmulDesc(const MatmulDesc&) = delete;
  MatmulDesc& operator=(const MatmulDesc&) = delete;
};

// A column-major matrix as stored: rows x cols, leading dimension rows (contiguous).
struct Layout {
  cublasLtMatrixLayout_t layout = nullptr;
  Layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols) {
    ZS_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&layout, type, static_cast<std::uint64_t>(rows),
                                               static_cast<std::uint64_t>(cols), rows));
  }
  ~Layout() { ZS_CUBLAS_CHECK(cublasLtMatrixLayoutDestroy(layout)); }
  Layout(const Layout&) = delete;
  Layout& operator=(const Layout&) = delete;
};

// Largest power of two, at most 256, dividing the address. cuBLASLt assumes 256-byte aligned
// operands unless told otherwise; a pointer into the middle of a buffer may be less aligned.
std::uint32_t alignment_of(const void* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::uint32_t align = 256;
  while (align > 1 && address % align != 0) align /= 2;
  return align;
}

struct Preference {
  cublasLtMatmulPreference_t pref = nullptr;
  Preference(std::int64_t workspace_bytes, const void* a, const void* b, const void* d) {
    ZS_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    const auto bytes = static_cast<std::uint64_t>(workspace_bytes);
    set(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof(bytes));
    // Split-k partial sums only in the compute type (fp32): the INPLACE and OUTPUT_TYPE schemes
    // would add them in the output type, i.e. in bf16/fp16 for a 16-bit output.
    const std::uint32_t reduction = CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
    set(CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &reduction, sizeof(reduction));
    const std::uint32_t align_a = alignment_of(a);
    const std::uint32_t align_b = alignment_of(b);
    const std::uint32_t align_d = alignment_of(d);
    set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &align_a, sizeof(align_a));
    set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &align_b, sizeof(align_b));
    set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &align_d, sizeof(align_d));
    set(CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &align_d, sizeof(align_d));
  }
  void set(cublasLtMatmulPreferenceAttributes_t attr, const void* value, std::size_t size) {
    ZS_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref, attr, value, size));
  }
  ~Preference() { ZS_CUBLAS_CHECK(cublasLtMatmulPreferenceDestroy(pref)); }
  Preference(const Preference&) = delete;
  Preference& operator=(const Preference&) = delete;
};

// One operand of the column-major product as stored (before its op).
struct Operand {
  const void* ptr;
  cudaDataType_t type;
  std::int64_t rows, cols;
};

// Column-major D (m, n) = op(A) (m, k) · op(B) (k, n) + beta·D, fp32 compute and scale, D of
// type d_type (C is D: cuBLASLt computes in place when the two layouts are the same).
void lt_gemm(const LtContext& context, std::int64_t m, std::int64_t n, std::int64_t k,
             const Operand& a, bool trans_a, const Operand& b, bool trans_b, void* d,
             cudaDataType_t d_type, float beta, cudaStream_t stream) {
  const auto& ctx = LtContextAccess::impl(context);
  const MatmulDesc op(trans_a, trans_b);
  const Layout a_layout(a.type, a.rows, a.cols);
  const Layout b_layout(b.type, b.rows, b.cols);
  const Layout d_layout(d_type, m, n);
  const Preference pref(ctx.workspace_bytes, a.ptr, b.ptr, d);
  cublasLtMatmulHeuristicResult_t heuristic{};
  int found = 0;
  const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(
      ctx.handle, op.desc, a_layout.layout, b_layout.layout, d_layout.layout, d_layout.layout,
      pref.pref, 1, &heuristic, &found);
  if (status == CUBLAS_STATUS_NOT_SUPPORTED || (status == CUBLAS_STATUS_SUCCESS && found == 0)) {
    const std::string what = "cuBLASLt has no algorithm for m=" + std::to_string(m) +
                             " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                             " (column-major) with these types and alignments";
    ZS_CHECK_MSG(false, what.c_str());
  }
  ZS_CUBLAS_CHECK(status);
  const float alpha = 1.0f;
  ZS_CUBLAS_CHECK(cublasLtMatmul(ctx.handle, op.desc, &alpha, a.ptr, a_layout.layout, b.ptr,
                                 b_layout.layout, &beta, d, d_layout.layout, d, d_layout.layout,
                                 &heuristic.algo, ctx.workspace,
                                 static_cast<std::size_t>(ctx.workspace_bytes), stream));
}

// y (m, n) row-major: every row = bias (n).
template <class T>
__global__ void broadcast_bias_kernel(const T* bias, T* y, std::int64_t m, std::int64_t n) {
  for (std::int64_t e = internal::grid_index(); e < m * n; e += internal::grid_stride()) {
    y[e] = bias[e % n];
  }
}

// dbias[j] += Σ_rows dy[r][j]: a block covers kColumnTile columns (one warp, coalesced) with
// kRowLanes threads per column striding over the rows; the lanes add in lane order.
constexpr int kColumnTile = 32;
constexpr int kRowLanes = 8;
template <class T>
__global__ void __launch_bounds__(kColumnTile* kRowLanes)
    bias_grad_kernel(const T* dy, std::int64_t rows, std::int64_t cols, float* dbias) {
  __shared__ float part[kRowLanes][kColumnTile + 1];
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * kColumnTile + threadIdx.x;
  float sum = 0.0f;
  if (j < cols) {
    for (std::int64_t r = threadIdx.y; r < rows; r += kRowLanes) sum += to_float(dy[r * cols + j]);
  }
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0 || j >= cols) return;
  float total = 0.0f;
  for (int lane = 0; lane < kRowLanes; ++lane) total += part[lane][threadIdx.x];
  dbias[j] += total;
}

void check_gemm_shape(const models::GemmShape& s) { ZS_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1); }

}  // namespace

template <class T, class TOut>
void matmul(const LtContext& ctx, const cpu::MatmulShape& s, const T* a, const T* b, TOut* c,
            cudaStream_t stream) {
  static_assert(std::is_same_v<TOut, T> || std::is_same_v<TOut, float>);
  ZS_CHECK(s.m >= 1 && s.n >= 1 && s.k >= 1);
  ZS_CHECK(a != nullptr && b != nullptr && c != nullptr);
  // Row-major C (m, n) = op(A)·op(B) is column-major Cᵀ (n, m) = op(B)ᵀ·op(A)ᵀ, so cuBLASLt's
  // A is our b and its B is our a. A row-major (r, c) array is the column-major (c, r) matrix
  // with leading dimension c, i.e. its own transpose: b stored (n, k) [transpose_b] is read as
  // (k, n) and needs op T to give op(B)ᵀ (n, k); b stored (k, n) is read as (n, k) = op(B)ᵀ.
  const Operand lt_a{b, data_type<T>(), s.transpose_b ? s.k : s.n, s.transpose_b ? s.n : s.k};
  const Operand lt_b{a, data_type<T>(), s.transpose_a ? s.m : s.k, s.transpose_a ? s.k : s.m};
  lt_gemm(ctx, /*m=*/s.n, /*n=*/s.m, /*k=*/s.k, lt_a, s.transpose_b, lt_b, s.transpose_a, c,
          data_type<TOut>(), s.accumulate ? 1.0f : 0.0f, stream);
}

template <class T>
void linear_forward(const LtContext& ctx, const models::GemmShape& s, const T* x, const T* w,
                    const T* bias, T* y, cudaStream_t stream) {
  check_gemm_shape(s);
  ZS_CHECK(x != nullptr && w != nullptr && y != nullptr);
  ZS_CHECK_MSG(s.bias == (bias != nullptr), "bias must be given exactly when GemmShape.bias");
  if (s.bias) {
    broadcast_bias_kernel<<<internal::elementwise_blocks(s.m * s.n), internal::kElementwiseThreads,
                            0, stream>>>(bias, y, s.m, s.n);
    ZS_CUDA_CHECK_LAUNCH();
  }
  // y (m, n) (+)= x (m, k) · wᵀ, w stored (n, k).
  matmul<T, T>(ctx, {.m = s.m, .n = s.n, .k = s.k, .transpose_b = true, .accumulate = s.bias}, x, w,
               y, stream);
}

template <class T>
void linear_backward(const LtContext& ctx, const models::GemmShape& s, const T* dy, const T* x,
                     const T* w, T* dx, float* dw, float* dbias, cudaStream_t stream) {
  check_gemm_shape(s);
  ZS_CHECK(dy != nullptr && x != nullptr && w != nullptr && dx != nullptr && dw != nullptr);
  ZS_CHECK_MSG(s.bias == (dbias != nullptr), "dbias must be given exactly when GemmShape.bias");
  // dx (m, k) = dy (m, n) · w (n, k)
  matmul<T, T>(ctx, {.m = s.m, .n = s.k, .k = s.n}, dy, w, dx, stream);
  // dw (n, k) += dyᵀ (n, m) · x (m, k), accumulated in fp32
  matmul<T, float>(ctx, {.m = s.n, .n = s.k, .k = s.m, .transpose_a = true, .accumulate = true}, dy,
                   x, dw, stream);
  if (s.bias) {
    const auto blocks = static_cast<unsigned>(internal::ceil_div(s.n, kColumnTile));
    bias_grad_kernel<<<blocks, dim3(kColumnTile, kRowLanes), 0, stream>>>(dy, s.m, s.n, dbias);
    ZS_CUDA_CHECK_LAUNCH();
  }
}

template void matmul<float, float>(const LtContext&, const cpu::MatmulShape&, const float*,
                                   const float*, float*, cudaStream_t);
template void matmul<__nv_bfloat16, __nv_bfloat16>(const LtContext&, const cpu::MatmulShape&,
                                                   const __nv_bfloat16*, const __nv_bfloat16*,
                                                   __nv_bfloat16*, cudaStream_t);
template void matmul<__nv_bfloat16, float>(const LtContext&, const cpu::MatmulShape&,
                                           const __nv_bfloat16*, const __nv_bfloat16*, float*,
                                           cudaStream_t);
template void matmul<__half, __half>(const LtContext&, const cpu::MatmulShape&, const __half*,
                                     const __half*, __half*, cudaStream_t);
template void matmul<__half, float>(const LtContext&, const cpu::MatmulShape&, const __half*,
                                    const __half*, float*, cudaStream_t);

#define ZS_INSTANTIATE(T)                                                                          \
  template void linear_forward<T>(const LtContext&, const models::GemmShape&, const T*, const T*,  \
                                  const T*, T*, cudaStream_t);                                     \
  template void linear_backward<T>(const LtContext&, const models::GemmShape&, const T*, const T*, \
                                   const T*, T*, float*, float*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
