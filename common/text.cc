#include "common/text.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace zs {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

// Longer words get no suggestion: a typo of a key is short, and the search stays linear.
constexpr std::size_t kMaxSuggestLength = 128;

// Levenshtein distance if it is at most `limit`, else limit + 1; only a band of 2 x limit + 1
// cells per row is computed, so the cost is O(|a| x limit).
int bounded_distance(std::string_view a, std::string_view b, int limit) {
  const int n = static_cast<int>(a.size()), m = static_cast<int>(b.size());
  if (std::abs(n - m) > limit) return limit + 1;
  const int big = limit + 1;
  std::vector<int> prev(m + 1, big), cur(m + 1, big);
  for (int j = 0; j <= std::min(m, limit); ++j) prev[j] = j;
  for (int i = 1; i <= n; ++i) {
    const int lo = std::max(1, i - limit), hi = std::min(m, i + limit);
    std::fill(cur.begin(), cur.end(), big);
    if (i <= limit) cur[0] = i;
    int row_min = cur[0];
    for (int j = lo; j <= hi; ++j) {
      const int subst = prev[j - 1] + (lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst, big});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return big;
    std::swap(prev, cur);
  }
  return std::min(prev[m], big);
}

bool starts_with_ignoring_case(std::string_view s, std::string_view prefix) {
  if (prefix.size() > s.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower(s[i]) != lower(prefix[i])) return false;
  }
  return true;
}

std::size_t common_prefix_ignoring_case(std::string_view a, std::string_view b) {
  std::size_t n = 0;
  while (n < a.size() && n < b.size() && lower(a[n]) == lower(b[n])) ++n;
  return n;
}

template <class S>
std::optional<std::string> closest_impl(std::string_view word, std::span<const S> candidates) {
  if (word.empty() || word.size() > kMaxSuggestLength) return std::nullopt;
  const std::string_view stripped =
      word.front() == '_' ? word.substr(word.find_first_not_of('_') == std::string_view::npos
                                            ? word.size()
                                            : word.find_first_not_of('_'))
                          : word;
  const int limit = std::max<int>(2, static_cast<int>(word.size()) / 3);
  std::optional<std::string> best;
  int best_distance = limit + 1;
  std::size_t best_prefix = 0;
  for (const auto& cand : candidates) {
    const std::string_view c(cand);
    int d = bounded_distance(word, c, limit);
    if (stripped != word && to_lower(stripped) == to_lower(c)) d = 1;
    // A name cut short ("h100-80g" for "h100-80gb-sxm") is as close as one typo, however much
    // is missing: its start says which name was meant.
    if (d > 1 && word.size() >= 3 && starts_with_ignoring_case(c, word)) d = 1;
    // Equally close: the one that starts like the word ("h100-80gb" over "a100-80g" for
    // "h100-80g"); a name's start is what the user knew, its typos come later.
    const std::size_t prefix = common_prefix_ignoring_case(word, c);
    if (d < best_distance || (d == best_distance && d <= limit && prefix > best_prefix)) {
      best_distance = d;
      best_prefix = prefix;
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
  // No distance exceeds the longer length: a band that wide is the whole table.
  return bounded_distance(a, b, static_cast<int>(std::max(a.size(), b.size())));
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
