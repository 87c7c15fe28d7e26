// The model zoo: exact architectures of well-known checkpoints, by name.
//
// Every entry's hyperparameters are copied from the Hugging Face config.json of the repository
// named beside it in zoo.cc; tests/models/zoo_test.cc pins each entry's parameter count to the
// published figure. Names are matched ignoring case, and a few natural aliases are accepted
// ("gpt2-124m", "llama-2-7b", "meta-llama/Llama-2-7b-hf", ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "models/model_spec.h"

namespace zs::models {

// The canonical zoo names, in table order ("gpt2", "gpt2-medium", ..., "tiny-gpt").
std::vector<std::string> zoo_names();

// True if `name` is a zoo name or alias (ignoring case).
bool is_zoo_name(std::string_view name);

// Returns the spec of the zoo model called `name` (a canonical name or an alias, any case); its
// `name` field is the canonical name. An unknown name is kNotFound whose message quotes `name`,
// lists the zoo and, when one is close, says "did you mean ...".
Result<ModelSpec> zoo_model(std::string_view name);

}  // namespace zs::models
