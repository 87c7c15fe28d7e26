// zerosim's parameter tensors of each shipped config.json (models/hf_configs/) against what
// transformers itself registers for it: every tensor's name and shape in registration order
// (which decides ZeRO's flat buffers, stage 3's fetch order and the gradient hooks) and the
// total. The expected lists come from instantiating each model on the meta device with
// transformers (scripts/transformers_params.py; tests/models/data/transformers_params.json
// names the versions).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/json_reader.h"
#include "models/hf_config.h"
#include "models/parameters.h"

namespace zs::models {
namespace {

namespace fs = std::filesystem;

const json::Document& expected() {
  static const json::Document doc =
      json::parse_file(std::string(ZS_SOURCE_DIR) + "/tests/models/data/transformers_params.json")
          .value();
  return doc;
}

TEST(TransformersParams, EveryShippedConfigIsListed) {
  const json::Json& configs = expected().root["configs"];
  int shipped = 0;
  for (const auto& entry :
       fs::directory_iterator(std::string(ZS_SOURCE_DIR) + "/models/hf_configs")) {
    if (entry.path().extension() != ".json") continue;
    ++shipped;
    EXPECT_TRUE(configs.contains(entry.path().filename().string()))
        << entry.path() << ": run scripts/transformers_params.py";
  }
  EXPECT_EQ(static_cast<int>(configs.size()), shipped);
}

TEST(TransformersParams, TensorsAndCountsEqualTransformers) {
  for (const auto& [file, want] : expected().root["configs"].items()) {
    SCOPED_TRACE(file);
    const Result<ModelSpec> spec =
        load_hf_config(std::string(ZS_SOURCE_DIR) + "/models/hf_configs/" + file);
    ASSERT_TRUE(spec.ok()) << spec.status().message();
    EXPECT_EQ(model_type_name(spec->model_type), want["model_type"].get<std::string>());
    EXPECT_EQ(parameter_count(*spec), want["params"].get<std::int64_t>());
    std::vector<const ParamTensor*> ours;
    const std::vector<ParamTensor> tensors = parameter_tensors(*spec);
    for (const ParamTensor& p : tensors) {
      if (!p.tied) ours.push_back(&p);  // named_parameters lists a tied tensor once
    }
    const json::Json& theirs = want["tensors"];
    ASSERT_EQ(ours.size(), theirs.size());
    for (std::size_t k = 0; k < ours.size(); ++k) {
      EXPECT_EQ(ours[k]->name, theirs[k][0].get<std::string>()) << "tensor " << k;
      EXPECT_EQ(ours[k]->shape, theirs[k][1].get<std::vector<std::int64_t>>()) << ours[k]->name;
    }
  }
}

}  // namespace
}  // namespace zs::models
