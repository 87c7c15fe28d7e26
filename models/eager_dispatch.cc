#include "models/eager_dispatch.h"

#include <string>
#include <string_view>

#include "common/check.h"

namespace zs::models {
namespace {

struct Counts {
  int kernels = 0, other = 0, syncs = 0;
};
struct Entry {
  std::string_view variant, op;
  Counts fwd, bwd;
  int modules = 0;
};

// scripts/measure_eager_dispatch.py --cxx (transformers 5.16.1, torch 2.13.0, bf16): variant, op,
// forward {kernels, other, of which scalar reads}, backward the same, forward module calls.
// clang-format off
constexpr Entry kTable[] = {
    {"gpt2", "embed", {13, 9, 1}, {3, 5, 0}, 4},
    {"gpt2", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2", "attn.qkv", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2", "attn.core", {2, 10, 0}, {2, 9, 0}, 2},
    {"gpt2", "attn.out_proj", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2", "mlp.up", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2", "mlp.act", {9, 1, 0}, {9, 1, 0}, 3},
    {"gpt2", "mlp.down", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2", "residual", {2, 0, 0}, {0, 12, 0}, 1},
    {"gpt2", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gpt2", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gpt2_nodropout", "embed", {12, 9, 1}, {2, 5, 0}, 4},
    {"gpt2_nodropout", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_nodropout", "attn.qkv", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_nodropout", "attn.core", {1, 10, 0}, {1, 9, 0}, 2},
    {"gpt2_nodropout", "attn.out_proj", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_nodropout", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_nodropout", "mlp.up", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_nodropout", "mlp.act", {8, 1, 0}, {8, 1, 0}, 3},
    {"gpt2_nodropout", "mlp.down", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_nodropout", "residual", {2, 0, 0}, {0, 12, 0}, 1},
    {"gpt2_nodropout", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_nodropout", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gpt2_nodropout", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gpt2_eager", "embed", {22, 23, 1}, {3, 5, 0}, 4},
    {"gpt2_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_eager", "attn.qkv", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager", "attn.core", {11, 21, 0}, {10, 20, 0}, 2},
    {"gpt2_eager", "attn.out_proj", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_eager", "mlp.up", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager", "mlp.act", {9, 1, 0}, {10, 1, 0}, 3},
    {"gpt2_eager", "mlp.down", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager", "residual", {2, 0, 0}, {0, 12, 0}, 1},
    {"gpt2_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gpt2_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gpt2_eager_nodropout", "embed", {21, 23, 1}, {2, 5, 0}, 4},
    {"gpt2_eager_nodropout", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_eager_nodropout", "attn.qkv", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager_nodropout", "attn.core", {9, 21, 0}, {9, 20, 0}, 2},
    {"gpt2_eager_nodropout", "attn.out_proj", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager_nodropout", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_eager_nodropout", "mlp.up", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager_nodropout", "mlp.act", {8, 1, 0}, {8, 1, 0}, 3},
    {"gpt2_eager_nodropout", "mlp.down", {1, 2, 0}, {4, 5, 0}, 1},
    {"gpt2_eager_nodropout", "residual", {2, 0, 0}, {0, 12, 0}, 1},
    {"gpt2_eager_nodropout", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt2_eager_nodropout", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gpt2_eager_nodropout", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"llama", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"llama", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"llama", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "attn.core", {11, 15, 0}, {15, 13, 0}, 1},
    {"llama", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "mlp_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"llama", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"llama", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "residual", {2, 0, 0}, {0, 9, 0}, 1},
    {"llama", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"llama", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"llama_eager", "embed", {29, 31, 1}, {0, 3, 0}, 3},
    {"llama_eager", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"llama_eager", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "attn.core", {21, 32, 0}, {25, 28, 0}, 1},
    {"llama_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"llama_eager", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"llama_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "residual", {2, 0, 0}, {0, 9, 0}, 1},
    {"llama_eager", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"llama_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"llama_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"qwen2", "embed", {20, 17, 1}, {0, 2, 0}, 3},
    {"qwen2", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen2", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"qwen2", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"qwen2", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"qwen2", "attn.core", {11, 15, 0}, {15, 13, 0}, 1},
    {"qwen2", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2", "mlp_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"qwen2", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"qwen2", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2", "residual", {2, 0, 0}, {0, 12, 0}, 1},
    {"qwen2", "final_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen2", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"qwen3", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"qwen3", "attn_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"qwen3", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "attn.q_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen3", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "attn.k_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen3", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "attn.core", {11, 15, 0}, {14, 13, 0}, 1},
    {"qwen3", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "mlp_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"qwen3", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"qwen3", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "residual", {2, 0, 0}, {0, 11, 0}, 1},
    {"qwen3", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"qwen3", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"mixtral", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"mixtral", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"mixtral", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"mixtral", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"mixtral", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"mixtral", "attn.core", {11, 15, 0}, {16, 13, 0}, 1},
    {"mixtral", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"mixtral", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"mixtral", "mlp.route", {7, 3, 0}, {14, 7, 0}, 1},
    {"mixtral", "mlp.experts", {21, 11, 0}, {21, 15, 0}, 3},
    {"mixtral", "residual", {2, 0, 0}, {0, 9, 0}, 1},
    {"mixtral", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"mixtral", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"mixtral", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"qwen3_moe", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"qwen3_moe", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen3_moe", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3_moe", "attn.q_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen3_moe", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3_moe", "attn.k_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen3_moe", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3_moe", "attn.core", {11, 15, 0}, {14, 13, 0}, 1},
    {"qwen3_moe", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3_moe", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen3_moe", "mlp.route", {8, 3, 0}, {15, 7, 0}, 1},
    {"qwen3_moe", "mlp.experts", {20, 11, 0}, {19, 15, 0}, 3},
    {"qwen3_moe", "residual", {2, 0, 0}, {0, 11, 0}, 1},
    {"qwen3_moe", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"qwen3_moe", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen3_moe", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"qwen2_moe", "embed", {39, 36, 2}, {0, 3, 0}, 3},
    {"qwen2_moe", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen2_moe", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"qwen2_moe", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"qwen2_moe", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"qwen2_moe", "attn.core", {11, 15, 0}, {16, 13, 0}, 1},
    {"qwen2_moe", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2_moe", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"qwen2_moe", "mlp.shared.gate", {1, 1, 0}, {3, 6, 0}, 1},
    {"qwen2_moe", "mlp.shared.up", {1, 1, 0}, {3, 6, 0}, 1},
    {"qwen2_moe", "mlp.shared.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"qwen2_moe", "mlp.shared.down", {1, 1, 0}, {3, 6, 0}, 1},
    {"qwen2_moe", "mlp.route", {5, 3, 0}, {8, 6, 0}, 1},
    {"qwen2_moe", "mlp.experts", {20, 9, 0}, {18, 7, 0}, 2},
    {"qwen2_moe", "mlp.shared_gate", {1, 1, 0}, {3, 6, 0}, 1},
    {"qwen2_moe", "mlp.combine", {3, 3, 0}, {5, 1, 0}, 1},
    {"qwen2_moe", "residual", {2, 0, 0}, {0, 16, 0}, 1},
    {"qwen2_moe", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"qwen2_moe", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"qwen2_moe", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"phi3", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"phi3", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3", "attn.core", {14, 22, 0}, {23, 17, 0}, 1},
    {"phi3", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3", "mlp.gate_up", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3", "mlp.act", {2, 1, 0}, {3, 0, 0}, 2},
    {"phi3", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3", "residual", {2, 0, 0}, {0, 6, 0}, 3},
    {"phi3", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"phi3", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"phi3_partial", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"phi3_partial", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3_partial", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_partial", "attn.core", {14, 22, 0}, {25, 17, 0}, 1},
    {"phi3_partial", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_partial", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3_partial", "mlp.gate_up", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_partial", "mlp.act", {2, 1, 0}, {3, 0, 0}, 2},
    {"phi3_partial", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_partial", "residual", {2, 0, 0}, {0, 6, 0}, 3},
    {"phi3_partial", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"phi3_partial", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_partial", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"phi3_eager", "embed", {29, 31, 1}, {0, 3, 0}, 3},
    {"phi3_eager", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3_eager", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager", "attn.core", {22, 39, 0}, {34, 32, 0}, 1},
    {"phi3_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3_eager", "mlp.gate_up", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager", "mlp.act", {2, 1, 0}, {3, 0, 0}, 2},
    {"phi3_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager", "residual", {2, 0, 0}, {0, 6, 0}, 3},
    {"phi3_eager", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"phi3_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"phi3_eager_partial", "embed", {29, 31, 1}, {0, 3, 0}, 3},
    {"phi3_eager_partial", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3_eager_partial", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager_partial", "attn.core", {22, 39, 0}, {36, 32, 0}, 1},
    {"phi3_eager_partial", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager_partial", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"phi3_eager_partial", "mlp.gate_up", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager_partial", "mlp.act", {2, 1, 0}, {3, 0, 0}, 2},
    {"phi3_eager_partial", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager_partial", "residual", {2, 0, 0}, {0, 6, 0}, 3},
    {"phi3_eager_partial", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"phi3_eager_partial", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"phi3_eager_partial", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gemma", "embed", {21, 17, 1}, {1, 2, 0}, 3},
    {"gemma", "attn_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "attn.core", {11, 15, 0}, {15, 13, 0}, 1},
    {"gemma", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "mlp_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"gemma", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "residual", {2, 0, 0}, {0, 9, 0}, 1},
    {"gemma", "final_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gemma_eager", "embed", {30, 31, 1}, {1, 2, 0}, 3},
    {"gemma_eager", "attn_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma_eager", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "attn.core", {21, 32, 0}, {25, 28, 0}, 1},
    {"gemma_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "mlp_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma_eager", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"gemma_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "residual", {2, 0, 0}, {0, 9, 0}, 1},
    {"gemma_eager", "final_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gemma2", "embed", {28, 23, 2}, {1, 2, 0}, 3},
    {"gemma2", "attn_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma2", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "attn.core", {11, 15, 0}, {15, 13, 0}, 1},
    {"gemma2", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "attn.post_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2", "mlp_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma2", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"gemma2", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "mlp.post_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma2", "residual", {2, 0, 0}, {0, 11, 0}, 1},
    {"gemma2", "final_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2", "loss", {8, 6, 0}, {7, 3, 0}, 1},
    {"gemma2_eager", "embed", {51, 51, 2}, {1, 2, 0}, 3},
    {"gemma2_eager", "attn_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2_eager", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "attn.core", {24, 33, 0}, {26, 29, 0}, 1},
    {"gemma2_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "attn.post_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2_eager", "mlp_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2_eager", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"gemma2_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "mlp.post_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2_eager", "residual", {2, 0, 0}, {0, 11, 0}, 1},
    {"gemma2_eager", "final_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma2_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma2_eager", "loss", {8, 6, 0}, {7, 3, 0}, 1},
    {"gemma3", "embed", {40, 36, 2}, {1, 2, 0}, 3},
    {"gemma3", "attn_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma3", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "attn.q_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma3", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "attn.k_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "attn.core", {11, 15, 0}, {14, 13, 0}, 1},
    {"gemma3", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "attn.post_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3", "mlp_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma3", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"gemma3", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "mlp.post_norm", {10, 1, 0}, {17, 3, 0}, 1},
    {"gemma3", "residual", {2, 0, 0}, {0, 13, 0}, 1},
    {"gemma3", "final_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gemma3_eager", "embed", {51, 51, 2}, {1, 2, 0}, 3},
    {"gemma3_eager", "attn_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "attn.q_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "attn.k_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "attn.k_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "attn.v_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "attn.core", {21, 32, 0}, {21, 28, 0}, 1},
    {"gemma3_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "attn.post_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "mlp_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "mlp.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "mlp.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"gemma3_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "mlp.post_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "residual", {2, 0, 0}, {0, 13, 0}, 1},
    {"gemma3_eager", "final_norm", {10, 1, 0}, {18, 3, 0}, 1},
    {"gemma3_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gemma3_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"opt", "embed", {12, 3, 1}, {1, 4, 0}, 3},
    {"opt", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"opt", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt", "attn.core", {2, 9, 0}, {1, 9, 0}, 1},
    {"opt", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"opt", "mlp.up", {1, 1, 0}, {4, 7, 0}, 1},
    {"opt", "mlp.act", {1, 1, 0}, {0, 1, 0}, 1},
    {"opt", "mlp.down", {1, 1, 0}, {4, 7, 0}, 1},
    {"opt", "residual", {4, 5, 0}, {0, 14, 0}, 1},
    {"opt", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"opt", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"opt", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"opt_eager", "embed", {23, 16, 0}, {1, 4, 0}, 3},
    {"opt_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"opt_eager", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt_eager", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt_eager", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt_eager", "attn.core", {12, 20, 0}, {12, 20, 0}, 1},
    {"opt_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"opt_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"opt_eager", "mlp.up", {1, 1, 0}, {4, 7, 0}, 1},
    {"opt_eager", "mlp.act", {1, 1, 0}, {0, 1, 0}, 1},
    {"opt_eager", "mlp.down", {1, 1, 0}, {4, 7, 0}, 1},
    {"opt_eager", "residual", {4, 5, 0}, {0, 14, 0}, 1},
    {"opt_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"opt_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"opt_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"gpt_neox", "embed", {20, 17, 1}, {0, 4, 0}, 4},
    {"gpt_neox", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt_neox", "attn.qkv", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox", "attn.core", {14, 16, 0}, {20, 13, 0}, 1},
    {"gpt_neox", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt_neox", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox", "mlp.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"gpt_neox", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox", "residual", {2, 0, 0}, {0, 12, 0}, 3},
    {"gpt_neox", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt_neox", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gpt_neox", "loss", {5, 5, 0}, {3, 2, 0}, 1},
    {"gpt_neox_eager", "embed", {29, 31, 1}, {0, 4, 0}, 4},
    {"gpt_neox_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt_neox_eager", "attn.qkv", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox_eager", "attn.core", {21, 27, 0}, {28, 24, 0}, 1},
    {"gpt_neox_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt_neox_eager", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox_eager", "mlp.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"gpt_neox_eager", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"gpt_neox_eager", "residual", {2, 0, 0}, {0, 12, 0}, 3},
    {"gpt_neox_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"gpt_neox_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"gpt_neox_eager", "loss", {5, 5, 0}, {3, 2, 0}, 1},
    {"bloom_eager", "embed", {24, 17, 0}, {0, 5, 0}, 2},
    {"bloom_eager", "embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bloom_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bloom_eager", "attn.qkv", {1, 3, 0}, {4, 7, 0}, 1},
    {"bloom_eager", "attn.core", {11, 17, 0}, {14, 18, 0}, 2},
    {"bloom_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bloom_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bloom_eager", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"bloom_eager", "mlp.act", {10, 0, 0}, {15, 0, 0}, 2},
    {"bloom_eager", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"bloom_eager", "residual", {0, 0, 0}, {0, 12, 0}, 1},
    {"bloom_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bloom_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"bloom_eager", "loss", {5, 5, 0}, {3, 2, 0}, 1},
    {"falcon", "embed", {20, 24, 0}, {0, 3, 0}, 3},
    {"falcon", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon", "attn.core", {16, 22, 0}, {22, 15, 0}, 1},
    {"falcon", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon", "mlp.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"falcon", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon", "residual", {2, 0, 0}, {0, 6, 0}, 1},
    {"falcon", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"falcon_eager", "embed", {22, 25, 0}, {0, 3, 0}, 3},
    {"falcon_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_eager", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_eager", "attn.core", {21, 31, 0}, {28, 26, 0}, 1},
    {"falcon_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_eager", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_eager", "mlp.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"falcon_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_eager", "residual", {2, 0, 0}, {0, 6, 0}, 1},
    {"falcon_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"falcon_new", "embed", {20, 24, 0}, {0, 3, 0}, 3},
    {"falcon_new", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_new", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new", "attn.core", {19, 25, 0}, {21, 18, 0}, 1},
    {"falcon_new", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_new", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new", "mlp.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"falcon_new", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new", "residual", {2, 0, 0}, {0, 8, 0}, 1},
    {"falcon_new", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_new", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"falcon_new_eager", "embed", {22, 25, 0}, {0, 3, 0}, 3},
    {"falcon_new_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_new_eager", "attn.qkv", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new_eager", "attn.core", {24, 36, 0}, {27, 29, 0}, 1},
    {"falcon_new_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_new_eager", "mlp.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new_eager", "mlp.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"falcon_new_eager", "mlp.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new_eager", "residual", {2, 0, 0}, {0, 8, 0}, 1},
    {"falcon_new_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"falcon_new_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"falcon_new_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"deepseek_v2", "embed", {16, 17, 1}, {0, 3, 0}, 3},
    {"deepseek_v2", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v2", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "attn.kv_a", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "attn.kv_a_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v2", "attn.kv_b", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "attn.core", {11, 25, 0}, {19, 25, 0}, 1},
    {"deepseek_v2", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v2", "mlp.shared.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "mlp.shared.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "mlp.shared.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"deepseek_v2", "mlp.shared.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "mlp.route", {6, 3, 0}, {9, 6, 0}, 1},
    {"deepseek_v2", "mlp.experts", {21, 9, 0}, {20, 15, 0}, 2},
    {"deepseek_v2", "mlp.combine", {1, 2, 0}, {1, 0, 0}, 1},
    {"deepseek_v2", "residual", {2, 0, 0}, {0, 13, 0}, 1},
    {"deepseek_v2", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"deepseek_v2", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"deepseek_v2_eager", "embed", {25, 31, 1}, {0, 3, 0}, 3},
    {"deepseek_v2_eager", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v2_eager", "attn.q_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "attn.kv_a", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "attn.kv_a_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v2_eager", "attn.kv_b", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "attn.core", {18, 36, 0}, {26, 36, 0}, 1},
    {"deepseek_v2_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v2_eager", "mlp.shared.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "mlp.shared.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "mlp.shared.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"deepseek_v2_eager", "mlp.shared.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "mlp.route", {6, 3, 0}, {9, 6, 0}, 1},
    {"deepseek_v2_eager", "mlp.experts", {21, 9, 0}, {20, 15, 0}, 2},
    {"deepseek_v2_eager", "mlp.combine", {1, 2, 0}, {1, 0, 0}, 1},
    {"deepseek_v2_eager", "residual", {2, 0, 0}, {0, 13, 0}, 1},
    {"deepseek_v2_eager", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"deepseek_v2_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v2_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"deepseek_v3", "embed", {20, 17, 1}, {0, 3, 0}, 3},
    {"deepseek_v3", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3", "attn.q_a", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "attn.q_a_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3", "attn.q_b", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "attn.kv_a", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "attn.kv_a_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3", "attn.kv_b", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "attn.core", {19, 24, 0}, {26, 19, 0}, 1},
    {"deepseek_v3", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3", "mlp.shared.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "mlp.shared.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "mlp.shared.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"deepseek_v3", "mlp.shared.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "mlp.route", {21, 7, 0}, {16, 7, 0}, 1},
    {"deepseek_v3", "mlp.experts", {21, 9, 0}, {22, 15, 0}, 2},
    {"deepseek_v3", "mlp.combine", {1, 2, 0}, {1, 0, 0}, 1},
    {"deepseek_v3", "residual", {2, 0, 0}, {0, 15, 0}, 1},
    {"deepseek_v3", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"deepseek_v3", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"deepseek_v3_eager", "embed", {29, 31, 1}, {0, 3, 0}, 3},
    {"deepseek_v3_eager", "attn_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3_eager", "attn.q_a", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "attn.q_a_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3_eager", "attn.q_b", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "attn.kv_a", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "attn.kv_a_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3_eager", "attn.kv_b", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "attn.core", {26, 35, 0}, {34, 30, 0}, 1},
    {"deepseek_v3_eager", "attn.out_proj", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "mlp_norm", {8, 1, 0}, {17, 3, 0}, 1},
    {"deepseek_v3_eager", "mlp.shared.gate", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "mlp.shared.up", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "mlp.shared.act", {2, 0, 0}, {2, 0, 0}, 2},
    {"deepseek_v3_eager", "mlp.shared.down", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "mlp.route", {21, 7, 0}, {16, 7, 0}, 1},
    {"deepseek_v3_eager", "mlp.experts", {21, 9, 0}, {22, 15, 0}, 2},
    {"deepseek_v3_eager", "mlp.combine", {1, 2, 0}, {1, 0, 0}, 1},
    {"deepseek_v3_eager", "residual", {2, 0, 0}, {0, 15, 0}, 1},
    {"deepseek_v3_eager", "final_norm", {8, 1, 0}, {16, 3, 0}, 1},
    {"deepseek_v3_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"deepseek_v3_eager", "loss", {5, 5, 0}, {4, 2, 0}, 1},
    {"deberta_eager", "embed", {32, 12, 1}, {2, 15, 0}, 5},
    {"deberta_eager", "embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"deberta_eager", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"deberta_eager", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"deberta_eager", "attn.core", {43, 36, 0}, {31, 40, 0}, 4},
    {"deberta_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"deberta_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"deberta_eager", "mlp.act", {1, 0, 0}, {1, 0, 0}, 2},
    {"deberta_eager", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"deberta_eager", "residual", {4, 0, 0}, {0, 16, 0}, 5},
    {"deberta_eager", "loss", {9, 5, 0}, {3, 1, 0}, 3},
    {"deberta_eager", "rel_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "attn.pos_q", {1, 3, 0}, {4, 5, 0}, 1},
    {"deberta_eager", "attn.pos_k", {1, 3, 0}, {4, 5, 0}, 1},
    {"deberta_eager", "conv", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "conv.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "conv_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "conv.residual", {9, 5, 0}, {1, 2, 0}, 2},
    {"deberta_eager", "pooler", {1, 2, 0}, {4, 5, 0}, 3},
    {"deberta_eager", "pooler.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"deberta_eager", "head", {1, 1, 0}, {4, 5, 0}, 1},
    {"bert", "embed", {7, 3, 0}, {3, 10, 0}, 7},
    {"bert", "embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert", "attn.core", {1, 9, 0}, {1, 9, 0}, 2},
    {"bert", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert", "mlp.up", {1, 3, 0}, {3, 7, 0}, 1},
    {"bert", "mlp.act", {1, 0, 0}, {1, 0, 0}, 2},
    {"bert", "mlp.down", {1, 3, 0}, {3, 7, 0}, 1},
    {"bert", "residual", {4, 0, 0}, {0, 16, 0}, 5},
    {"bert", "head.dense", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert", "head.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"bert", "head.norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert", "lm_head", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert", "loss", {2, 3, 0}, {3, 2, 0}, 4},
    {"bert_eager", "embed", {7, 3, 0}, {3, 10, 0}, 7},
    {"bert_eager", "embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert_eager", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "attn.core", {9, 20, 0}, {9, 20, 0}, 2},
    {"bert_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert_eager", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "mlp.act", {1, 0, 0}, {1, 0, 0}, 2},
    {"bert_eager", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "residual", {4, 0, 0}, {0, 16, 0}, 5},
    {"bert_eager", "head.dense", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "head.act", {1, 0, 0}, {0, 0, 0}, 2},
    {"bert_eager", "head.norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bert_eager", "lm_head", {1, 3, 0}, {4, 7, 0}, 1},
    {"bert_eager", "loss", {2, 3, 0}, {3, 2, 0}, 4},
};
// clang-format on

// scripts/measure_eager_dispatch_seq2seq.py --cxx (the same versions and classes): BART's and
// Blenderbot's encoder layers under the ops' names, their decoder layers' under "dec." + the
// names, a layer's own calls (its dropouts and residual adds) as "residual".
// clang-format off
constexpr Entry kSeq2SeqTable[] = {
    {"bart", "embed", {9, 3, 0}, {7, 7, 0}, 5},
    {"bart", "embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "attn.core", {1, 9, 0}, {0, 9, 0}, 1},
    {"bart", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "residual", {5, 3, 0}, {0, 16, 0}, 1},
    {"bart", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "mlp.up", {1, 3, 0}, {3, 7, 0}, 1},
    {"bart", "mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "dec.attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.attn.core", {1, 9, 0}, {0, 9, 0}, 1},
    {"bart", "dec.attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.residual", {7, 3, 0}, {0, 26, 0}, 1},
    {"bart", "dec.mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "dec.mlp.up", {1, 3, 0}, {3, 7, 0}, 1},
    {"bart", "dec.mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "dec.mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.cross_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "dec.cross.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.cross.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.cross.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "dec.cross.core", {1, 9, 0}, {0, 9, 0}, 1},
    {"bart", "dec.cross.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart", "decoder.embed", {12, 2, 1}, {0, 0, 0}, 3},
    {"bart", "decoder.embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"bart", "loss", {7, 6, 0}, {3, 2, 0}, 1},
    {"bart_eager", "embed", {9, 3, 0}, {7, 7, 0}, 5},
    {"bart_eager", "embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "attn.core", {9, 20, 0}, {9, 20, 0}, 1},
    {"bart_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "residual", {5, 3, 0}, {0, 16, 0}, 1},
    {"bart_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "dec.attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.attn.core", {10, 20, 0}, {10, 20, 0}, 1},
    {"bart_eager", "dec.attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.residual", {7, 3, 0}, {0, 26, 0}, 1},
    {"bart_eager", "dec.mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "dec.mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "dec.mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.cross_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "dec.cross.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.cross.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.cross.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "dec.cross.core", {9, 20, 0}, {9, 20, 0}, 1},
    {"bart_eager", "dec.cross.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"bart_eager", "decoder.embed", {23, 15, 0}, {0, 0, 0}, 3},
    {"bart_eager", "decoder.embed_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"bart_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"bart_eager", "loss", {7, 6, 0}, {3, 2, 0}, 1},
    {"blenderbot", "embed", {8, 1, 0}, {8, 9, 0}, 5},
    {"blenderbot", "encoder.final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "attn.core", {1, 9, 0}, {0, 9, 0}, 1},
    {"blenderbot", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "residual", {4, 3, 0}, {0, 16, 0}, 1},
    {"blenderbot", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "mlp.up", {1, 3, 0}, {3, 7, 0}, 1},
    {"blenderbot", "mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "mlp.down", {1, 3, 0}, {3, 7, 0}, 1},
    {"blenderbot", "dec.attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "dec.attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.attn.core", {1, 9, 0}, {0, 9, 0}, 1},
    {"blenderbot", "dec.attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.residual", {6, 3, 0}, {0, 26, 0}, 1},
    {"blenderbot", "dec.mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "dec.mlp.up", {1, 3, 0}, {3, 7, 0}, 1},
    {"blenderbot", "dec.mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "dec.mlp.down", {1, 3, 0}, {3, 7, 0}, 1},
    {"blenderbot", "dec.cross_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "dec.cross.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.cross.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.cross.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "dec.cross.core", {1, 9, 0}, {0, 9, 0}, 1},
    {"blenderbot", "dec.cross.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot", "decoder.embed", {11, 1, 1}, {0, 0, 0}, 3},
    {"blenderbot", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"blenderbot", "loss", {7, 6, 0}, {3, 2, 0}, 1},
    {"blenderbot_eager", "embed", {8, 1, 0}, {8, 9, 0}, 5},
    {"blenderbot_eager", "encoder.final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "attn.core", {8, 20, 0}, {7, 20, 0}, 1},
    {"blenderbot_eager", "attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "residual", {4, 3, 0}, {0, 16, 0}, 1},
    {"blenderbot_eager", "mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.attn_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "dec.attn.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.attn.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.attn.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.attn.core", {9, 20, 0}, {8, 20, 0}, 1},
    {"blenderbot_eager", "dec.attn.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.residual", {6, 3, 0}, {0, 26, 0}, 1},
    {"blenderbot_eager", "dec.mlp_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "dec.mlp.up", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.mlp.act", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "dec.mlp.down", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.cross_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "dec.cross.q_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.cross.k_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.cross.v_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "dec.cross.core", {8, 20, 0}, {8, 20, 0}, 1},
    {"blenderbot_eager", "dec.cross.out_proj", {1, 3, 0}, {4, 7, 0}, 1},
    {"blenderbot_eager", "decoder.embed", {22, 14, 0}, {0, 0, 0}, 3},
    {"blenderbot_eager", "final_norm", {1, 0, 0}, {2, 0, 0}, 1},
    {"blenderbot_eager", "lm_head", {1, 3, 0}, {3, 6, 0}, 1},
    {"blenderbot_eager", "loss", {7, 6, 0}, {3, 2, 0}, 1},
};
// clang-format on

const Entry& find(std::string_view variant, std::string_view op) {
  for (const Entry& e : kTable) {
    if (e.variant == variant && e.op == op) return e;
  }
  for (const Entry& e : kSeq2SeqTable) {
    if (e.variant == variant && e.op == op) return e;
  }
  ZS_CHECK_MSG(false, "no eager dispatch entry");
  return kTable[0];
}

// The table's name for a model op: its name without the layer ("layers.3.attn.core" ->
// "attn.core"); the residual adds share one entry, half each.
std::string_view op_key(const Op& op) {
  std::string_view n = op.name;
  if (n.substr(0, 7) == "layers.") {
    n.remove_prefix(n.find('.', 7) + 1);
  }
  if (n == "attn.residual" || n == "cross.residual" || n == "mlp.residual") return "residual";
  return n;
}

// An op of a BART or Blenderbot decoder layer: its entry is "dec." + its name.
bool seq2seq_decoder_op(const Op& op, const ModelSpec& spec) {
  return (spec.model_type == ModelType::kBart || spec.model_type == ModelType::kBlenderbot) &&
         op.layer >= spec.num_layers && op.layer < total_layers(spec);
}

std::string_view variant_of(const ModelSpec& spec, const Workload& w, std::string_view key) {
  const bool sdpa = w.flash_attention;
  switch (spec.model_type) {
    case ModelType::kGpt2: {
      const bool dropout = spec.dropout.attn > 0 || spec.dropout.resid > 0 || spec.dropout.embd > 0;
      if (sdpa) return dropout ? "gpt2" : "gpt2_nodropout";
      return dropout ? "gpt2_eager" : "gpt2_eager_nodropout";
    }
    case ModelType::kLlama:
    case ModelType::kMistral:
      return sdpa ? "llama" : "llama_eager";
    case ModelType::kQwen2:
      // Qwen2's attention module is Llama's but for the q/k/v biases (their gradients are summed
      // in the projections' entries): its eager core is Llama's.
      return sdpa || key != "attn.core" ? "qwen2" : "llama_eager";
    case ModelType::kQwen3:
      // Qwen3's attention module is Llama's with q_norm and k_norm modules of their own: its
      // eager core is Llama's too.
      return sdpa || key != "attn.core" ? "qwen3" : "llama_eager";
    case ModelType::kMixtral:
      // Mixtral's attention module is Mistral's (Llama's): its eager core is Llama's.
      return sdpa || key != "attn.core" ? "mixtral" : "llama_eager";
    case ModelType::kQwen3Moe:
      // Qwen3-MoE's attention module is Qwen3's: its eager core is Llama's.
      return sdpa || key != "attn.core" ? "qwen3_moe" : "llama_eager";
    case ModelType::kQwen2Moe:
      // Qwen2-MoE's attention module is Qwen2's: its eager core is Llama's.
      return sdpa || key != "attn.core" ? "qwen2_moe" : "llama_eager";
    case ModelType::kPhi3:
      // Phi-3's attention slices its fused qkv and concatenates each head's rotated and passed
      // parts: a core of its own, two backward kernels longer when a part passes.
      if (spec.partial_rotary_factor < 1) return sdpa ? "phi3_partial" : "phi3_eager_partial";
      return sdpa ? "phi3" : "phi3_eager";
    case ModelType::kGemma:
      return sdpa ? "gemma" : "gemma_eager";
    case ModelType::kGemma2:
      return sdpa ? "gemma2" : "gemma2_eager";
    case ModelType::kGemma3Text:
      return sdpa ? "gemma3" : "gemma3_eager";
    case ModelType::kOpt:
      return sdpa ? "opt" : "opt_eager";
    case ModelType::kGptNeox:
      return sdpa ? "gpt_neox" : "gpt_neox_eager";
    case ModelType::kFalcon:
      // Falcon-7B's layout (one key and value head, one LayerNorm shared by the parallel
      // attention and MLP) or the new decoder architecture's (grouped keys and values broadcast to
      // every head, ln_attn and ln_mlp).
      if (spec.kv_copied_per_head) return sdpa ? "falcon_new" : "falcon_new_eager";
      return sdpa ? "falcon" : "falcon_eager";
    case ModelType::kBloom:
      // BLOOM has no SDPA path. Its attention's and MLP's entries hold the residual adds they make
      // (dropout_add); BloomBlock's own calls none.
      return "bloom_eager";
    case ModelType::kDeepseekV2:
    case ModelType::kDeepseekV3: {
      // A dense first layer's MLP is LlamaMLP's code. The query's projections are the same
      // modules in both versions: q_proj measured on V2 (V2-Lite's), q_a_proj, q_a_layernorm and
      // q_b_proj on V3. The cores differ (V2 rotates through complex numbers, V3 through
      // interleaved real pairs), and so do the routers (softmax; grouped sigmoid).
      if (key == "mlp.gate" || key == "mlp.up" || key == "mlp.act" || key == "mlp.down") {
        return "llama";
      }
      const bool v3 = key == "attn.q_a" || key == "attn.q_a_norm" || key == "attn.q_b" ||
                      (key != "attn.q_proj" && spec.model_type == ModelType::kDeepseekV3);
      if (v3) return sdpa ? "deepseek_v3" : "deepseek_v3_eager";
      return sdpa ? "deepseek_v2" : "deepseek_v2_eager";
    }
    case ModelType::kDebertaV2:
      // DebertaV2ForSequenceClassification, dropout 0.1; transformers gives it no SDPA path.
      return "deberta_eager";
    case ModelType::kBert:  // BertForMaskedLM, dropout 0.1 (BertConfig's and every checkpoint's)
      return sdpa ? "bert" : "bert_eager";
    case ModelType::kRoberta:
      // BERT's entries: RobertaLayer, RobertaSelfAttention and the rest are modeling_bert.py's
      // code under other names, and so are the heads (dense, gelu, LayerNorm, decoder). Not
      // counted: RobertaEmbeddings' position ids from the input ids (ne, cumsum, mul, add: a few
      // small integer kernels a step, forward only).
      return sdpa ? "bert" : "bert_eager";
    case ModelType::kBlenderbot:  // blenderbot-400M-distill's dropouts: 0.1, attention and MLP 0
      return sdpa ? "blenderbot" : "blenderbot_eager";
    case ModelType::kBart:  // BART's: 0.1 each
      return sdpa ? "bart" : "bart_eager";
    case ModelType::kT5:
      // Not measured yet (t5_key): Llama's RMSNorm (T5LayerNorm's fp32 variance is its code)
      // and bias-free Linears, BERT's core, activation, residual, embedding and loss (no rotary,
      // dropout 0.1, CrossEntropyLoss on 16-bit logits).
      if (key == "attn_norm" || key == "attn.q_proj" || key == "lm_head") return "llama";
      return sdpa ? "bert" : "bert_eager";
  }
  return "gpt2";
}

}  // namespace

// BERT's question-answering and classification heads were not measured: their Linears (head:
// qa_outputs or classifier; pooler) take the masked-LM head's dense layer's entry, the pooler's
// tanh its GELU's.
std::string_view bert_key(std::string_view key) {
  if (key == "head" || key == "pooler") return "head.dense";
  if (key == "pooler.act") return "head.act";
  return key;
}

// T5's ops under the names of the entries standing in for them (variant_of): its norms as a
// layer's norm, its projections as a q projection, the cross-attention's ops as the
// self-attention's, each residual op as one half of BERT's layer residual.
std::string_view t5_key(std::string_view key) {
  if (key.ends_with("norm")) return "attn_norm";
  if (key.ends_with("_proj") || key == "mlp.up" || key == "mlp.gate" || key == "mlp.down") {
    return "attn.q_proj";
  }
  if (key == "cross.core") return "attn.core";
  if (key.ends_with("residual")) return "residual";
  if (key == "decoder.embed") return "embed";
  return key;
}

EagerDispatch eager_dispatch(const Op& op, const ModelSpec& spec, const Workload& w) {
  std::string_view key = op_key(op);
  if (spec.model_type == ModelType::kBert || spec.model_type == ModelType::kRoberta) {
    key = bert_key(key);
  }
  if (spec.model_type == ModelType::kT5) key = t5_key(key);
  std::string decoder_key;
  if (seq2seq_decoder_op(op, spec)) {
    decoder_key = "dec." + std::string(key);
    key = decoder_key;
  }
  EagerDispatch d;
  // Inside the attention module's entry (DeBERTa's c2p and p2c too); Mixtral's router linear
  // inside mlp.route's (the router module's calls).
  if (key == "attn.rotary" || key == "mlp.router" || key == "attn.c2p" || key == "attn.p2c") {
    return d;
  }
  const Entry& e = find(variant_of(spec, w, key), key);
  d.fwd = {e.fwd.kernels, e.fwd.other, e.modules, e.fwd.syncs};
  d.bwd = {e.bwd.kernels, e.bwd.other, 0, e.bwd.syncs};
  if (key == "residual" || key == "dec.residual") {
    // A layer's own calls, shared by its residual ops (two; three in a BART or Blenderbot
    // decoder layer): the attention's takes what does not divide evenly, so that they sum to
    // the layer's.
    const int n = key == "dec.residual" ? 3 : 2;
    const bool first = op.name.find("attn.residual") != std::string::npos;
    auto share = [n, first](int v) { return v / n + (first ? v % n : 0); };
    d.fwd = {share(e.fwd.kernels), share(e.fwd.other), share(e.modules), share(e.fwd.syncs)};
    d.bwd = {share(e.bwd.kernels), share(e.bwd.other), 0, share(e.bwd.syncs)};
  }
  return d;
}

}  // namespace zs::models
