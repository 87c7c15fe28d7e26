// Running gnuplot and inlining its SVG.
#include "reports/gnuplot.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "reports/plot_style.h"

namespace zs::reports {
namespace {

const char* path_env() {
  const char* p = std::getenv("PATH");
  return p != nullptr ? p : "";
}

TEST(Gnuplot, MissingGnuplotNamesThePackage) {
  const auto g = find_gnuplot("/nonexistent-dir:/also-not-here");
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), StatusCode::kNotFound);
  EXPECT_NE(g.status().message().find("gnuplot-nox"), std::string::npos);
}

TEST(Gnuplot, RendersALabelledPlotDeterministically) {
  const auto g = find_gnuplot(path_env());
  ASSERT_TRUE(g.ok()) << g.status().message();
  GnuplotRenderer renderer(*g);
  const std::string script = plot::preamble(400, 300) +
                             plot::labels("A title", "x axis (ms)", "y axis (GiB)") +
                             plot::datablock("d", {"1 2", "2 3"}) +
                             "plot $d using 1:2 with linespoints title \"series\"\n";
  const auto a = renderer.render(script);
  ASSERT_TRUE(a.ok()) << a.status().message();
  const auto b = renderer.render(script);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_NE(a->find("<svg"), std::string::npos);
  EXPECT_NE(a->find("<text>x axis (ms)</text>"), std::string::npos);
  EXPECT_NE(a->find("<text>y axis (GiB)</text>"), std::string::npos);
}

TEST(Gnuplot, AFailingScriptReportsGnuplotsMessage) {
  const auto g = find_gnuplot(path_env());
  ASSERT_TRUE(g.ok()) << g.status().message();
  GnuplotRenderer renderer(*g);
  const auto r = renderer.render("set terminal svg\nplot $nothing using 1:2\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("failed"), std::string::npos) << r.status().message();
}

TEST(Gnuplot, InlineSvgPrefixesIdsAndDropsTheProlog) {
  const std::string svg =
      "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg \n width=\"10\">\n<title>Gnuplot</title>\n"
      "<g id=\"gnuplot_canvas\"><pattern id='gpPat1'/><use xlink:href='#gpPt5'/>"
      "<polygon fill = 'url(#gpPat1)'/><g id=\"gnuplot_plot_1\"><title>gnuplot_plot_1</title>"
      "</g></g>\n</svg>\n\n";
  const auto out = inline_svg(svg, "f3-");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out,
            "<svg class=\"plot\" \n width=\"10\">\n\n<g id=\"f3-gnuplot_canvas\"><pattern "
            "id='f3-gpPat1'/><use xlink:href='#f3-gpPt5'/><polygon fill = 'url(#f3-gpPat1)'/><g "
            "id=\"f3-gnuplot_plot_1\"></g></g>\n</svg>");
  EXPECT_FALSE(inline_svg("no svg here", "p-").ok());
}

TEST(PlotStyle, QuotedKeepsInputOutOfTheScript) {
  EXPECT_EQ(plot::quoted("reduce_bucket_size (elements)"), "\"reduce_bucket_size (elements)\"");
  EXPECT_EQ(plot::quoted("a\"b\\c`d&e'f@g$h\n"), "\"a?b?c?d?e?f?g?h?\"");
}

TEST(PlotStyle, ShortNumbers) {
  EXPECT_EQ(plot::short_number(16), "16");
  EXPECT_EQ(plot::short_number(5e8), "5e8");
  EXPECT_EQ(plot::short_number(1.25e8), "1.25e8");
  EXPECT_EQ(plot::short_number(0.5), "0.5");
}

TEST(PlotStyle, FillsGetDarkerAndDiffer) {
  // Lightness (Rec. 709 luma) falls category by category, and no two share a pattern.
  double last = 256;
  for (int i = 0; i < plot::kFillCount; ++i) {
    const plot::FillStyle f = plot::fill_style(i);
    const int r = std::stoi(f.rgb.substr(1, 2), nullptr, 16);
    const int g = std::stoi(f.rgb.substr(3, 2), nullptr, 16);
    const int b = std::stoi(f.rgb.substr(5, 2), nullptr, 16);
    const double luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    EXPECT_LT(luma, last) << i;
    last = luma;
    for (int j = 0; j < i; ++j) EXPECT_NE(plot::fill_style(j).pattern, f.pattern) << i << j;
  }
}

}  // namespace
}  // namespace zs::reports
