// The look every report plot shares, as gnuplot script text: the SVG terminal at a fixed size and
// font (so the same data gives the same SVG), string and number literals, and series styles that
// survive greyscale printing: fills from a light-to-dark palette with a hatch pattern each, lines
// with a dash type and a point type each.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zs::reports::plot {

inline constexpr int kWidthPx = 880;
inline constexpr int kHeightPx = 420;

// `set terminal svg` (fixed size, DejaVu Sans 11, noenhanced so that underscores in knob names
// print as they are, white background) and the shared axes: a light grid, tics on the left and
// bottom only.
std::string preamble(int width_px = kWidthPx, int height_px = kHeightPx);

// `set title`, `set xlabel`, `set ylabel`.
std::string labels(std::string_view title, std::string_view xlabel, std::string_view ylabel);

// `text` as a gnuplot string literal in double quotes. Characters other than letters, digits,
// space and . , : ; _ - + = / ( ) % # [ ] < > are replaced by '?': input text can neither end
// the literal nor reach gnuplot's escapes or the SVG's markup.
std::string quoted(std::string_view text);

// A number for a script or a data block: "%.9g" in the C locale.
std::string num(double v);

// A short tick label: integers below 1e5 in full, powers-of-ten multiples as "5e8", "1.25e8",
// others "%.3g".
std::string short_number(double v);

// "$name << EOD", the lines, "EOD".
std::string datablock(std::string_view name, const std::vector<std::string>& lines);

// The fill of category `i` (0-based, up to kFillCount): a colour from viridis, light to dark (its
// lightness falls monotonically, so the order survives a greyscale print), and a gnuplot SVG
// pattern number drawn over it in black on the light fills, white on the dark ones.
inline constexpr int kFillCount = 6;
struct FillStyle {
  std::string rgb;
  int pattern = 0;  // 0: none
  std::string pattern_rgb;
};
FillStyle fill_style(int i);

// The fill of `i` of `n` categories, spread over the palette.
FillStyle spread_fill_style(int i, int n);

// Plot elements that draw boxes [x_lo, x_hi] x [y_lo, y_hi] from `using` columns in `fill`:
// a solid box with a black border, then its pattern (each as one `plot` element, no title).
std::string filled_boxes(std::string_view source, std::string_view using_columns,
                         const FillStyle& fill);

// The line of series `i`: dark to middle colours, and a dash type and point type of its own.
struct LineStyle {
  std::string rgb;
  int dash_type = 1;
  int point_type = 7;
};
LineStyle line_style(int i);
// "lc rgb "#..." dt N pt M ps 1.2 lw 2".
std::string line_spec(const LineStyle& s);

// A legend at the right of the graph, drawn with objects, so that each swatch shows both the
// fill colour and its pattern (gnuplot's key shows one fill per entry). script() also narrows
// the graph to leave it room; put it before `plot`.
class SwatchLegend {
 public:
  void add_fill(std::string label, FillStyle fill);
  // A line sample: dash type, width, colour.
  void add_line(std::string label, int dash_type, double width, std::string rgb);
  std::string script() const;

 private:
  struct Entry {
    std::string label;
    bool is_line = false;
    FillStyle fill;
    int dash_type = 1;
    double width = 1;
    std::string rgb;
  };
  std::vector<Entry> entries_;
};

}  // namespace zs::reports::plot
