// What Hugging Face's eager modules ask of the host for one model op: ATen calls that reach the
// dispatcher below autograd, forward and backward (the autograd engine's own), and nn.Module
// calls. A step's host time is mostly these calls (each one a dispatch; a kernel launch on top
// for those that run a kernel; the Python of each module call around them), so the Plan's host
// model counts them per model op (plan/host_ops.h) and the simulator prices them.
//
// The figures were recorded from the real modules (transformers 5.16.1, torch 2.13, bf16,
// training mode, a micro-batch of 2 or more) by scripts/measure_eager_dispatch.py, which counts
// every call under a TorchDispatchMode and charges it to a model op (models/op_graph.h): forward
// by the innermost module running it, backward per layer from the whole model's count shared as
// each part's own backward has it; results/measurements/2026-12-05-eager-dispatch.json keeps its
// output (with Qwen3's q_norm and k_norm, each an op of its own, and the MoE block's routing and
// experts of Mixtral and Qwen3-MoE). The attention module's own calls
// (head split and merge, rotary, the SDPA core or the eager score passes, its dropout) go to
// attn.core; the MLP's own calls and its activation module to mlp.act; the decoder layer's own
// calls (the residual adds, and backward the adds of the two gradient streams) to the residual ops,
// half each; the base model's own calls (position ids, masks, the rotary table, embedding dropout)
// to embed; the causal LM's (the loss) to loss. Dropout runs as on CUDA (one native_dropout call;
// SDPA's inside its fused kernel).
#pragma once

#include "models/model_spec.h"
#include "models/ops.h"

namespace zs::models {

struct HostDispatch {
  int kernels = 0;  // ATen calls that run a kernel on the device (copies included)
  int other = 0;    // ATen calls that run none: views, allocations, scalar reads
  int modules = 0;  // nn.Module calls (forward only: backward calls no module)
  int syncs = 0;    // of `other`, reads of a device scalar (.item(), bool()): a host-device sync
  int calls() const { return kernels + other; }
};

struct EagerDispatch {
  HostDispatch fwd, bwd;
};

// The calls of model op `op` of a model `spec` run at workload `w` (flash attention: SDPA;
// otherwise HF's eager attention). GPT-2's table depends on whether it has dropout; Llama's
// serves Mistral (the same modules); Qwen2 adds the q/k/v biases' gradient sums. Qwen2 with
// eager attention takes Llama's eager core. Mixtral's router module (its linear, softmax, top-k,
// renormalization) is mlp.route's entry; the MoE block's own calls, its experts' and their
// act_fn's are mlp.experts' (transformers 5's grouped_mm experts: the calls do not depend on the
// routing). BERT's were measured on BertForMaskedLM: the embeddings' own calls (the sums, the
// token-type gather) and the embedding dropout are embed's, BertSelfOutput's and BertOutput's
// (dropout and add) the residual ops'; its question-answering and classification heads take
// the masked-LM head's dense layer's entry (bert_key). T5's were measured on
// T5ForConditionalGeneration, ReLU (t5-*) and gated GELU (t5-v1_1, flan-t5): a stack's first
// block's cores also make the relative position bias (attn.bias, dec.attn.bias) and the
// decoder's first cross-attention its zero bias (dec.cross.bias). Every op of every supported
// model has an entry.
EagerDispatch eager_dispatch(const Op& op, const ModelSpec& spec, const Workload& w);

}  // namespace zs::models
