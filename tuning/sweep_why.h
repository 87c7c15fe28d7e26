// Why the winner of a sweep wins: it against the user's config, term by term.
//
// For each axis whose value differs, the user's config with that one term changed is simulated
// too, so each line says what the term does on its own (step time, exposed communication, peak
// memory, with numbers); a last line gives the winner against the user's config as a whole.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tuning/sweep.h"

namespace zs::tuning {

// `rows[0]` is the baseline; `best` a row id or none (no feasible row).
std::vector<std::string> explain_best(VariantRunner& runner, std::span<const Axis> axes,
                                      std::span<const SweepRow> rows, std::optional<int> best,
                                      double headroom);

// The tie the band made (Winner::tied not empty): which rows, and why the winner is the one kept.
std::string tie_text(const Winner& w, std::span<const SweepRow> rows);

// "412.3 ms" below a second, "1.234 s" above.
std::string format_seconds(double s);

}  // namespace zs::tuning
