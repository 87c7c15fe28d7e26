#include "common/check.h"
#include "kernels/cuda/adamw.h"
#include "kernels/cuda/device_util.cuh"

namespace zs::kernels::cuda {
namespace {

using internal::from_float;

// The kernel's scalars, as the host computes them once per step.
struct AdamScalars {
  float beta1, beta2;
  float lr, eps, decay;
  float bc1, bc2;  // bias corrections (1 without)
  bool l2;         // AdamMode::kL2: decay added to the gradient
};

// AdamFunctor's loop body, operation for operation (csrc/adam/multi_tensor_adam.cu).
template <class T>
__global__ void adam_kernel(float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
                            std::int64_t n, AdamScalars s, T* params_copy) {
  for (std::int64_t i = internal::grid_index(); i < n; i += internal::grid_stride()) {
    float g = grads[i];
    const float p = params[i];
    if (s.l2) g = g + s.decay * p;
    const float m = s.beta1 * exp_avg[i] + (1.0f - s.beta1) * g;
    const float v = s.beta2 * exp_avg_sq[i] + (1.0f - s.beta2) * g * g;
    const float m_hat = m / s.bc1;
    const float v_hat = v / s.bc2;
    const float denom = sqrtf(v_hat) + s.eps;
    float update = m_hat / denom;
    if (!s.l2) update = update + s.decay * p;
    const float p_new = p - s.lr * update;
    params[i] = p_new;
    exp_avg[i] = m;
    exp_avg_sq[i] = v;
    if (params_copy != nullptr) params_copy[i] = from_float<T>(p_new);
  }
}

}  // namespace

template <class T>
void adam_step(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
               const cpu::AdamConfig& config, std::int64_t step, T* params_copy,
               cudaStream_t stream) {
  ZS_CHECK(n >= 0);
  // Validates the config and step (the CPU twin's checks) and computes bc1, bc2 on the host.
  const cpu::AdamBiasCorrection bc = cpu::adam_bias_correction(config, step);
  if (n == 0) return;
  ZS_CHECK(params != nullptr && grads != nullptr && exp_avg != nullptr && exp_avg_sq != nullptr);
  const AdamScalars s{
      config.beta1,        config.beta2, config.lr, config.eps,
      config.weight_decay, bc.bc1,       bc.bc2,    config.mode == cpu::AdamMode::kL2};
  adam_kernel<<<internal::elementwise_blocks(n), internal::kElementwiseThreads, 0, stream>>>(
      params, grads, exp_avg, exp_avg_sq, n, s, params_copy);
  ZS_CUDA_CHECK_LAUNCH();
}

void adam_step(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
               const cpu::AdamConfig& config, std::int64_t step, cudaStream_t stream) {
  adam_step<float>(params, grads, exp_avg, exp_avg_sq, n, config, step, nullptr, stream);
}

#define ZS_INSTANTIATE(T)                                                        \
  template void adam_step<T>(float*, const float*, float*, float*, std::int64_t, \
                             const cpu::AdamConfig&, std::int64_t, T*, cudaStream_t);
ZS_FOR_EACH_STORAGE_TYPE(ZS_INSTANTIATE)
#undef ZS_INSTANTIATE

}  // namespace zs::kernels::cuda
