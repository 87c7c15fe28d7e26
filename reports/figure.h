// What one section of the HTML report holds: a plot (as the gnuplot script that draws it) and
// the tables under it. Builders in reports/plots.h fill these from the sweep's results; the page
// (reports/html_report.h) renders them. Text here is plain: the page escapes it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zs::reports {

struct Cell {
  std::string text;
  std::optional<double> sort_key;  // sorts numerically when set; by text otherwise
  bool align_right = true;         // with a sort key: right-aligned, as numbers are
};

struct Table {
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;  // each as wide as header
};

struct Figure {
  std::string id;       // the section's HTML id: lowercase letters, digits and '-'
  std::string heading;  // the section's title
  // A gnuplot script that writes one SVG to stdout (reports/plot_style.h sets the terminal);
  // empty when there is nothing to plot.
  std::string script;
  // One line under the heading: how to read the plot, or why it is omitted.
  std::string note;
  std::vector<Table> tables;
};

// A number cell: `text` shown, `value` sorted on.
inline Cell number_cell(std::string text, double value) {
  return Cell{std::move(text), value, true};
}
inline Cell text_cell(std::string text) { return Cell{std::move(text), std::nullopt}; }
// Text that sorts by `value` (a variant's description by its id).
inline Cell keyed_text_cell(std::string text, double value) {
  return Cell{std::move(text), value, false};
}

}  // namespace zs::reports
