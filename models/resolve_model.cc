// resolve_model (models/hf_config.h): a --model argument as a zoo name, a config.json path or
// directory, or a Hugging Face hub id found in the local hub cache.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/text.h"
#include "models/hf_config.h"
#include "models/zoo.h"

namespace zs::models {

namespace {

// "org/name": one slash, no file extension, not a relative or absolute path.
bool is_hub_id(std::string_view arg) {
  const std::size_t slash = arg.find('/');
  return slash != std::string_view::npos && slash > 0 && slash + 1 < arg.size() &&
         arg.find('/', slash + 1) == std::string_view::npos && arg[0] != '.' &&
         arg.find(".json") == std::string_view::npos;
}

// The Hugging Face hub cache (huggingface_hub's constants: HF_HUB_CACHE, else HF_HOME/hub, else
// ~/.cache/huggingface/hub).
std::filesystem::path hub_cache() {
  if (const char* c = std::getenv("HF_HUB_CACHE"); c != nullptr && *c != '\0') return c;
  if (const char* h = std::getenv("HF_HOME"); h != nullptr && *h != '\0') {
    return std::filesystem::path(h) / "hub";
  }
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "") / ".cache" / "huggingface" / "hub";
}

// The cached config.json of hub id `id` (the snapshot refs/main names, else the only one), or
// empty. `folder` receives the folder looked in.
std::filesystem::path cached_hub_config(std::string_view id, std::filesystem::path* folder) {
  std::string name = "models--" + std::string(id);
  const std::size_t slash = name.find('/');
  name.replace(slash, 1, "--");
  *folder = hub_cache() / name;
  std::error_code ec;
  std::ifstream ref(*folder / "refs" / "main");
  std::string commit;
  if (ref && std::getline(ref, commit) && !commit.empty()) {
    const auto p = *folder / "snapshots" / commit / "config.json";
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  std::vector<std::filesystem::path> found;
  for (auto it = std::filesystem::directory_iterator(*folder / "snapshots", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    const auto p = it->path() / "config.json";
    if (std::filesystem::is_regular_file(p, ec)) found.push_back(p);
  }
  return found.size() == 1 ? found.front() : std::filesystem::path();
}

}  // namespace

Result<ModelSpec> resolve_model(std::string_view arg, Diagnostics* warnings) {
  if (is_zoo_name(arg)) return zoo_model(arg);
  const bool path_like = arg.find('/') != std::string_view::npos ||
                         (arg.size() >= 5 && to_lower(arg.substr(arg.size() - 5)) == ".json");
  if (!path_like) return zoo_model(arg);
  std::filesystem::path path{std::string(arg)};
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) && is_hub_id(arg)) {
    std::filesystem::path folder;
    const std::filesystem::path cached = cached_hub_config(arg, &folder);
    if (cached.empty()) {
      return Status::not_found(
          std::string(arg) + ": error[file]: a Hugging Face hub id whose config.json is not in " +
          "the local cache (looked in " + folder.string() +
          "); zerosim reads only the model's config.json, no weights and no network: fetch it "
          "(huggingface-cli download " +
          std::string(arg) +
          " config.json, after accepting the model's license if it is gated) "
          "or pass the path of a config.json");
    }
    path = cached;
  }
  if (std::filesystem::is_directory(path, ec)) path /= "config.json";
  return load_hf_config(path.string(), warnings);
}

}  // namespace zs::models
