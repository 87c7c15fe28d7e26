// The report's plots, one function each: the gnuplot script that draws it (reports/plot_style.h)
// and the tables under it. A plot with nothing to show comes back with an empty script and a
// note saying why. Invalid rows are never plotted. Deterministic: the same table gives the same
// script.
#pragma once

#include <vector>

#include "reports/figure.h"
#include "reports/sweep_table.h"
#include "reports/validation_data.h"

namespace zs::reports {

// The most variants drawn as bars or listed in one table; the rest are counted in the note.
inline constexpr int kMaxBars = 40;
inline constexpr int kMaxTableRows = 1000;

// Stacked bars per variant of what holds the per-GPU peak (parameters, gradients, optimizer
// states, activations, buffers, other), with the GPU's capacity and the usable part of it
// (capacity less headroom) as lines. Variants in report order (valid_rows_in_order), at most
// kMaxBars.
Figure memory_figure(const SweepTable& t);

// Cluster throughput (tokens/s) against micro-batch per GPU, one line per ZeRO stage, each point
// the fastest variant that fits with that stage and micro-batch. Omitted unless at least two
// micro-batch sizes fit.
Figure throughput_figure(const SweepTable& t);

// One figure per varied knob with two or more values among valid rows: step time (left) and
// per-GPU peak (right) against the knob's values; every variant as a grey point, and a line
// through the variants whose other knobs match the winner's.
std::vector<Figure> knob_figures(const SweepTable& t);

// Step time against per-GPU peak for every valid variant, the Pareto front (results.json
// "pareto") as a line, the winner marked, the GPU's capacity as a vertical line.
Figure pareto_figure(const SweepTable& t);

// The winner's simulated step (results.json "best_timeline") as a Gantt chart: one row per
// stream, one box per op (ops closer than 1/2000 of the step drawn as one box).
Figure timeline_figure(const SweepTable& t);

// Predicted against measured step time (and per-GPU peak, where measured), one point per
// validation file, with the line where they agree. Omitted without validation files.
Figure validation_figure(const std::vector<ValidationPoint>& points);

// Tables without plots: every variant in report order (at most kMaxTableRows), and the invalid
// rows with their reasons.
Figure variants_figure(const SweepTable& t);
Figure invalid_figure(const SweepTable& t);

}  // namespace zs::reports
