#include "models/zoo.h"

#include <gtest/gtest.h>

#include "models/parameters.h"
#include "tests/models/model_test_util.h"

namespace zs::models {
namespace {

using test_util::zoo;

// Published counts: HF model.num_parameters() (tied weights once, GPT-2's wpe included).
TEST(Zoo, ParameterCountsMatchPublishedFigures) {
  const std::pair<std::string_view, std::int64_t> expected[] = {
      {"gpt2", 124'439'808},
      {"gpt2-medium", 354'823'168},
      {"gpt2-large", 774'030'080},
      {"gpt2-xl", 1'557'611'200},
      {"llama2-7b", 6'738'415'616},
      {"llama2-13b", 13'015'864'320},
      {"llama2-70b", 68'976'648'192},
      {"llama3-8b", 8'030'261'248},
      {"llama3-70b", 70'553'706'496},
      {"mistral-7b", 7'241'732'096},
      {"qwen2-7b", 7'615'616'512},
      {"qwen3-8b", 8'190'735'360},
      {"mixtral-8x7b", 46'702'792'704},
      {"qwen3-30b-a3b", 30'532'122'624},
      {"qwen1.5-moe-a2.7b", 14'315'784'192},
      // DeepseekV2ForCausalLM and DeepseekV3ForCausalLM on the meta device (transformers 5.16.1;
      // no multi-token prediction layer).
      {"deepseek-v2-lite", 15'706'484'224},
      {"deepseek-v3", 671'026'404'352},
      {"phi-3-mini", 3'821'079'552},
      {"phi-4", 14'659'507'200},
      {"gemma-2-2b", 2'614'341'888},
      {"gemma-2-9b", 9'241'705'984},
      {"gemma-3-1b", 999'885'952},
      {"gemma-3-12b", 11'766'034'176},
      {"opt-1.3b", 1'315'758'080},
      {"opt-6.7b", 6'658'473'984},
      {"opt-13b", 12'853'473'280},
      {"opt-30b", 29'974'540'288},
      {"opt-66b", 65'719'701'504},
      {"pythia-1b", 1'011'781'632},
      {"pythia-6.9b", 6'857'302'016},
      {"pythia-12b", 11'846'072'320},
      {"gpt-neox-20b", 20'554'567'680},
      // BloomForCausalLM on the meta device (transformers 5.16.1): the head tied.
      {"bloom-560m", 559'214'592},
      {"bloom-7b1", 7'069'016'064},
      {"falcon-7b", 6'921'720'704},  // FalconForCausalLM, transformers 5.16.1 on the meta device
      {"falcon-40b", 41'303'293'952},
      // BertForMaskedLM on the meta device (transformers 5.16.1): no pooler, the decoder tied.
      {"bert-base-uncased", 109'514'298},
      {"bert-large-uncased", 335'174'458},
      {"roberta-base", 124'697'433},  // RobertaForMaskedLM, transformers 5.16.1 on the meta device
      {"roberta-large", 355'412'057},
      // DebertaV2ForSequenceClassification on the meta device (transformers 5.16.1), 3 labels.
      {"deberta-v2-xlarge-mnli", 886'958'595},
      // T5ForConditionalGeneration on the meta device (transformers 5.16.1): the head tied.
      {"t5-base", 222'903'552},
      {"t5-large", 737'668'096},
      {"t5-3b", 2'851'598'336},
      // BartForConditionalGeneration on the meta device (transformers 5.16.1): the head tied.
      {"bart-base", 139'420'416},
      {"bart-large", 406'291'456},
      {"tiny-gpt", 120'576},
  };
  ASSERT_EQ(std::size(expected), zoo_names().size());
  for (const auto& [name, count] : expected) {
    EXPECT_EQ(parameter_count(zoo(name)), count) << name;
  }
}

TEST(Zoo, EveryEntryValidatesAndKeepsItsName) {
  for (const std::string& name : zoo_names()) {
    const ModelSpec spec = zoo(name);
    EXPECT_TRUE(validate(spec).is_ok()) << name;
    EXPECT_EQ(spec.name, name);
    EXPECT_FALSE(spec.hf_repo.empty()) << name;
    // Qwen3-30B-A3B's 32 heads of 128 are twice its hidden width (T5-3B's four times), Gemma's
    // heads are 256 wide
    // whatever the width; every other entry's heads split it.
    // DeepSeek's latent attention gives each head a query and key of 128 + 64.
    const std::int64_t head_dim = name == "qwen3-30b-a3b" || name == "t5-3b" ? 128
                                  : name.starts_with("gemma")                ? 256
                                  : name.starts_with("deepseek")
                                      ? 192
                                      : spec.hidden_size / spec.num_heads;
    EXPECT_EQ(spec.head_dim, head_dim) << name;
  }
}

TEST(Zoo, LookupIgnoresCaseAndAcceptsAliases) {
  EXPECT_EQ(zoo("GPT2").name, "gpt2");
  EXPECT_EQ(zoo("gpt2-124m").name, "gpt2");
  EXPECT_EQ(zoo("gpt2-350M").name, "gpt2-medium");
  EXPECT_EQ(zoo("gpt2-774m").name, "gpt2-large");
  EXPECT_EQ(zoo("gpt2-1.5b").name, "gpt2-xl");
  EXPECT_EQ(zoo("llama-2-7b").name, "llama2-7b");
  EXPECT_EQ(zoo("meta-llama/Llama-2-7b-hf").name, "llama2-7b");
  EXPECT_EQ(zoo("meta-llama/Meta-Llama-3-70B").name, "llama3-70b");
  EXPECT_EQ(zoo("mistralai/Mistral-7B-v0.1").name, "mistral-7b");
  EXPECT_EQ(zoo("Qwen/Qwen2-7B").name, "qwen2-7b");
  EXPECT_EQ(zoo("Qwen/Qwen3-8B").name, "qwen3-8b");
  EXPECT_EQ(zoo("Qwen/Qwen3-30B-A3B").name, "qwen3-30b-a3b");
  EXPECT_EQ(zoo("Qwen/Qwen1.5-MoE-A2.7B").name, "qwen1.5-moe-a2.7b");
  EXPECT_EQ(zoo("mistralai/Mixtral-8x7B-v0.1").name, "mixtral-8x7b");
  EXPECT_EQ(zoo("microsoft/phi-4").name, "phi-4");
  EXPECT_EQ(zoo("google/gemma-3-12b-pt").name, "gemma-3-12b");
  EXPECT_EQ(zoo("facebook/opt-1.3b").name, "opt-1.3b");
  EXPECT_EQ(zoo("EleutherAI/gpt-neox-20b").name, "gpt-neox-20b");
  EXPECT_EQ(zoo("microsoft/Phi-3-mini-4k-instruct").name, "phi-3-mini");
  EXPECT_TRUE(is_zoo_name("TINY-GPT"));
  EXPECT_FALSE(is_zoo_name("bert-base"));
}

TEST(Zoo, UnknownNameListsTheZooAndSuggests) {
  const Result<ModelSpec> r = zoo_model("llama2-7bb");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  const std::string& msg = r.status().message();
  EXPECT_NE(msg.find("\"llama2-7bb\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("gpt2, gpt2-medium, gpt2-large"), std::string::npos) << msg;
  EXPECT_NE(msg.find("roberta-large, deberta-v2-xlarge-mnli, t5-base, t5-large, t5-3b, bart-base, "
                     "bart-large, tiny-gpt"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("did you mean \"llama2-7b\""), std::string::npos) << msg;

  const Result<ModelSpec> far = zoo_model("resnet50");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message().find("did you mean"), std::string::npos);
}

TEST(Zoo, FamiliesDifferWhereTheirCodeDoes) {
  const ModelSpec gpt2 = zoo("gpt2");
  EXPECT_EQ(gpt2.position, PositionKind::kLearned);
  EXPECT_EQ(gpt2.norm, NormKind::kLayerNorm);
  EXPECT_EQ(gpt2.mlp, MlpKind::kGelu);
  EXPECT_TRUE(gpt2.bias.qkv && gpt2.bias.attn_out && gpt2.bias.mlp);
  EXPECT_EQ(gpt2.dropout.resid, 0.1);
  EXPECT_TRUE(gpt2.tie_word_embeddings);

  const ModelSpec qwen = zoo("qwen2-7b");
  EXPECT_TRUE(qwen.bias.qkv);
  EXPECT_FALSE(qwen.bias.attn_out || qwen.bias.mlp);
  EXPECT_EQ(qwen.num_kv_heads, 4);
  EXPECT_EQ(qwen.norm_eps, 1e-6);
  EXPECT_EQ(qwen.sliding_window, 0);

  const ModelSpec mistral = zoo("mistral-7b");
  EXPECT_EQ(mistral.sliding_window, 4096);
  EXPECT_EQ(mistral.mlp, MlpKind::kSwiGlu);
  EXPECT_FALSE(mistral.bias.qkv);
  EXPECT_EQ(mistral.dropout.attn, 0);

  const ModelSpec qwen3 = zoo("qwen3-8b");
  EXPECT_TRUE(qwen3.qk_norm);
  EXPECT_FALSE(qwen3.bias.qkv || qwen3.bias.attn_out || qwen3.bias.mlp);
  EXPECT_FALSE(qwen.qk_norm || mistral.qk_norm || gpt2.qk_norm);

  EXPECT_EQ(zoo("llama3-8b").num_kv_heads, 8);
  EXPECT_EQ(zoo("llama2-7b").num_kv_heads, 32);
  EXPECT_FALSE(zoo("llama3-70b").tie_word_embeddings);
}

TEST(Zoo, TinyGptIsGpt2ShapedAndSmall) {
  const ModelSpec tiny = zoo("tiny-gpt");
  EXPECT_EQ(tiny.model_type, ModelType::kGpt2);
  EXPECT_EQ(tiny.vocab_size, 256);
  EXPECT_EQ(tiny.num_layers, 2);
  EXPECT_EQ(tiny.hidden_size, 64);
  EXPECT_EQ(tiny.num_heads, 4);
  EXPECT_EQ(tiny.max_position_embeddings, 64);
}

TEST(ModelSpec, ValidateNamesTheBadField) {
  ModelSpec spec = zoo("llama3-8b");
  spec.num_kv_heads = 5;
  Status s = validate(spec);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("num_kv_heads = 5"), std::string::npos) << s.message();

  spec = zoo("gpt2");
  spec.dropout.attn = 1.0;
  s = validate(spec);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("dropout.attn = 1"), std::string::npos) << s.message();

  spec = zoo("gpt2");
  spec.mlp = MlpKind::kSwiGlu;
  EXPECT_FALSE(validate(spec).is_ok());

  // Mixtral-8x7B with 4096 experts of 4 times the width: 9.2e13 expert parameters pass, with
  // 64 times the layers (5.9e15, past 2^52) they do not.
  spec = zoo("mixtral-8x7b");
  spec.moe.num_experts = 4096;
  spec.intermediate_size *= 4;
  EXPECT_TRUE(validate(spec).is_ok());
  spec.num_layers *= 64;
  s = validate(spec);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("moe.num_experts = 4096"), std::string::npos) << s.message();
}

TEST(ModelSpec, SizesPastEveryPublishedModelAreRefused) {
  // The bounds keep parameter counts in int64 (4M hidden x 100k layers printed a negative count).
  ModelSpec spec = zoo("llama2-7b");
  spec.num_layers = kMaxLayers + 1;
  Status s = validate(spec);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("num_layers = 10001"), std::string::npos) << s.message();
  spec = zoo("llama2-7b");
  spec.head_dim = 8192;  // 32 heads x 8192 = 262,144 > kMaxHiddenSize
  s = validate(spec);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.message().find("num_heads * head_dim"), std::string::npos) << s.message();
  spec = zoo("llama2-7b");
  spec.vocab_size = kMaxVocabSize;
  EXPECT_TRUE(validate(spec).is_ok());
}

}  // namespace
}  // namespace zs::models
