#include "reports/plot_style.h"

#include <cmath>
#include <cstdio>

#include "common/check.h"

namespace zs::reports::plot {
namespace {

// viridis (matplotlib's perceptually uniform map), light to dark: its lightness falls
// monotonically, so the order of the categories survives a greyscale print.
constexpr const char* kViridis[] = {"#fde725", "#a0da39", "#4ac16d", "#1fa187",
                                    "#277f8e", "#365c8d", "#46327e", "#440154"};
constexpr int kViridisCount = 8;
// Gnuplot's SVG patterns (svg.trm): 0 none, 1 cross-hatch, 4 '/', 5 '\', 6 steep '/',
// 7 steep '\'. 2 (dense cross-hatch) and 3 (solid) hide the colour.
constexpr int kPatterns[] = {0, 4, 5, 1, 6, 7};
constexpr const char* kLineRgb[] = {"#000000", "#365c8d", "#1fa187",
                                    "#46327e", "#277f8e", "#4ac16d"};
// Gnuplot dash types: 1 solid, 2 dashed, 3 dotted, 4 dash-dot, 5 dash-dot-dot.
constexpr int kDashTypes[] = {1, 2, 4, 3, 5, 2};
// Point types in the SVG terminal: 7 filled circle, 5 filled square, 9 filled triangle,
// 13 filled pentagon, 6 open circle, 4 open square.
constexpr int kPointTypes[] = {7, 5, 9, 13, 6, 4};

bool safe_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  for (char ok : std::string_view(" .,:;_-+=/()%#[]<>")) {
    if (c == ok) return true;
  }
  return false;
}

FillStyle fill_from_palette(int palette_index, int pattern) {
  ZS_CHECK(palette_index >= 0 && palette_index < kViridisCount);
  // The four lightest colours take black hatching; the darker ones white.
  return FillStyle{kViridis[palette_index], pattern, palette_index < 4 ? "#000000" : "#ffffff"};
}

}  // namespace

std::string preamble(int width_px, int height_px) {
  return "set terminal svg size " + std::to_string(width_px) + "," + std::to_string(height_px) +
         " fixed font \"DejaVu Sans,11\" noenhanced background \"#ffffff\"\n"
         "set encoding utf8\n"
         "set border 3 lc rgb \"#000000\"\n"
         "set xtics nomirror out\n"
         "set ytics nomirror out\n"
         "set grid ytics lt 1 lc rgb \"#dddddd\"\n"
         "set style data linespoints\n";
}

std::string labels(std::string_view title, std::string_view xlabel, std::string_view ylabel) {
  return "set title " + quoted(title) + " font \",13\"\nset xlabel " + quoted(xlabel) +
         "\nset ylabel " + quoted(ylabel) + "\n";
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) out += safe_char(c) ? c : '?';
  return out + "\"";
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string short_number(double v) {
  char buf[32];
  const double a = std::fabs(v);
  if (a < 1e5 && v == std::floor(v)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  if (a >= 1e5) {
    const int exp10 = static_cast<int>(std::floor(std::log10(a)));
    const double mantissa = v / std::pow(10.0, exp10);
    // Round the mantissa to three digits; it names the value exactly in the usual cases
    // (5e8, 1.25e8, 2e8).
    std::snprintf(buf, sizeof buf, "%.3ge%d", mantissa, exp10);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string datablock(std::string_view name, const std::vector<std::string>& lines) {
  std::string out = "$" + std::string(name) + " << EOD\n";
  for (const std::string& l : lines) out += l + "\n";
  return out + "EOD\n";
}

FillStyle fill_style(int i) {
  ZS_CHECK(i >= 0 && i < kFillCount);
  // Six of the eight colours, evenly spaced, lightest first.
  constexpr int kIndex[] = {0, 1, 2, 4, 5, 7};
  return fill_from_palette(kIndex[i], kPatterns[i]);
}

FillStyle spread_fill_style(int i, int n) {
  ZS_CHECK(n >= 1 && i >= 0 && i < n);
  const int index = n == 1 ? 3 : (i * (kViridisCount - 1)) / (n - 1);
  return fill_from_palette(index, kPatterns[i % kFillCount]);
}

std::string filled_boxes(std::string_view source, std::string_view using_columns,
                         const FillStyle& fill) {
  std::string out = std::string(source) + " using " + std::string(using_columns) +
                    " with boxxyerror fs solid 1.0 border lc rgb \"#000000\" fc rgb \"" + fill.rgb +
                    "\" notitle";
  if (fill.pattern != 0) {
    out += ", \\\n  " + std::string(source) + " using " + std::string(using_columns) +
           " with boxxyerror fs transparent pattern " + std::to_string(fill.pattern) +
           " noborder fc rgb \"" + fill.pattern_rgb + "\" notitle";
  }
  return out;
}

LineStyle line_style(int i) {
  ZS_CHECK(i >= 0);
  const int k = i % 6;
  return LineStyle{kLineRgb[k], kDashTypes[k], kPointTypes[k]};
}

std::string line_spec(const LineStyle& s) {
  return "lc rgb \"" + s.rgb + "\" dt " + std::to_string(s.dash_type) + " pt " +
         std::to_string(s.point_type) + " ps 1.2 lw 2";
}

void SwatchLegend::add_fill(std::string label, FillStyle fill) {
  Entry e;
  e.label = std::move(label);
  e.fill = std::move(fill);
  entries_.push_back(std::move(e));
}

void SwatchLegend::add_line(std::string label, int dash_type, double width, std::string rgb) {
  Entry e;
  e.label = std::move(label);
  e.is_line = true;
  e.dash_type = dash_type;
  e.width = width;
  e.rgb = std::move(rgb);
  entries_.push_back(std::move(e));
}

std::string SwatchLegend::script() const {
  // Screen coordinates: the graph ends at 0.77; swatches from 0.79 to 0.83, labels at 0.84,
  // one entry per 0.065 of the height from the top.
  std::string out = "set rmargin at screen 0.77\nunset key\n";
  int id = 100;
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    const double top = 0.9 - 0.065 * static_cast<double>(i);
    const double bottom = top - 0.04;
    const double mid = (top + bottom) / 2;
    const std::string box =
        "from screen 0.79, screen " + num(bottom) + " to screen 0.83, screen " + num(top);
    if (e.is_line) {
      out += "set arrow " + std::to_string(id) + " from screen 0.79, screen " + num(mid) +
             " to screen 0.83, screen " + num(mid) + " nohead dt " + std::to_string(e.dash_type) +
             " lw " + num(e.width) + " lc rgb \"" + e.rgb + "\" front\n";
    } else {
      out += "set object " + std::to_string(id) + " rect " + box + " fc rgb \"" + e.fill.rgb +
             "\" fs solid 1.0 border lc rgb \"#000000\" front\n";
      if (e.fill.pattern != 0) {
        out += "set object " + std::to_string(id + 50) + " rect " + box + " fc rgb \"" +
               e.fill.pattern_rgb + "\" fs transparent pattern " + std::to_string(e.fill.pattern) +
               " border lc rgb \"#000000\" front\n";
      }
    }
    out += "set label " + std::to_string(id) + " " + quoted(e.label) + " at screen 0.84, screen " +
           num(mid) + " left front\n";
    ++id;
  }
  return out;
}

}  // namespace zs::reports::plot
