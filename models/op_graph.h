// The forward pass of one micro-step as an ordered list of Ops, and the order in which backward
// produces parameter gradients.
//
// Op names are stable (tests pin them; plan/ and reports key on them). In execution order:
//   embed                                  token (+ position) lookup, embedding dropout
//   per layer i, prefix "layers.<i>.":
//     attn_norm                            ln_1 / input_layernorm
//     attn.qkv                             gpt2: the fused c_attn GEMM (h -> 3h)
//     attn.q_proj, attn.k_proj,            llama family: three GEMMs on the same input
//     attn.v_proj, attn.rotary             ... then RoPE on q and k
//     attn.core                            kAttention, or kFlashAttention with flash_attention
//     attn.out_proj                        c_proj / o_proj
//     attn.residual                        resid dropout + residual add
//     mlp_norm                             ln_2 / post_attention_layernorm
//     mlp.up, mlp.act                      gpt2: c_fc, GELU
//     mlp.gate, mlp.up, mlp.act            SwiGLU: gate_proj, up_proj, silu(gate)·up
//     mlp.down                             c_proj / down_proj
//     mlp.router, mlp.route, mlp.experts   mixtral instead of the MLP: gate (the router's
//                                          linear), softmax + top-k, the experts
//     mlp.residual                         resid dropout + residual add
//   final_norm, lm_head, loss              ln_f / norm; logits GEMM; fp32 cross-entropy
// DeepSeek's latent attention (MlaSpec) in place of the q/k/v projections: attn.q_proj (or
// attn.q_a, attn.q_a_norm, attn.q_b through the query's low rank), attn.kv_a
// (kv_a_proj_with_mqa), attn.kv_a_norm, attn.kv_b (kv_b_proj), attn.rotary {query, attn.kv_a},
// attn.core {attn.rotary, attn.kv_b}; its MoE layers mlp.router, mlp.route, mlp.experts, then
// the shared experts mlp.shared.gate, mlp.shared.up, mlp.shared.act, mlp.shared.down and
// mlp.combine {mlp.experts, mlp.shared.down} (an add); its dense first layers the SwiGLU MLP.
// An encoder (bert) instead: embed (word + token-type + position), embed_norm (LayerNorm, then
// the embedding dropout); per layer attn.q_proj, attn.k_proj, attn.v_proj {resid}, attn.core
// (no causal mask), attn.out_proj, attn.residual, attn_norm {attn.residual}, mlp.up, mlp.act,
// mlp.down, mlp.residual, mlp_norm {mlp.residual} (the norms after the adds; each norm's output
// is the residual stream); no final norm; then the head: head.dense, head.act, head.norm,
// lm_head (the decoder over V), loss (masked LM); head (qa_outputs), loss over the start and
// end logits (question answering); pooler, pooler.act (tanh), head (classifier), loss
// (sequence classification). DeBERTa-v2's encoder adds rel_norm (the relative table's
// LayerNorm, before the layers), per layer attn.pos_q, attn.pos_k (the table through
// query_proj and key_proj), attn.c2p {attn.q_proj, attn.pos_k} and attn.p2c {attn.k_proj,
// attn.pos_q} feeding attn.core, and after layer 0 its ConvLayer: layers.0.conv {layer 0's input},
// layers.0.conv.act, layers.0.conv.residual {layer 0's output}, layers.0.conv_norm (the next
// layer's input).
// An encoder-decoder (t5, blenderbot): embed; the encoder's layers 0..L-1 (attn_norm, attn.q_proj,
// attn.k_proj, attn.v_proj, attn.core, attn.out_proj, attn.residual, mlp_norm, mlp.up (T5's
// gated MLP: mlp.gate too), mlp.act, mlp.down, mlp.residual) over seq_len tokens;
// encoder.final_norm; decoder.embed {kTargetsInput}; the decoder's layers L..L+Ld-1 over
// target_len tokens, each with cross_norm, cross.q_proj, cross.k_proj and cross.v_proj (these
// two reading encoder.final_norm), cross.core, cross.out_proj, cross.residual between its
// self-attention and its MLP; final_norm, lm_head, loss. encoder.final_norm and decoder.embed
// are outside the layers (kEmbeddingLayer).
//
// What each op saves for backward (16-bit activations unless noted; e bytes per element):
//   norms: their input (t·h). Per-row statistics (mean, rstd: 4-8 bytes per row) are O(t) and not
//     counted, as in Korthikanti et al. 2022.
//   linears: their input (t·k). q/k/v_proj (and gate/up) read the same tensor: saved once.
//   rotary: nothing of size t (only the cos/sin tables, shared by all layers).
//   unfused attention: Q, K, V at a heads (HF repeat_kv materialises grouped K/V before the
//     matmuls, so GQA does not shrink them here), the softmax output (b·a·s²; fp32 outside
//     GPT-2, whose P·V then keeps the 16-bit cast too) and, with attention dropout, its 1-byte
//     mask and the dropped-out probabilities (P·V's input instead of the cast).
//   flash attention: Q, and K, V at kv_heads (grouped), and the fp32 log-sum-exp (4·b·a·s). Its
//     output O is the out_proj's saved input, counted there. No mask (regenerated from the seed).
//   GELU: its input (t·I). SwiGLU: gate output, silu(gate) and up output (3·t·I).
//   residual add: the 1-byte dropout mask when resid dropout > 0, else nothing.
//   embed: the int64 input ids, and the embedding-dropout mask. loss: the fp32 log-probabilities
//     (4·t·V) and the int64 labels. Loss over all t tokens (HF shifts to s-1 per row; ignored).
//
// Dataflow (Op::inputs, indices into the same list; "resid" is the residual stream entering the
// layer: the previous layer's mlp.residual, or embed for layer 0):
//   embed {kTokenIdsInput}                 attn_norm {resid}
//   attn.qkv {attn_norm}                   its output (t, q + 2·kv) is [q | k | v] per token, as
//                                          GPT2Attention splits c_attn's output
//   attn.q_proj, attn.k_proj, attn.v_proj {attn_norm} each
//   attn.rotary {q_proj, k_proj}           its output is the rotated q (t, a·d) followed by the
//                                          rotated k (t, kv·d), one tensor of t·(q + kv)
//                                          elements; v does not pass through it
//   attn.core {attn.qkv} (gpt2), or {attn.rotary, attn.v_proj} (llama family)
//   attn.out_proj {attn.core}              attn.residual {resid, attn.out_proj}
//   mlp_norm {attn.residual}
//   mlp.up {mlp_norm}, mlp.act {mlp.up}    gpt2 (GELU)
//   mlp.gate, mlp.up {mlp_norm} each; mlp.act {mlp.gate, mlp.up}   SwiGLU
//   mlp.down {mlp.act}                     mlp.residual {attn.residual, mlp.down}
//   mixtral: mlp.router {mlp_norm}, mlp.route {mlp.router}, mlp.experts {mlp_norm, mlp.route};
//            mlp.residual {attn.residual, mlp.experts}
//   final_norm {last layer's mlp.residual}; lm_head {final_norm}; loss {lm_head, kTargetsInput}
#pragma once

#include <vector>

#include "models/model_spec.h"
#include "models/ops.h"

namespace zs::models {

// The forward ops of one micro-step, in execution order, with costs filled in.
// REQUIRES: validate(spec).is_ok() && validate_workload(spec, w).is_ok()
std::vector<Op> forward_ops(const ModelSpec& spec, const Workload& w);

// Ids (parameter_tensors(spec)) of every non-alias parameter, in the order autograd finishes
// their gradients: the reverse of first use in forward. A tied table is used first by the
// embedding and last by the LM head, and its gradient is complete only when the embedding's
// backward has run, so it comes last. Within one op the order is bias before weight (autograd
// does not promise one; buckets are insensitive to it). ZeRO fills its gradient buckets in this
// order (stage_1_and_2.py reduce_ready_partitions_and_remove_grads via grad hooks).
// REQUIRES: validate(spec).is_ok()
std::vector<int> gradient_ready_order(const ModelSpec& spec);

}  // namespace zs::models
