// Test-only: the small models and token ids that the model-runner tests on the CPU
// (tests/exec) and on CUDA (tests/exec_cuda) share, so both runners are checked on the same
// inputs.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "exec/model_runner.h"
#include "models/zoo.h"

namespace zs::exec::testing {

// zoo "tiny-gpt" shrunk: 2 layers, h 32, 4 heads of 8, I 128, vocab 64, 16 positions.
inline models::ModelSpec small_gpt() {
  models::ModelSpec spec = without_dropout(models::zoo_model("tiny-gpt").value());
  spec.name = "small-gpt";
  spec.vocab_size = 64;
  spec.hidden_size = 32;
  spec.head_dim = 8;
  spec.intermediate_size = 128;
  spec.max_position_embeddings = 16;
  return spec;
}

// A llama-family model with every llama piece: RMSNorm, RoPE, SwiGLU, grouped-query attention
// (4 query heads, 2 kv heads), an untied LM head; plus Qwen2's q/k/v biases.
inline models::ModelSpec small_llama() {
  models::ModelSpec spec = models::zoo_model("llama3-8b").value();
  spec.name = "small-llama";
  spec.vocab_size = 64;
  spec.hidden_size = 32;
  spec.num_layers = 2;
  spec.num_heads = 4;
  spec.num_kv_heads = 2;
  spec.head_dim = 8;
  spec.intermediate_size = 48;
  spec.max_position_embeddings = 64;
  spec.bias.qkv = true;
  spec.rope_theta = 10000.0;
  return spec;
}

// Qwen3's layout at the same size: q_norm and k_norm on each head, no biases, head_dim apart
// from hidden / heads (as Qwen3-0.6B's 128 against 1024 / 16), tied embeddings.
inline models::ModelSpec small_qwen3() {
  models::ModelSpec spec = small_llama();
  spec.name = "small-qwen3";
  spec.model_type = models::ModelType::kQwen3;
  spec.qk_norm = true;
  spec.bias = {};
  spec.head_dim = 12;
  spec.tie_word_embeddings = true;
  return spec;
}

inline constexpr models::Workload kSmall{.micro_batch = 2, .seq_len = 16};

// n token ids below `vocab`, reproducible from `seed`.
inline std::vector<std::int32_t> random_ids(std::int64_t n, std::int64_t vocab,
                                            std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::int32_t> ids(static_cast<std::size_t>(n));
  for (std::int32_t& id : ids) id = static_cast<std::int32_t>(rng() % vocab);
  return ids;
}

}  // namespace zs::exec::testing
