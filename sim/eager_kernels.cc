#include "sim/eager_kernels.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "common/check.h"

namespace zs::sim {
namespace {

// Bytes per element of a size class (the largest tensor a kernel touches): those of 16-bit
// tensors (they scale with the activation dtype) and the rest (fp32 upcasts, bool masks).
struct ClassBytes {
  double act16 = 0, fixed = 0;
};
enum SizeClass { kHidden, kFfn, kQkv, kScore, kLogits, kClassCount };
struct Pass {
  int kernels = 0;
  ClassBytes bytes[kClassCount];
};
struct Entry {
  std::string_view family, module;
  struct {
    Pass fwd, bwd;
  } passes;
};

// scripts/measure_eager_kernels.py --cxx (transformers 5.16.1, torch 2.13.0, bf16). Classes in
// order: hidden t*h, ffn t*I, qkv t*(q+2kv), score b*a*s*s, logits t*V.
// clang-format off
constexpr Entry kTable[] = {
    {"gpt2", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2", "attention", {{9, {{20, 1}, {0, 0}, {0, 0}, {16.5, 1}, {0, 0}}}, {10, {{20.0167, 0}, {0, 0}, {6.0167, 0}, {16, 0}, {0, 0}}}}},
    {"gpt2", "mlp", {{9, {{4, 1}, {36, 0}, {0, 0}, {0, 0}, {0, 0}}}, {14, {{8.0167, 0}, {58.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_sdpa", "attention", {{1, {{4, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {0, 0}, {6.0167, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_sdpa", "mlp", {{9, {{4, 1}, {36, 0}, {0, 0}, {0, 0}, {0, 0}}}, {14, {{8.0167, 0}, {58.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_nodropout", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_nodropout", "attention", {{7, {{16, 0}, {0, 0}, {0, 0}, {12.5, 0}, {0, 0}}}, {8, {{14.0167, 0}, {0, 0}, {6.0167, 0}, {10, 0}, {0, 0}}}}},
    {"gpt2_nodropout", "mlp", {{8, {{0, 0}, {36, 0}, {0, 0}, {0, 0}, {0, 0}}}, {13, {{2.0167, 0}, {58.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_sdpa_nodropout", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_sdpa_nodropout", "attention", {{0, {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {3, {{2.0167, 0}, {0, 0}, {6.0167, 0}, {0, 0}, {0, 0}}}}},
    {"gpt2_sdpa_nodropout", "mlp", {{8, {{0, 0}, {36, 0}, {0, 0}, {0, 0}, {0, 0}}}, {13, {{2.0167, 0}, {58.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"llama", "norm", {{8, {{8.0167, 28.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {16, {{16.0333, 76.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"llama", "attention", {{19, {{54, 0}, {0, 0}, {0, 0}, {12.5, 16}, {0, 0}}}, {24, {{82, 0}, {0, 0}, {0, 0}, {8, 20}, {0, 0}}}}},
    {"llama", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{6, 0}, {18, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"llama_sdpa", "norm", {{8, {{8.0167, 28.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {16, {{16.0333, 76.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"llama_sdpa", "attention", {{10, {{38, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {18, {{74, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"llama_sdpa", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{6, 0}, {18, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"phi3", "norm", {{8, {{8.0167, 28.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {16, {{16.0333, 76.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"phi3", "attention", {{19, {{54, 0}, {0, 0}, {0, 0}, {12.5, 16}, {0, 0}}}, {31, {{86, 0}, {0, 0}, {20, 0}, {8, 20}, {0, 0}}}}},
    {"phi3", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{0, 0}, {26, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"phi3_sdpa", "norm", {{8, {{8.0167, 28.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {16, {{16.0333, 76.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"phi3_sdpa", "attention", {{13, {{50, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {25, {{78, 0}, {0, 0}, {20, 0}, {0, 0}, {0, 0}}}}},
    {"phi3_sdpa", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{0, 0}, {26, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma", "norm", {{10, {{4, 36.1583}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{4, 100.254}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma", "attention", {{19, {{54, 0}, {0, 0}, {0, 0}, {12.5, 16}, {0, 0}}}, {24, {{82, 0}, {0, 0}, {0, 0}, {8, 20}, {0, 0}}}}},
    {"gemma", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{6, 0}, {18, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma_sdpa", "norm", {{10, {{4, 36.1583}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{4, 100.254}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma_sdpa", "attention", {{10, {{38, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {18, {{74, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma_sdpa", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{6, 0}, {18, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma2", "norm", {{10, {{4, 36.1583}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{4, 100.254}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma2", "attention", {{22, {{54, 0}, {0, 0}, {0, 0}, {24.5, 16}, {0, 0}}}, {27, {{82, 0}, {0, 0}, {0, 0}, {22, 20}, {0, 0}}}}},
    {"gemma2", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{6, 0}, {18, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma2_sdpa", "norm", {{10, {{4, 36.1583}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{4, 100.254}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma2_sdpa", "attention", {{10, {{38, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {18, {{74, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gemma2_sdpa", "mlp", {{2, {{0, 0}, {10, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{6, 0}, {18, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"opt", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"opt", "attention", {{11, {{24, 1}, {0, 0}, {0, 0}, {12.5, 16}, {0, 0}}}, {16, {{46.0667, 0}, {0, 0}, {0, 0}, {8, 20}, {0, 0}}}}},
    {"opt", "mlp", {{2, {{4, 1}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"opt_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"opt_sdpa", "attention", {{2, {{8, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {8, {{30.0667, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"opt_sdpa", "mlp", {{2, {{4, 1}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt_neox", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt_neox", "attention", {{19, {{54, 0}, {0, 0}, {0, 0}, {12.5, 16}, {0, 0}}}, {27, {{76.0167, 0}, {0, 0}, {10.0167, 0}, {8, 20}, {0, 0}}}}},
    {"gpt_neox", "mlp", {{1, {{0, 0}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {3, {{2.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt_neox_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"gpt_neox_sdpa", "attention", {{13, {{50, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {22, {{72.0167, 0}, {0, 0}, {10.0167, 0}, {0, 0}, {0, 0}}}}},
    {"gpt_neox_sdpa", "mlp", {{1, {{0, 0}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {3, {{2.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bloom", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bloom", "attention", {{8, {{16, 0}, {0, 0}, {0, 0}, {8.5, 16}, {0, 0}}}, {13, {{14.0167, 0}, {0, 0}, {22.0167, 0}, {4, 20}, {0, 0}}}}},
    {"bloom", "mlp", {{9, {{0, 0}, {42, 0}, {0, 0}, {0, 0}, {0, 0}}}, {20, {{2.0167, 0}, {88.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon", "attention", {{19, {{32, 0}, {0, 0}, {4.6667, 0.0014}, {12.5, 0}, {0, 0}}}, {26, {{36, 0}, {0, 0}, {28.6667, 0.0014}, {10, 0}, {0, 0}}}}},
    {"falcon", "mlp", {{1, {{0, 0}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{0, 0}, {6, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon_sdpa", "attention", {{12, {{19, 0}, {0, 0}, {4.6667, 0.0014}, {0, 0}, {0, 0}}}, {23, {{32, 0}, {0, 0}, {28.6667, 0.0014}, {0, 0}, {0, 0}}}}},
    {"falcon_sdpa", "mlp", {{1, {{0, 0}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{0, 0}, {6, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon_new", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon_new", "attention", {{22, {{64, 0}, {0, 0}, {5, 0.001}, {12.5, 0}, {0, 0}}}, {26, {{64, 0}, {0, 0}, {29, 0.001}, {10, 0}, {0, 0}}}}},
    {"falcon_new", "mlp", {{1, {{0, 0}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{0, 0}, {6, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon_new_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"falcon_new_sdpa", "attention", {{15, {{48, 0}, {0, 0}, {5, 0.001}, {0, 0}, {0, 0}}}, {23, {{60, 0}, {0, 0}, {29, 0.001}, {0, 0}, {0, 0}}}}},
    {"falcon_new_sdpa", "mlp", {{1, {{0, 0}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{0, 0}, {6, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bart", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bart", "attention", {{8, {{20, 1}, {0, 0}, {0, 0}, {12, 1}, {0, 0}}}, {14, {{42.0667, 0}, {0, 0}, {0, 0}, {16, 0}, {0, 0}}}}},
    {"bart", "mlp", {{3, {{4, 1}, {8, 1}, {0, 0}, {0, 0}, {0, 0}}}, {5, {{8.0167, 0}, {14.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bart_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bart_sdpa", "attention", {{1, {{4, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {7, {{26.0667, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bart_sdpa", "mlp", {{3, {{4, 1}, {8, 1}, {0, 0}, {0, 0}, {0, 0}}}, {5, {{8.0167, 0}, {14.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"blenderbot", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"blenderbot", "attention", {{7, {{20, 1}, {0, 0}, {0, 0}, {8, 0}, {0, 0}}}, {13, {{42.0667, 0}, {0, 0}, {0, 0}, {10, 0}, {0, 0}}}}},
    {"blenderbot", "mlp", {{2, {{4, 1}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"blenderbot_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"blenderbot_sdpa", "attention", {{1, {{4, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {7, {{26.0667, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"blenderbot_sdpa", "mlp", {{2, {{4, 1}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bert", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bert", "attention", {{8, {{20, 1}, {0, 0}, {0, 0}, {12, 1}, {0, 0}}}, {14, {{42.0667, 0}, {0, 0}, {0, 0}, {16, 0}, {0, 0}}}}},
    {"bert", "mlp", {{2, {{4, 1}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bert_sdpa", "norm", {{1, {{4.0958, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6.1292, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bert_sdpa", "attention", {{1, {{4, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {7, {{26.0667, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"bert_sdpa", "mlp", {{2, {{4, 1}, {4, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{8.0167, 0}, {8.0167, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"t5", "norm", {{8, {{10.0167, 24.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{26.0333, 64.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"t5", "attention", {{9, {{20, 1}, {0, 0}, {0, 0}, {16, 1}, {0, 0}}}, {11, {{34, 0}, {0, 0}, {0, 0}, {18, 0}, {0, 0}}}}},
    {"t5", "mlp", {{3, {{4, 1}, {8, 1}, {0, 0}, {0, 0}, {0, 0}}}, {3, {{6, 0}, {12, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"t5_sdpa", "norm", {{8, {{10.0167, 24.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{26.0333, 64.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"t5_sdpa", "attention", {{1, {{4, 1}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {4, {{18, 0}, {0, 0}, {0, 0}, {2, 0}, {0, 0}}}}},
    {"t5_sdpa", "mlp", {{3, {{4, 1}, {8, 1}, {0, 0}, {0, 0}, {0, 0}}}, {3, {{6, 0}, {12, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"t5_gated", "norm", {{8, {{10.0167, 24.125}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {17, {{26.0333, 64.1875}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"t5_gated", "attention", {{9, {{20, 1}, {0, 0}, {0, 0}, {16, 1}, {0, 0}}}, {11, {{34, 0}, {0, 0}, {0, 0}, {18, 0}, {0, 0}}}}},
    {"t5_gated", "mlp", {{11, {{4, 1}, {46, 1}, {0, 0}, {0, 0}, {0, 0}}}, {16, {{12, 0}, {74, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"any", "residual", {{1, {{6, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}, {1, {{6, 0}, {0, 0}, {0, 0}, {0, 0}, {0, 0}}}}},
    {"any", "loss", {{5, {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {2, 16.0081}}}, {3, {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {2, 24.0081}}}}},
    {"any", "softcap", {{3, {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {12, 0}}}, {3, {{0, 0}, {0, 0}, {0, 0}, {0, 0}, {14, 0}}}}},
};
// clang-format on

const Entry& find(std::string_view family, std::string_view module) {
  for (const Entry& e : kTable) {
    if (e.family == family && e.module == module) return e;
  }
  ZS_CHECK_MSG(false, "no eager kernel entry");
  return kTable[0];
}

// The recorded family whose module `module` of `spec` runs: GPT-2's modules for learned
// positions, LayerNorm and GELU; Phi-3's for its fused projections (a partial rotary embedding
// priced as a whole one: the rotation's bytes over-counted by the passed share, the two backward
// kernels of its concatenation not counted); Llama's for the other rotary, RMSNorm and SwiGLU
// families.
std::string_view family_of(std::string_view module, const models::ModelSpec& spec,
                           const models::Workload& w) {
  if (spec.model_type == models::ModelType::kPhi3) {
    return module == "attention" && w.flash_attention ? "phi3_sdpa" : "phi3";
  }
  // Gemma 3's norms and MLP are Gemma 2's modules, its attention Gemma's (no soft-capping; its
  // q/k norms are ops of their own).
  const bool sdpa = module == "attention" && w.flash_attention;
  switch (spec.model_type) {
    case models::ModelType::kGemma:
      return sdpa ? "gemma_sdpa" : "gemma";
    case models::ModelType::kGemma2:
      return sdpa ? "gemma2_sdpa" : "gemma2";
    case models::ModelType::kGemma3Text:
      if (module == "attention") return sdpa ? "gemma_sdpa" : "gemma";
      return "gemma2";
    case models::ModelType::kOpt:  // recorded with OPT's default dropout, 0.1
      return sdpa ? "opt_sdpa" : "opt";
    case models::ModelType::kGptNeox:  // recorded rotating all of each head
      return sdpa ? "gpt_neox_sdpa" : "gpt_neox";
    case models::ModelType::kFalcon:  // Falcon-7B's one key and value head, or the new layout's
      if (spec.kv_copied_per_head) return sdpa ? "falcon_new_sdpa" : "falcon_new";
      return sdpa ? "falcon_sdpa" : "falcon";
    case models::ModelType::kBloom:  // no SDPA path; recorded without the adds of dropout_add
      return "bloom";
    case models::ModelType::kDebertaV2:  // not recorded yet: BERT's eager modules, the nearest
      return "bert";
    case models::ModelType::kBert:     // recorded with BERT's default dropout, 0.1
    case models::ModelType::kRoberta:  // BERT's modules under other names (its position ids not
                                       // counted: see models/eager_dispatch.cc)
      return sdpa ? "bert_sdpa" : "bert";
    // An encoder layer's modules, the decoder's self- and cross-attention priced as its attention
    // (the eager decoder self-attention's causal mask add not counted)
    case models::ModelType::kBlenderbot:  // blenderbot-400M-distill's dropouts
      return sdpa ? "blenderbot_sdpa" : "blenderbot";
    case models::ModelType::kBart:  // BART's dropouts, 0.1 each
      return sdpa ? "bart_sdpa" : "bart";
    case models::ModelType::kT5:
      // A block that is not its stack's first (the first's compute_bias not counted), dropout
      // 0.1; the gated MLP measured with gelu_new (t5-v1_1, flan-t5). The decoder's causal mask
      // (merged into the bias by a torch.where per block under SDPA) not counted.
      if (module == "attention") return sdpa ? "t5_sdpa" : "t5";
      if (module == "mlp" && spec.mlp == models::MlpKind::kSwiGlu) return "t5_gated";
      return "t5";
    default:
      break;
  }
  const bool dropout = spec.dropout.attn > 0 || spec.dropout.resid > 0;
  if (module == "norm") return spec.norm == models::NormKind::kLayerNorm ? "gpt2" : "llama";
  if (module == "mlp") {
    if (spec.mlp == models::MlpKind::kSwiGlu) return "llama";
    return dropout ? "gpt2" : "gpt2_nodropout";
  }
  if (spec.position == models::PositionKind::kRotary) {
    return w.flash_attention ? "llama_sdpa" : "llama";
  }
  if (w.flash_attention) return dropout ? "gpt2_sdpa" : "gpt2_sdpa_nodropout";
  return dropout ? "gpt2" : "gpt2_nodropout";
}

double pass_bytes(const Pass& p, const double numel[kClassCount], double act_bytes) {
  double total = 0;
  for (int c = 0; c < kClassCount; ++c) {
    total += (p.bytes[c].act16 * act_bytes / 2 + p.bytes[c].fixed) * numel[c];
  }
  return total;
}

}  // namespace

std::string_view kernel_style_name(KernelStyle s) {
  return s == KernelStyle::kEager ? "eager" : "fused";
}

Result<KernelStyle> parse_kernel_style(std::string_view what, std::string_view text) {
  if (text == "eager") return KernelStyle::kEager;
  if (text == "fused") return KernelStyle::kFused;
  return Status::invalid_argument(std::string(what) + ": \"" + std::string(text) +
                                  "\" is not allowed; expected eager or fused");
}

std::optional<EagerWork> eager_work(const models::Op& op, const models::ModelSpec& spec,
                                    const models::Workload& w) {
  std::string_view module;
  switch (op.kind) {
    case models::OpKind::kNorm:
      module = "norm";
      break;
    case models::OpKind::kAttention:
    case models::OpKind::kFlashAttention:
      module = "attention";
      break;
    case models::OpKind::kActivation:
    case models::OpKind::kSwiGlu:
      // An encoder head's activation (BERT's head.act, pooler.act) is not the MLP's module: not
      // measured, op_costs' pricing.
      if (op.layer == models::total_layers(spec)) return std::nullopt;
      module = "mlp";
      break;
    case models::OpKind::kResidualAdd:
      module = "residual";
      break;
    case models::OpKind::kCrossEntropy:
      module = "loss";
      break;
    case models::OpKind::kRotary:
      return EagerWork{};  // inside the attention module's entry
    case models::OpKind::kEmbedding:
    case models::OpKind::kLinear:
    // Not measured yet: op_costs' pricing (sim/cost_model.cc times the experts' GEMMs and glue).
    case models::OpKind::kMoeRoute:
    case models::OpKind::kMoeExperts:
    case models::OpKind::kMoeCombine:
      return std::nullopt;
  }
  const Entry& e =
      find(module == "residual" || module == "loss" ? "any" : family_of(module, spec, w), module);
  const auto t = static_cast<double>(w.tokens());
  const auto s = static_cast<double>(w.seq_len);
  // A norm's elements are its own: t x h for the layer norms, t x q (or kv) for Qwen3's norms
  // of each head's query and key.
  double hidden = t * static_cast<double>(spec.hidden_size);
  if (const auto* n = std::get_if<models::NormShape>(&op.shape)) {
    hidden = static_cast<double>(n->rows) * static_cast<double>(n->cols);
  }
  double numel[kClassCount] = {
      hidden,
      t * static_cast<double>(spec.intermediate_size),
      t * static_cast<double>(spec.q_dim() + 2 * spec.kv_dim()),
      static_cast<double>(w.micro_batch) * static_cast<double>(spec.num_heads) * s * s,
      t * static_cast<double>(spec.vocab_size),
  };
  // DeepSeek's dense first layers and shared experts are not intermediate_size (the routed
  // experts' width) wide, nor is DeBERTa-v2's ConvLayer activation: their activation's own
  // elements. (Qwen2-MoE's shared expert and an
  // encoder-decoder's decoder over target_len tokens still take t x intermediate_size.)
  if (const auto* el = std::get_if<models::ElementwiseShape>(&op.shape);
      el != nullptr &&
      (models::is_deepseek(spec) || spec.model_type == models::ModelType::kDebertaV2) &&
      (op.kind == models::OpKind::kActivation || op.kind == models::OpKind::kSwiGlu)) {
    numel[1] = static_cast<double>(el->numel);
  }
  // The loss's logits: t x V, or an encoder head's few (BERT's question answering: the start and
  // end logits, 2 x b rows of s).
  if (const auto* c = std::get_if<models::CrossEntropyShape>(&op.shape)) {
    numel[4] = static_cast<double>(c->tokens) * static_cast<double>(c->vocab);
  }
  const auto act = static_cast<double>(w.act_bytes);
  EagerWork work{e.passes.fwd.kernels, e.passes.bwd.kernels, pass_bytes(e.passes.fwd, numel, act),
                 pass_bytes(e.passes.bwd, numel, act)};
  // Gemma 2 soft-caps the logits before the loss: three kernels each way over t x V.
  if (const auto* c = std::get_if<models::CrossEntropyShape>(&op.shape); c && c->softcap > 0) {
    const Entry& cap = find("any", "softcap");
    work.fwd_kernels += cap.passes.fwd.kernels;
    work.bwd_kernels += cap.passes.bwd.kernels;
    work.fwd_bytes += pass_bytes(cap.passes.fwd, numel, act);
    work.bwd_bytes += pass_bytes(cap.passes.bwd, numel, act);
  }
  return work;
}

}  // namespace zs::sim
