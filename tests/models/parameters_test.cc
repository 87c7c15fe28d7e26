#include "models/parameters.h"

#include <gtest/gtest.h>

#include "models/zoo.h"
#include "tests/models/model_test_util.h"

namespace zs::models {
namespace {

using test_util::find_param;
using test_util::zoo;

TEST(Parameters, Gpt2NamesShapesAndRegistrationOrder) {
  const std::vector<ParamTensor> params = parameter_tensors(zoo("gpt2"));
  ASSERT_EQ(params.size(), 2u + 12u * 12u + 2u + 1u);
  const char* first[] = {"transformer.wte.weight",
                         "transformer.wpe.weight",
                         "transformer.h.0.ln_1.weight",
                         "transformer.h.0.ln_1.bias",
                         "transformer.h.0.attn.c_attn.weight",
                         "transformer.h.0.attn.c_attn.bias",
                         "transformer.h.0.attn.c_proj.weight",
                         "transformer.h.0.attn.c_proj.bias",
                         "transformer.h.0.ln_2.weight",
                         "transformer.h.0.ln_2.bias",
                         "transformer.h.0.mlp.c_fc.weight",
                         "transformer.h.0.mlp.c_fc.bias",
                         "transformer.h.0.mlp.c_proj.weight",
                         "transformer.h.0.mlp.c_proj.bias"};
  for (std::size_t i = 0; i < std::size(first); ++i) {
    EXPECT_EQ(params[i].name, first[i]);
    EXPECT_EQ(params[i].id, static_cast<int>(i));
  }
  // Conv1D stores [in, out].
  EXPECT_EQ(params[4].shape, (std::vector<std::int64_t>{768, 2304}));
  EXPECT_EQ(params[4].module, "transformer.h.0.attn.c_attn");
  EXPECT_EQ(params[4].layer, 0);
  EXPECT_EQ(params[0].layer, kEmbeddingLayer);

  const ParamTensor& head = params.back();
  EXPECT_EQ(head.name, "lm_head.weight");
  EXPECT_TRUE(head.tied);
  EXPECT_EQ(head.tied_to, 0);
  EXPECT_EQ(head.layer, 12);
  EXPECT_EQ(head.numel, 50257 * 768);
}

TEST(Parameters, TiedWeightsAreCountedOnce) {
  ModelSpec gpt2 = zoo("gpt2");
  const std::int64_t tied = parameter_count(gpt2);
  gpt2.tie_word_embeddings = false;
  EXPECT_EQ(parameter_count(gpt2), tied + 50257 * 768);
  EXPECT_FALSE(parameter_tensors(gpt2).back().tied);

  ModelSpec llama = zoo("llama2-7b");
  const std::int64_t untied = parameter_count(llama);
  llama.tie_word_embeddings = true;
  EXPECT_EQ(parameter_count(llama), untied - 32000 * 4096);
}

TEST(Parameters, LlamaFamilyRegistrationOrderPutsNormsLast) {
  const std::vector<ParamTensor> params = parameter_tensors(zoo("llama2-7b"));
  const char* layer0[] = {
      "model.layers.0.self_attn.q_proj.weight",        "model.layers.0.self_attn.k_proj.weight",
      "model.layers.0.self_attn.v_proj.weight",        "model.layers.0.self_attn.o_proj.weight",
      "model.layers.0.mlp.gate_proj.weight",           "model.layers.0.mlp.up_proj.weight",
      "model.layers.0.mlp.down_proj.weight",           "model.layers.0.input_layernorm.weight",
      "model.layers.0.post_attention_layernorm.weight"};
  EXPECT_EQ(params[0].name, "model.embed_tokens.weight");
  for (std::size_t i = 0; i < std::size(layer0); ++i) EXPECT_EQ(params[1 + i].name, layer0[i]);
  EXPECT_EQ(params[params.size() - 2].name, "model.norm.weight");
  EXPECT_EQ(params.back().name, "lm_head.weight");
  EXPECT_FALSE(params.back().tied);
  // nn.Linear stores [out, in].
  EXPECT_EQ(find_param(params, "model.layers.0.mlp.down_proj.weight").shape,
            (std::vector<std::int64_t>{4096, 11008}));
}

TEST(Parameters, GroupedQueryAttentionShrinksKeyAndValue) {
  const std::vector<ParamTensor> l70 = parameter_tensors(zoo("llama2-70b"));
  EXPECT_EQ(find_param(l70, "model.layers.0.self_attn.q_proj.weight").shape,
            (std::vector<std::int64_t>{8192, 8192}));
  EXPECT_EQ(find_param(l70, "model.layers.0.self_attn.k_proj.weight").shape,
            (std::vector<std::int64_t>{1024, 8192}));  // 8 kv heads x 128
  EXPECT_EQ(find_param(l70, "model.layers.79.self_attn.v_proj.weight").shape,
            (std::vector<std::int64_t>{1024, 8192}));

  const std::vector<ParamTensor> qwen = parameter_tensors(zoo("qwen2-7b"));
  EXPECT_EQ(find_param(qwen, "model.layers.0.self_attn.k_proj.weight").shape,
            (std::vector<std::int64_t>{512, 3584}));  // 4 kv heads x 128
  EXPECT_EQ(find_param(qwen, "model.layers.0.self_attn.k_proj.bias").numel, 512);
  EXPECT_EQ(find_param(qwen, "model.layers.0.self_attn.q_proj.bias").numel, 3584);
}

TEST(Parameters, BiasesFollowTheFamily) {
  auto biases = [](const ModelSpec& spec) {
    std::vector<std::string> names;
    for (const ParamTensor& p : parameter_tensors(spec)) {
      if (p.is_bias && p.layer == 0) names.push_back(p.name);
    }
    return names;
  };
  EXPECT_EQ(biases(zoo("qwen2-7b")),
            (std::vector<std::string>{"model.layers.0.self_attn.q_proj.bias",
                                      "model.layers.0.self_attn.k_proj.bias",
                                      "model.layers.0.self_attn.v_proj.bias"}));
  EXPECT_TRUE(biases(zoo("llama3-8b")).empty());
  EXPECT_TRUE(biases(zoo("mistral-7b")).empty());
  EXPECT_EQ(biases(zoo("gpt2")).size(), 6u);  // ln_1, c_attn, c_proj, ln_2, c_fc, c_proj
}

TEST(Parameters, LargestModuleIsWhatDeepSpeedReports) {
  EXPECT_EQ(largest_module_params(zoo("gpt2")), 50257 * 768);
  EXPECT_EQ(largest_module_params(zoo("llama2-7b")), 32000 * 4096);
  EXPECT_EQ(largest_module_params(zoo("llama3-70b")), 128256 * 8192);
  // tiny-gpt's table (256 x 64 = 16,384) is smaller than c_fc's weight and bias.
  EXPECT_EQ(largest_module_params(zoo("tiny-gpt")), 64 * 256 + 256);
}

TEST(Parameters, LayerCountsSumToTheTotal) {
  for (const char* name : {"gpt2", "llama2-70b", "qwen2-7b"}) {
    const ModelSpec spec = zoo(name);
    const std::vector<ParamTensor> params = parameter_tensors(spec);
    std::int64_t sum = 0;
    for (int l = kEmbeddingLayer; l <= spec.num_layers; ++l) {
      sum += layer_parameter_count(params, l);
    }
    EXPECT_EQ(sum, parameter_count(spec)) << name;
  }
  const ModelSpec gpt2 = zoo("gpt2");
  EXPECT_EQ(layer_parameter_count(parameter_tensors(gpt2), 3), 12 * 768 * 768 + 13 * 768);
}

TEST(Parameters, MatmulParametersExcludeLookupsNormsAndBiases) {
  // 12 layers x 12h^2 plus the (tied) LM head.
  EXPECT_EQ(matmul_parameter_count(zoo("gpt2")), 12 * 12 * 768 * 768 + 50257 * 768);
  // Untied: the LM head counts, the input embedding does not.
  const std::int64_t h = 4096, I = 11008;
  EXPECT_EQ(matmul_parameter_count(zoo("llama2-7b")), 32 * (4 * h * h + 3 * h * I) + 32000 * h);
}

}  // namespace
}  // namespace zs::models
