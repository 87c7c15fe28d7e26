// `zerosim report`'s page: one self-contained HTML file (inline CSS, SVG and a few lines of
// script; no network) with a summary of the sweep, the winner and its tuned config, then one
// section per plot of reports/plots.h with its tables, then every variant and the invalid ones.
// Everything taken from the input is HTML-escaped. The same inputs and renderer output give a
// byte-identical page.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "reports/figure.h"
#include "reports/gnuplot.h"
#include "reports/report_inputs.h"

namespace zs::reports {

// The page's sections after the summary, in order: memory, throughput, one per varied knob,
// Pareto, timeline, validation, every variant, invalid variants.
std::vector<Figure> report_figures(const ReportInputs& in);

// The page. Each figure's script is drawn by `renderer`; its Status is returned when it fails.
Result<std::string> render_report_html(const ReportInputs& in, SvgRenderer& renderer);

}  // namespace zs::reports
