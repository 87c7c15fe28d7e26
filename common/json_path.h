// JSON paths as zerosim prints them: "zero_optimization.offload_optimizer.device",
// "optimizer.params.betas[1]". The root is the empty path. A key that is not a plain
// identifier is quoted: a["odd.key"]. The same syntax names sweep knobs on the command line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace zs::json {

// One step of a parsed path: a member key, or an array index.
struct PathStep {
  std::string key;
  bool is_index = false;
  std::size_t index = 0;
};

// Returns the path of member `key` of the object at `parent`.
std::string child_path(std::string_view parent, std::string_view key);

// Returns the path of element `index` of the array at `parent`.
std::string index_path(std::string_view parent, std::size_t index);

// Returns the path for display: the root is shown as "(root)".
std::string display_path(std::string_view path);

// Parses a path written in the syntax above (the inverse of child_path / index_path):
// "a.b", "a[2].c", a["odd.key"]. kInvalidArgument naming the path and the offending character
// when it is empty or malformed.
Result<std::vector<PathStep>> parse_path(std::string_view path);

// The path that `steps` spell, in the syntax above.
std::string path_of(const std::vector<PathStep>& steps);

}  // namespace zs::json
