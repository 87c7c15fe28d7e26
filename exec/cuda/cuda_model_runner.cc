// CudaModelRunner's life cycle, ranges, batches, losses and parameter I/O. The per-op kernels
// are in exec/cuda/cuda_model_runner_ops.cc.
#include "exec/cuda/cuda_model_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "exec/model_runner.h"
#include "exec/weight_init.h"
#include "kernels/cpu/dtype.h"
#include "kernels/cuda/activation.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/dtype.h"
#include "models/op_graph.h"

namespace zs::exec {
namespace {

namespace cuda = kernels::cuda;
using models::ModelSpec;

constexpr std::int64_t kInitialLossSlots = 8;

std::size_t idx(std::int64_t i) { return static_cast<std::size_t>(i); }

void check_range(int first, int last, int n) {
  ZS_CHECK_MSG(0 <= first && first <= last && last < n, "op range outside the model");
}

Status unsupported(const ModelSpec& spec, std::string_view field, std::int64_t value,
                   std::string_view allowed) {
  return Status::invalid_argument(
      "model \"" + spec.name + "\": " + std::string(field) + " = " + std::to_string(value) +
      " is not supported by the CUDA kernels; expected " + std::string(allowed));
}

// The host type whose bits are T's (kernels/cpu/dtype.h widens them exactly).
template <class T>
struct HostBits;
template <>
struct HostBits<__nv_bfloat16> {
  using Type = kernels::cpu::Bf16;
  static void widen(const Type* in, float* out, std::int64_t n) {
    kernels::cpu::bf16_to_float(in, out, n);
  }
};
template <>
struct HostBits<__half> {
  using Type = kernels::cpu::Fp16;
  static void widen(const Type* in, float* out, std::int64_t n) {
    kernels::cpu::fp16_to_float(in, out, n);
  }
};

// in (n) fp32 -> out (n) T on the device (kernels/cuda/dtype.h), rounding to nearest even.
void round_to(const float* in, __nv_bfloat16* out, std::int64_t n, cudaStream_t stream) {
  cuda::float_to_bf16(in, out, n, stream);
}
void round_to(const float* in, __half* out, std::int64_t n, cudaStream_t stream) {
  cuda::float_to_fp16(in, out, n, stream);
}

}  // namespace

Status check_cuda_runnable(const ModelSpec& spec, const models::Workload& w) {
  ZS_RETURN_IF_ERROR(check_runnable(spec, w));
  constexpr std::int64_t kMaxGrid = 65535;  // gridDim.y and .z
  if (spec.head_dim > 128) {
    return unsupported(spec, "head_dim", spec.head_dim,
                       "at most 128 (kernels/cuda/attention.h tiles)");
  }
  if (spec.num_heads > kMaxGrid) {
    return unsupported(spec, "num_heads", spec.num_heads, "at most 65535 (a grid dimension)");
  }
  if (w.micro_batch > kMaxGrid) {
    return unsupported(spec, "micro_batch", w.micro_batch, "at most 65535 (a grid dimension)");
  }
  if (w.seq_len >= (std::int64_t{1} << 30) || w.tokens() >= (std::int64_t{1} << 31)) {
    return unsupported(spec, "tokens per micro-batch", w.tokens(),
                       "fewer than 2^31, and sequences shorter than 2^30");
  }
  return Status::ok();
}

template <class T>
CudaModelRunner<T>::CudaModelRunner(Key, CachingAllocator& allocator, cudaStream_t stream)
    : allocator_(&allocator), stream_(stream) {}

template <class T>
CudaModelRunner<T>::~CudaModelRunner() {
  // Queued kernels may still read the arrays about to go back to the allocator; and a fault
  // surfaces here rather than in whoever uses the memory next.
  ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class T>
Result<std::unique_ptr<CudaModelRunner<T>>> CudaModelRunner<T>::create(const ModelSpec& spec,
                                                                       const models::Workload& w,
                                                                       std::uint64_t seed,
                                                                       CachingAllocator& allocator,
                                                                       cudaStream_t stream) {
  ZS_RETURN_IF_ERROR(check_cuda_runnable(spec, w));
  auto r = std::make_unique<CudaModelRunner>(Key{}, allocator, stream);
  r->spec_ = spec;
  r->workload_ = w;
  r->seed_ = seed;
  r->ops_ = models::forward_ops(spec, w);
  r->tensors_ = models::parameter_tensors(spec);
  ZS_RETURN_IF_ERROR(r->allocate());
  r->zero_grads();
  ZS_RETURN_IF_ERROR(r->load_params(r->initial_params()));
  return r;
}

template <class T>
Status CudaModelRunner<T>::allocate() {
  std::int64_t numel = 0;
  offsets_ = ModelRunner::param_offsets(tensors_, &numel);
  state_.clear();
  state_.resize(ops_.size());
  ledger_ = ActivationLedger(ops_);
  const std::int64_t t = workload_.tokens();
  ZS_ASSIGN_OR_RETURN(weights_, alloc<T>(numel));
  ZS_ASSIGN_OR_RETURN(grads_, alloc<float>(numel));
  ZS_ASSIGN_OR_RETURN(tokens_, alloc<std::int32_t>(t));
  ZS_ASSIGN_OR_RETURN(targets_, alloc<std::int32_t>(t));
  staging_ = PinnedArray<std::int32_t>(2 * t);
  ZS_ASSIGN_OR_RETURN(lt_workspace_,
                      alloc<std::byte>(kernels::cuda::LtContext::kDefaultWorkspaceBytes));
  lt_ = std::make_unique<kernels::cuda::LtContext>(lt_workspace_.get(), lt_workspace_.bytes());
  ZS_ASSIGN_OR_RETURN(last_loss_, alloc<float>(1));
  ZS_ASSIGN_OR_RETURN(losses_, alloc<float>(kInitialLossSlots));
  loss_host_ = PinnedArray<float>(1);
  return Status::ok();
}

template <class T>
Status CudaModelRunner<T>::set_batch(std::span<const std::int32_t> tokens,
                                     std::span<const std::int32_t> targets) {
  const auto t = static_cast<std::size_t>(workload_.tokens());
  ZS_CHECK(tokens.size() == t && targets.size() == t);
  ZS_RETURN_IF_ERROR(check_token_ids(spec_, tokens, targets));
  // The previous batch's copy must have left the staging buffer before it is overwritten. The
  // device arrays themselves are rewritten in stream order, after every kernel that read them.
  ZS_CUDA_CHECK(cudaEventSynchronize(staged_.get()));
  std::int32_t* host = staging_.get();
  std::copy(tokens.begin(), tokens.end(), host);
  std::copy(targets.begin(), targets.end(), host + t);
  const std::size_t bytes = t * sizeof(std::int32_t);
  ZS_CUDA_CHECK(cudaMemcpyAsync(tokens_.get(), host, bytes, cudaMemcpyHostToDevice, stream_));
  ZS_CUDA_CHECK(cudaMemcpyAsync(targets_.get(), host + t, bytes, cudaMemcpyHostToDevice, stream_));
  ZS_CUDA_CHECK(cudaEventRecord(staged_.get(), stream_));
  return Status::ok();
}

template <class T>
void CudaModelRunner<T>::set_loss_scale(float dloss) {
  ZS_CHECK(std::isfinite(dloss));
  loss_scale_ = dloss;
}

template <class T>
Status CudaModelRunner<T>::forward(int first, int last) {
  return run_forward(first, last, false);
}

template <class T>
Status CudaModelRunner<T>::recompute(int first, int last) {
  return run_forward(first, last, true);
}

template <class T>
Status CudaModelRunner<T>::run_forward(int first, int last, bool recompute) {
  check_range(first, last, num_ops());
  for (int i = first; i <= last; ++i) {
    ledger_.check_forward(i);
    ZS_RETURN_IF_ERROR(forward_op(i, recompute));
    ledger_.forwarded(i, recompute);
  }
  return Status::ok();
}

template <class T>
void CudaModelRunner<T>::drop_activations(int first, int last) {
  check_range(first, last, num_ops());
  for (int i = first; i <= last; ++i) {
    OpState& s = state_[idx(i)];
    s.stats.reset();
    s.qkv.reset();
    if (ledger_.drop(i, last)) s.out.reset();
  }
}

template <class T>
Status CudaModelRunner<T>::backward(int first, int last) {
  check_range(first, last, num_ops());
  for (int i = last; i >= first; --i) {
    ledger_.check_backward(i);
    ZS_RETURN_IF_ERROR(backward_op(i));
    release(i);
  }
  return Status::ok();
}

template <class T>
void CudaModelRunner<T>::release(int i) {
  // Every reader of op i has run its backward, and so has op i: nothing reads these again in
  // this micro-step. Freed in stream order (exec/cuda/cuda_memory.h).
  OpState& s = state_[idx(i)];
  s.out.reset();
  s.dout.reset();
  s.stats.reset();
  s.qkv.reset();
  ledger_.release(i);
}

template <class T>
Result<typename CudaModelRunner<T>::InputGrad> CudaModelRunner<T>::input_grad(int input) {
  OpState& s = state_[idx(input)];
  const bool first = ledger_.take_gradient(input);
  InputGrad g;
  g.numel = s.out.size();
  if (first) {
    if (!s.dout.allocated() || s.dout.size() != g.numel) {
      ZS_ASSIGN_OR_RETURN(s.dout, alloc<T>(g.numel));
    }
    g.data = g.target = s.dout.get();
    return g;
  }
  ZS_CHECK(s.dout.allocated() && s.dout.size() == g.numel);
  ZS_ASSIGN_OR_RETURN(g.scratch, alloc<T>(g.numel));
  g.data = g.scratch.get();
  g.target = s.dout.get();
  return g;
}

template <class T>
void CudaModelRunner<T>::finish(const InputGrad& g) {
  if (g.data == g.target || g.numel == 0) return;
  // target += scratch: the residual add's kernel with out aliasing a (allowed).
  kernels::cuda::residual_forward<T>(models::ElementwiseShape{.numel = g.numel}, g.target, g.data,
                                     g.target, stream_);
}

template <class T>
Status CudaModelRunner<T>::record_forward_loss() {
  if (num_losses_ == losses_.size()) {
    ZS_ASSIGN_OR_RETURN(DeviceArray<float> grown, alloc<float>(2 * losses_.size()));
    ZS_CUDA_CHECK(cudaMemcpyAsync(grown.get(), losses_.get(),
                                  static_cast<std::size_t>(losses_.bytes()),
                                  cudaMemcpyDeviceToDevice, stream_));
    losses_ = std::move(grown);
  }
  ZS_CUDA_CHECK(cudaMemcpyAsync(losses_.get() + num_losses_, last_loss_.get(), sizeof(float),
                                cudaMemcpyDeviceToDevice, stream_));
  ++num_losses_;
  return Status::ok();
}

template <class T>
double CudaModelRunner<T>::loss() {
  if (!has_loss_) return std::numeric_limits<double>::quiet_NaN();
  ZS_CUDA_CHECK(cudaMemcpyAsync(loss_host_.get(), last_loss_.get(), sizeof(float),
                                cudaMemcpyDeviceToHost, stream_));
  ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return *loss_host_.get();
}

template <class T>
std::vector<double> CudaModelRunner<T>::take_losses() {
  std::vector<float> host(idx(num_losses_));
  if (num_losses_ > 0) {
    ZS_CUDA_CHECK(cudaMemcpyAsync(host.data(), losses_.get(), host.size() * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream_));
  }
  ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  num_losses_ = 0;
  return {host.begin(), host.end()};
}

template <class T>
std::int64_t CudaModelRunner<T>::param_offset(int id) const {
  ZS_CHECK(id >= 0 && idx(id) < offsets_.size());
  return offsets_[idx(id)];
}

template <class T>
const T* CudaModelRunner<T>::weight(const models::Op& op, std::size_t k) const {
  return k < op.param_ids.size() ? weights_.get() + param_offset(op.param_ids[k]) : nullptr;
}

template <class T>
float* CudaModelRunner<T>::weight_grad(const models::Op& op, std::size_t k) {
  return k < op.param_ids.size() ? grads_.get() + param_offset(op.param_ids[k]) : nullptr;
}

template <class T>
void CudaModelRunner<T>::copy(T* dst, const T* src, std::int64_t n) {
  if (n == 0) return;
  ZS_CUDA_CHECK(cudaMemcpyAsync(dst, src, idx(n) * sizeof(T), cudaMemcpyDeviceToDevice, stream_));
}

template <class T>
std::vector<float> CudaModelRunner<T>::initial_params() const {
  std::vector<float> w(idx(num_param_elements()), 0.0f);
  init_gpt2_weights(ops_, tensors_, offsets_, spec_.num_layers, seed_, w);
  return w;
}

template <class T>
Status CudaModelRunner<T>::load_params(std::span<const float> weights) {
  const std::int64_t n = num_param_elements();
  ZS_CHECK(static_cast<std::int64_t>(weights.size()) == n);
  if (n == 0) return Status::ok();
  const std::size_t bytes = idx(n) * sizeof(float);
  if constexpr (std::is_same_v<T, float>) {
    ZS_CUDA_CHECK(
        cudaMemcpyAsync(weights_.get(), weights.data(), bytes, cudaMemcpyHostToDevice, stream_));
  } else {
    ZS_ASSIGN_OR_RETURN(DeviceArray<float> fp32, alloc<float>(n));
    ZS_CUDA_CHECK(
        cudaMemcpyAsync(fp32.get(), weights.data(), bytes, cudaMemcpyHostToDevice, stream_));
    round_to(fp32.get(), weights_.get(), n, stream_);
  }
  // `weights` is the caller's: the copy must be done before returning.
  ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return Status::ok();
}

template <class T>
std::vector<float> CudaModelRunner<T>::params_to_host() const {
  const std::int64_t n = num_param_elements();
  std::vector<float> out(idx(n));
  if constexpr (std::is_same_v<T, float>) {
    if (n > 0) {
      ZS_CUDA_CHECK(cudaMemcpyAsync(out.data(), weights_.get(), out.size() * sizeof(float),
                                    cudaMemcpyDeviceToHost, stream_));
    }
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  } else {
    using Bits = typename HostBits<T>::Type;
    static_assert(sizeof(Bits) == sizeof(T));
    std::vector<Bits> raw(idx(n));
    if (n > 0) {
      ZS_CUDA_CHECK(cudaMemcpyAsync(raw.data(), weights_.get(), raw.size() * sizeof(T),
                                    cudaMemcpyDeviceToHost, stream_));
    }
    ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
    HostBits<T>::widen(raw.data(), out.data(), n);
  }
  return out;
}

template <class T>
std::vector<float> CudaModelRunner<T>::grads_to_host() const {
  std::vector<float> out(idx(num_param_elements()));
  if (!out.empty()) {
    ZS_CUDA_CHECK(cudaMemcpyAsync(out.data(), grads_.get(), out.size() * sizeof(float),
                                  cudaMemcpyDeviceToHost, stream_));
  }
  ZS_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return out;
}

template <class T>
void CudaModelRunner<T>::zero_grads() {
  if (grads_.size() == 0) return;
  ZS_CUDA_CHECK(
      cudaMemsetAsync(grads_.get(), 0, static_cast<std::size_t>(grads_.bytes()), stream_));
}

template <class T>
models::AttentionShape CudaModelRunner<T>::attention_shape() const {
  return ModelRunner::attention_shape(spec_, workload_);
}

template class CudaModelRunner<float>;
template class CudaModelRunner<__nv_bfloat16>;
template class CudaModelRunner<__half>;

}  // namespace zs::exec
