// GPT-2's weight initialisation, seeded and portable, for the executor's models.
//
// Hugging Face GPT2PreTrainedModel._init_weights (modeling_gpt2.py), as llm.c's train_gpt2.py
// also initialises, with initializer_range 0.02:
//   embedding tables and linear weights   normal(0, 0.02)
//   residual projections                  normal(0, 0.02 / sqrt(2·L)): the weights of the ops
//                                         "layers.<i>.attn.out_proj" and "layers.<i>.mlp.down"
//                                         (GPT-2's c_proj.weight; o_proj / down_proj)
//   norm weights 1, every bias 0
// The llama family gets the same rule (HF's LlamaPreTrainedModel draws normal(0, 0.02) without
// the residual scaling; the executor keeps one rule for every family).
//
// Draws: one std::mt19937_64(seed) stream (its output sequence is fixed by the C++ standard)
// turned into normals by Box-Muller in double, both values of each pair used, tensor by tensor
// in registration order, element by element in storage order; norm weights and biases draw
// nothing. std::normal_distribution is not used: its algorithm is the library's choice, so its
// values differ between standard libraries.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/ops.h"
#include "models/parameters.h"

namespace zs::exec {

inline constexpr double kGpt2InitStd = 0.02;  // GPT2Config.initializer_range

// Writes the initial value of every non-tied parameter into `flat`, tensor `id` at offsets[id].
// ops: models::forward_ops of the same spec (it says which tensors are norms and residual
// projections); num_layers: L.
// REQUIRES: params, offsets and ops describe one spec; offsets[id] + numel <= flat.size() for
// every non-tied tensor; num_layers >= 1.
void init_gpt2_weights(const std::vector<models::Op>& ops,
                       const std::vector<models::ParamTensor>& params,
                       const std::vector<std::int64_t>& offsets, std::int64_t num_layers,
                       std::uint64_t seed, std::span<float> flat);

}  // namespace zs::exec
