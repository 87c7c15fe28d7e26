// `zerosim report DIR|RESULTS.json -o report.html`: the HTML report of a sweep or tune
// (reports/html_report.h), its plots drawn with gnuplot.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace zs::cli {

// Adds the `report` subcommand; the callback runs it and returns the exit code: 0 when the page
// was written, 1 for bad input (a missing directory, a malformed results.json: the message names
// the file and JSON path), a missing gnuplot or an unwritable output. On failure no output file
// is left behind.
std::function<int()> add_report_command(CLI::App& app);

}  // namespace zs::cli
