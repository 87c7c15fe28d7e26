#include "common/json_path.h"

namespace zs::json {
namespace {

bool is_plain_key(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string child_path(std::string_view parent, std::string_view key) {
  std::string out(parent);
  if (is_plain_key(key)) {
    if (!out.empty()) out += '.';
    out += key;
    return out;
  }
  out += "[\"";
  for (char c : key) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  out += "\"]";
  return out;
}

std::string index_path(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

std::string display_path(std::string_view path) {
  return path.empty() ? std::string("(root)") : std::string(path);
}

}  // namespace zs::json
