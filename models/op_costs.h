// FLOPs and HBM bytes of one op, from its kind and shape alone.
//
// FLOPs (a multiply-add is 2 FLOPs):
//  - GEMM Y[m,n] = X[m,k]·W[k,n]: 2·m·n·k forward; backward 4·m·n·k = dgrad (dX = dY·W^T,
//    2·m·n·k) + wgrad (dW = X^T·dY, 2·m·n·k). A bias adds m·n forward (the add) and m·n backward
//    (the column sum giving d bias). Narayanan et al. 2021 (arXiv:2104.04473) §5.1 count the same.
//  - Unfused attention, per layer: Q·K^T and P·V are 2·b·a·s²·d each, so 4·b·a·s²·d forward
//    (= 4·b·s²·h for a·d = h) and 8·b·a·s²·d backward (dQ, dK, dP, dV). The causal mask does NOT
//    halve it: cuBLAS computes the full s×s product and the mask is applied after. Grouped-query
//    K/V are expanded to a heads first (HF repeat_kv), so GQA does not change these FLOPs.
//  - Flash attention with a causal mask skips the masked tiles: over s·(s+1)/2 (query, key)
//    pairs instead of s², forward 4·b·a·d·pairs; backward 10·b·a·d·pairs, because the kernel
//    recomputes Q·K^T (2) before dV, dP, dQ, dK (8) (Dao 2023, FlashAttention-2 §3.2). Diagonal
//    tiles compute a few masked pairs too; that is ignored.
//  - Everything else is memory-bound; its FLOPs are nominal per-element counts (the ElementFlops
//    constants in op_costs.cc: LayerNorm 8/12, RMSNorm 4/8, GELU (tanh form) 8/12, SwiGLU 6/10,
//    softmax 5/4 per score, dropout 1/1, residual add 1/1, rotary 3/3, cross-entropy 5/2 per logit,
//    embedding 0/1 (+1/1 for learned positions); forward/backward) so totals are complete.
//
// HBM bytes: a roofline estimate, every operand read once and every result written once, at e
// bytes per element (weights too: they are read in the 16-bit compute copy under mixed
// precision), dropout masks at 1 byte, the loss at fp32:
//  - GEMM forward e·(mk + kn + mn); backward 2·e·(mk + kn + mn) (dgrad reads dY, W, writes dX;
//    wgrad reads X, dY, writes dW).
//  - Unfused attention writes and re-reads the s×s scores several times (scores, softmax,
//    dropout, P·V); flash attention touches only Q, K, V, O (and dO, dQ, dK, dV) plus fp32
//    per-row softmax statistics (4 bytes per query row per head).
#pragma once

#include <cstdint>

#include "models/ops.h"

namespace zs::models {

// Returns the costs of an op of `kind` with payload `shape` at `act_bytes` bytes per
// activation element.
// REQUIRES: `shape` holds the payload of `kind` (kLinear: GemmShape; kAttention and
// kFlashAttention: AttentionShape; kNorm: NormShape; kEmbedding: EmbeddingShape; kCrossEntropy:
// CrossEntropyShape; the rest: ElementwiseShape); act_bytes is 2 or 4.
OpCosts op_costs(OpKind kind, const OpShape& shape, std::int64_t act_bytes);

// Number of (query, key) pairs a causal flash kernel computes per (sequence, head): s·(s+1)/2,
// or s·s_k without a causal mask (s_k = a.keys(): the encoder's tokens for a cross-attention).
std::int64_t attention_pairs(const AttentionShape& a);

}  // namespace zs::models
