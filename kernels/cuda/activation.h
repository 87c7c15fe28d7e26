// Elementwise MLP activations and the residual add on the device: the CUDA twins of
// kernels/cpu/activation.h, with the same math, shapes and aliasing rules.
//
// Conventions (kernels/cuda/types.h): T is float, __nv_bfloat16 or __half, math in fp32;
// input gradients are OVERWRITTEN; each call enqueues on `stream`; REQUIRES: abort through
// ZS_CHECK; deterministic. These ops have no parameters. Outputs may alias inputs elementwise
// (out == x, dx == dout): each element is read before the same thread writes it. Dropout is not
// supported (the executor trains with dropout 0).
#pragma once

#include "kernels/cuda/types.h"
#include "models/ops.h"

namespace zs::kernels::cuda {

// out (numel) = gelu_new(x) = 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))), overwritten.
// REQUIRES: numel >= 1; x, out non-null.
template <class T>
void gelu_forward(const models::ElementwiseShape& shape, const T* x, T* out, cudaStream_t stream);

// dx (numel) = gelu'(x)·dout, OVERWRITTEN (derivative as kernels/cpu/activation.h).
// REQUIRES: numel >= 1; x, dout, dx non-null.
template <class T>
void gelu_backward(const models::ElementwiseShape& shape, const T* x, const T* dout, T* dx,
                   cudaStream_t stream);

// out (t, I) = silu(gate)·up, overwritten. REQUIRES: numel >= 1; gate, up, out non-null.
template <class T>
void swiglu_forward(const models::ElementwiseShape& shape, const T* gate, const T* up, T* out,
                    cudaStream_t stream);

// dgate = dout·up·sigmoid(gate)·(1 + gate·(1 - sigmoid(gate))), dup = dout·silu(gate), both
// OVERWRITTEN. REQUIRES: numel >= 1; all pointers non-null; dgate and dup distinct and
// overlapping neither gate nor up (either may alias dout).
template <class T>
void swiglu_backward(const models::ElementwiseShape& shape, const T* gate, const T* up,
                     const T* dout, T* dgate, T* dup, cudaStream_t stream);

// out = a + b, overwritten (out may alias a or b). No residual_backward: see the CPU header.
// REQUIRES: numel >= 1; shape.dropout == 0; a, b, out non-null.
template <class T>
void residual_forward(const models::ElementwiseShape& shape, const T* a, const T* b, T* out,
                      cudaStream_t stream);

}  // namespace zs::kernels::cuda
