#include "common/text.h"

#include <algorithm>
#include <cctype>

namespace zs {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

template <class S>
std::optional<std::string> closest_impl(std::string_view word, std::span<const S> candidates) {
  if (word.empty()) return std::nullopt;
  const std::string_view stripped =
      word.front() == '_' ? word.substr(word.find_first_not_of('_') == std::string_view::npos
                                            ? word.size()
                                            : word.find_first_not_of('_'))
                          : word;
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  std::optional<std::string> best;
  int best_distance = limit + 1;
  for (const auto& cand : candidates) {
    const std::string_view c(cand);
    int d = edit_distance(word, c);
    if (stripped != word && to_lower(stripped) == to_lower(c)) d = 1;
    if (d < best_distance) {
      best_distance = d;
      best = std::string(c);
    }
  }
  return best;
}

template <class S>
std::string join_impl(std::span<const S> items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += sep;
    out += std::string_view(items[i]);
  }
  return out;
}

}  // namespace

int edit_distance(std::string_view a, std::string_view b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const int subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates) {
  return closest_impl(word, candidates);
}

std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates) {
  return closest_impl(word, candidates);
}

std::string join(std::span<const std::string> items, std::string_view sep) {
  return join_impl(items, sep);
}

std::string join(std::span<const std::string_view> items, std::string_view sep) {
  return join_impl(items, sep);
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = lower(c);
  return out;
}

}  // namespace zs
