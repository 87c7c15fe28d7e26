// What eager PyTorch launches for a model op when it runs Hugging Face's modules, beyond the
// GEMMs and a fused attention core: one kernel per ATen operator, each reading its inputs and
// writing its outputs in HBM.
//
// The alternative, KernelStyle::kFused, is what models/op_costs.h counts: each op one ideal
// kernel that reads every operand once (llm.c, Megatron's fused kernels, torch.compile). Eager
// is what an HF model under DeepSpeed runs by default: GPT-2's gelu_new is 8 kernels forward and
// 13 backward over the t x I activation, the eager attention passes the b x a x s x s scores
// through 5 kernels forward, Llama's RMSNorm upcasts to fp32 in 8 kernels.
//
// The figures were recorded from the real modules (transformers 5.16.1, torch 2.13) by
// scripts/measure_eager_kernels.py, which intercepts every ATen call forward and backward;
// results/measurements/2026-12-05-eager-kernels.json keeps its output and the kernel lists
// (Phi-3, Gemma, Gemma 2, OPT, GPT-NeoX and BERT added to 2026-11-25-eager-kernels.json; every
// earlier row the same).
// Each module's kernels are charged to one model op of the graph (models/op_graph.h):
//   norm       -> attn_norm, mlp_norm, final_norm (LayerNorm or RMSNorm by the model's norm;
//                 Gemma's (1 + w) RMSNorm in fp32), Gemma 2's and 3's attn.post_norm and
//                 mlp.post_norm, and Qwen3's attn.q_norm and attn.k_norm over their own t x q and t
//                 x kv elements (Qwen3RMSNorm is LlamaRMSNorm's code; Qwen3Attention is Llama's
//                 with the two norm modules called from it, transformers' modeling_qwen3.py)
//   attention  -> attn.core: the whole attention module but its projections' GEMMs and the
//                 core's batched GEMMs (eager) or fused kernel (flash): head split/merge copies,
//                 the score passes, rotary embedding (so attn.rotary costs nothing here), the
//                 residual dropout on the output projection, the bias-gradient sums
//   mlp        -> mlp.act: activation, residual dropout, bias-gradient sums
//   residual   -> attn.residual, mlp.residual: the add, and backward the add with which autograd
//                 sums the skip's and the branch's gradients
//   loss       -> loss: HF's ForCausalLMLoss (fp32 upcast of the logits, log-softmax, NLL), and
//                 Gemma 2's soft-capping of the logits before it (softcap); an encoder head's
//                 loss over its own logits (BERT's masked LM: t x V; question answering: 2 x b x s)
// BERT's norm (its embedding's, the layers' after the adds and the masked-LM head's) is its
// LayerNorm's entry; its attention and MLP entries hold the sublayer's dropout. Its heads'
// activations (head.act, pooler.act) keep op_costs.h pricing.
// The embedding and the linears keep their op_costs.h pricing; a linear launches its GEMMs only
// (1 forward, 2 backward: its bias gradient is the module's sum kernel above).
#pragma once

#include <optional>
#include <string_view>

#include "common/status.h"
#include "models/model_spec.h"
#include "models/ops.h"

namespace zs::sim {

enum class KernelStyle {
  kEager,  // HF modules in eager PyTorch (the default: what DeepSpeed users run)
  kFused,  // one ideal kernel per op (llm.c, Megatron-style fused kernels, torch.compile)
};
std::string_view kernel_style_name(KernelStyle s);
// "eager" or "fused"; kInvalidArgument naming `what` (a flag or a key) and the value otherwise.
Result<KernelStyle> parse_kernel_style(std::string_view what, std::string_view text);

// Memory-bound work of one model op as eager PyTorch runs it.
struct EagerWork {
  int fwd_kernels = 0, bwd_kernels = 0;
  double fwd_bytes = 0, bwd_bytes = 0;  // HBM reads + writes
};

// The eager work of `op` for a model `spec` at workload `w`, or nullopt for ops priced by
// models/op_costs.h alone (embedding, linears).
std::optional<EagerWork> eager_work(const models::Op& op, const models::ModelSpec& spec,
                                    const models::Workload& w);

}  // namespace zs::sim
