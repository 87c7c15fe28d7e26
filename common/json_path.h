// JSON paths as zerosim prints them: "zero_optimization.offload_optimizer.device",
// "optimizer.params.betas[1]". The root is the empty path. A key that is not a plain
// identifier is quoted: a["odd.key"]. The same syntax names sweep knobs on the command line.
#pragma once

#include <string>
#include <string_view>

namespace zs::json {

// Returns the path of member `key` of the object at `parent`.
std::string child_path(std::string_view parent, std::string_view key);

// Returns the path of element `index` of the array at `parent`.
std::string index_path(std::string_view parent, std::size_t index);

// Returns the path for display: the root is shown as "(root)".
std::string display_path(std::string_view path);

}  // namespace zs::json
