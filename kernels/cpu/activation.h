// Elementwise MLP activations and the residual add, on the CPU.
//
// Conventions (shared by kernels/cpu/): raw contiguous fp32 buffers of shape.numel elements
// (the (t, I) or (t, h) activation flattened); input gradients are OVERWRITTEN; REQUIRES:
// preconditions abort through ZS_CHECK; deterministic. These ops have no parameters. Outputs
// may alias inputs elementwise (out == x, dx == dout): each element is read before it is
// written. Dropout is not supported (the executor trains with dropout 0).
#pragma once

#include "models/ops.h"

namespace zs::kernels::cpu {

// GELU, tanh approximation: HF's "gelu_new" (GPT-2's activation_function; NewGELUActivation),
//   out = 0.5·x·(1 + tanh(sqrt(2/π)·(x + 0.044715·x³))), overwritten.
// x, out (numel). REQUIRES: numel >= 1; x, out non-null.
void gelu_forward(const models::ElementwiseShape& shape, const float* x, float* out);

// dx (numel) = gelu'(x)·dout, OVERWRITTEN, with
//   gelu'(x) = 0.5·(1 + tanh(u)) + 0.5·x·(1 - tanh²(u))·sqrt(2/π)·(1 + 3·0.044715·x²),
//   u = sqrt(2/π)·(x + 0.044715·x³)  (DeepSpeed csrc/transformer/gelu_kernels.cu, d_gelu).
// x is the forward's input. REQUIRES: numel >= 1; x, dout, dx non-null.
void gelu_backward(const models::ElementwiseShape& shape, const float* x, const float* dout,
                   float* dx);

// SwiGLU (LlamaMLP): out = silu(gate)·up with silu(g) = g·sigmoid(g); overwritten.
// gate, up, out (t, I) as separate buffers (the gate_proj and up_proj outputs); numel = t·I.
// REQUIRES: numel >= 1; gate, up, out non-null.
void swiglu_forward(const models::ElementwiseShape& shape, const float* gate, const float* up,
                    float* out);

// Gradients of swiglu_forward given dout (t, I), both OVERWRITTEN:
//   dgate = dout·up·sigmoid(gate)·(1 + gate·(1 - sigmoid(gate)))
//   dup   = dout·silu(gate)
// REQUIRES: numel >= 1; all pointers non-null; dgate and dup distinct and overlapping neither
// gate nor up (dgate or dup may alias dout).
void swiglu_backward(const models::ElementwiseShape& shape, const float* gate, const float* up,
                     const float* dout, float* dgate, float* dup);

// Residual add: out = a + b, overwritten (out may alias a or b).
// There is no residual_backward: the gradient of out flows unchanged to both a and b (identity),
// so the executor passes dout on to both branches itself (accumulating where a branch already
// holds a gradient). REQUIRES: numel >= 1; shape.dropout == 0; a, b, out non-null.
void residual_forward(const models::ElementwiseShape& shape, const float* a, const float* b,
                      float* out);

}  // namespace zs::kernels::cpu
