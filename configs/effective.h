// The effective config: every key DeepSpeed would use, with its value and where it came from.
#pragma once

#include <map>
#include <string>

#include "configs/ds_config.h"

namespace zs::configs {

struct EffectiveConfig {
  Json value;  // a ds_config DeepSpeed accepts; unresolved "auto" stays "auto"
  std::map<std::string, std::string> origins;  // JSON path -> "default", "file", "auto: ..."
};

// `root` is the file as written, for the sections zerosim passes through unmodelled.
EffectiveConfig effective_config(const DsConfig& c, const Json& root);

// The effective config as indented JSON with a `// origin` comment after each value.
std::string render_effective_text(const EffectiveConfig& e);

}  // namespace zs::configs
