// Small text helpers: "did you mean" suggestions and joining.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zs {

// Levenshtein distance between `a` and `b`, case-insensitive.
int edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word`, when it is close enough to be a plausible typo: edit distance
// at most max(2, |word|/3), equal to `word` without its leading underscores (a key disabled by
// prefixing "_"), or starting with `word` (3 characters or more: a name cut short), the last two
// counting as distance 1. Ties go to the candidate sharing the longest start with `word`, then to
// the earliest. Words over 128 characters get none;
// the cost is O(|word| x max(2, |word|/3)) per candidate.
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string> candidates);
std::optional<std::string> closest_match(std::string_view word,
                                         std::span<const std::string_view> candidates);

// "a, b, c".
std::string join(std::span<const std::string> items, std::string_view sep);
std::string join(std::span<const std::string_view> items, std::string_view sep);

std::string to_lower(std::string_view s);

}  // namespace zs
