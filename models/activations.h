// Activation memory: the bytes the forward pass keeps for backward, per layer and in total, with
// and without full activation checkpointing, and the working set at the backward peak.
//
// Everything is summed from the saved tensors of forward_ops (op_graph.h lists them per op), so
// the totals and the per-op timeline plan/ and sim/ replay cannot disagree.
//
// Check against Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
// Models" (arXiv:2205.05198) §4.1, eq. 1: a GPT-2-style layer (LayerNorm, GELU MLP of 4h, dropout
// on attention probabilities and both residual branches, unfused attention) with 16-bit
// activations and 1-byte masks saves
//     s·b·h·(34 + 5·a·s/h)  bytes  =  34·s·b·h + 5·a·s²·b
//   attention block 11·sbh + 5·as²b: QKV input 2, Q and K 4, softmax output 2as²b, its dropout
//     mask as²b and output 2as²b, V 2, out-projection input 2, residual dropout mask 1;
//   MLP 19·sbh: up input 2, GELU input 8 (4h wide), down input 8, dropout mask 1;
//   two LayerNorm inputs 4·sbh.
// Variants, from the same derivation:
//   - flash attention: no s² term; Q, K, V as before plus the fp32 log-sum-exp, 4·a·s·b bytes;
//     no attention-dropout mask (the kernel regenerates it from the RNG seed).
//   - no dropout (Llama, Mistral, Qwen2): no masks (-2·sbh) and no dropout output (-3·as²b).
//   - HF's eager attention outside GPT-2 (modeling_llama.py eager_attention_forward and its
//     copies) runs softmax(..., dtype=torch.float32).to(query.dtype): the softmax keeps its fp32
//     output, 4·as²b, and P·V its 16-bit cast, 2·as²b, 6·as²b in all against GPT-2's 2·as²b
//     (measured: scripts/measure_attention_saved.py).
//   - SwiGLU MLP: 2·sbh (gate/up input) + 3 tensors of s·b·I (gate, silu, up) + the down input
//     s·b·I: 2·sbh + 8·sbI bytes.
//   - RMSNorm: like LayerNorm, its input only.
//   - GQA: with flash attention K and V shrink to kv_heads; unfused, HF expands them first.
//   - fp32 activations: every non-mask tensor doubles.
// Full activation checkpointing (DeepSpeed's checkpoint_activations / HF
// gradient_checkpointing, one checkpoint per layer) keeps each layer's input, e·s·b·h bytes,
// and re-runs one layer's forward during backward, so that layer's saved tensors are live again.
//
// Non-layer terms: the embedding op's int64 input ids and dropout mask (its output is layer 0's
// input, saved by that layer's first norm and counted there); the final norm's input
// and the LM head's input (e·t·h each); the loss's fp32 log-probabilities (4·t·V, what
// log_softmax saves when HF's loss upcasts the logits) and int64 labels. The logits themselves
// (e·t·V) are not saved by autograd, but HF returns them in the model output, which training
// loops (`out = engine(batch); engine.backward(out.loss)`) hold through backward: they are
// counted as live throughout, in `logits_bytes`.
#pragma once

#include "common/units.h"
#include "models/model_spec.h"
#include "models/ops.h"

namespace zs::models {

struct ActivationSummary {
  Bytes per_layer_bytes = 0;  // saved by one transformer layer, no checkpointing
  Bytes non_layer_bytes = 0;  // embedding, final norm, LM head and loss saved tensors
  Bytes logits_bytes = 0;     // e·t·V (an encoder head: its few), held by the loop (above)
  // Live at the end of forward: L·per_layer + non_layer + logits.
  Bytes total_bytes = 0;
  // With full checkpointing: each layer keeps e·t·h, L·that + non_layer + logits.
  Bytes checkpoint_per_layer_bytes = 0;
  Bytes total_checkpointed_bytes = 0;
  // The largest activation footprint while backward runs: saved tensors not yet freed plus the
  // activation gradients of the op being differentiated (OpCosts::bwd_grad_bytes). Without
  // checkpointing the start of backward usually dominates; with it, the recomputed layer.
  Bytes peak_backward_bytes = 0;
  Bytes peak_backward_checkpointed_bytes = 0;
};

// Bytes saved for backward by the ops of `layer` in `ops`.
Bytes layer_saved_bytes(const std::vector<Op>& ops, int layer);

// Summarises forward_ops(spec, w).
// REQUIRES: validate(spec).is_ok() && validate_workload(spec, w).is_ok()
ActivationSummary activation_summary(const ModelSpec& spec, const Workload& w);

// Korthikanti et al. eq. 1 for 16-bit activations: s·b·h·(34 + 5·a·s/h) = 34·sbh + 5·a·s²·b.
std::int64_t korthikanti_layer_bytes(std::int64_t s, std::int64_t b, std::int64_t h,
                                     std::int64_t a);

}  // namespace zs::models
