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

namespace {

Status bad_path(std::string_view path, std::size_t at, std::string_view why) {
  return Status::invalid_argument("\"" + std::string(path) + "\" is not a JSON path: " +
                                  std::string(why) + " at character " + std::to_string(at + 1) +
                                  " (expected keys joined by '.', [N] for array elements, "
                                  "[\"key\"] for keys with other characters)");
}

bool is_plain_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

}  // namespace

Result<std::vector<PathStep>> parse_path(std::string_view path) {
  std::vector<PathStep> steps;
  if (path.empty()) return bad_path(path, 0, "it is empty");
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '[') {
      ++i;
      PathStep step;
      if (i < path.size() && path[i] == '"') {
        ++i;
        while (i < path.size() && path[i] != '"') {
          if (path[i] == '\\' && i + 1 < path.size()) ++i;
          step.key += path[i++];
        }
        if (i >= path.size()) return bad_path(path, i - 1, "an unterminated quoted key");
        ++i;  // the closing quote
      } else {
        const std::size_t start = i;
        while (i < path.size() && path[i] >= '0' && path[i] <= '9') {
          step.index = step.index * 10 + static_cast<std::size_t>(path[i] - '0');
          ++i;
        }
        if (i == start || i - start > 9) return bad_path(path, start, "a bad array index");
        step.is_index = true;
      }
      if (i >= path.size() || path[i] != ']') return bad_path(path, i, "a missing ']'");
      ++i;
      steps.push_back(std::move(step));
    } else {
      if (path[i] == '.') {
        if (steps.empty()) return bad_path(path, i, "a leading '.'");
        ++i;
      } else if (!steps.empty()) {
        return bad_path(path, i, "a missing '.'");
      }
      const std::size_t start = i;
      while (i < path.size() && is_plain_char(path[i])) ++i;
      if (i == start) return bad_path(path, start, "an empty or non-identifier key");
      steps.push_back(PathStep{std::string(path.substr(start, i - start)), false, 0});
    }
  }
  return steps;
}

std::string path_of(const std::vector<PathStep>& steps) {
  std::string out;
  for (const PathStep& s : steps) {
    out = s.is_index ? index_path(out, s.index) : child_path(out, s.key);
  }
  return out;
}

}  // namespace zs::json
