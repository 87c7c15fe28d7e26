// Drawing a plot: a gnuplot script in, SVG text out. SvgRenderer is the seam the HTML report is
// built against, so that it can be tested without gnuplot; GnuplotRenderer runs the real one.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace zs::reports {

class SvgRenderer {
 public:
  virtual ~SvgRenderer() = default;
  // The SVG document that `script` (which sets an SVG terminal and writes to stdout) draws.
  // kIoError with the renderer's message when it fails.
  virtual Result<std::string> render(const std::string& script) = 0;
};

// The path of the `gnuplot` executable on `path_env` (a PATH value: directories separated by
// ':'). kNotFound saying to install the gnuplot-nox package when there is none.
Result<std::string> find_gnuplot(std::string_view path_env);

// Runs `gnuplot SCRIPT_FILE` once per render, the script in a private temporary directory that
// is removed afterwards, stdin from /dev/null, stdout and stderr captured.
class GnuplotRenderer : public SvgRenderer {
 public:
  explicit GnuplotRenderer(std::string gnuplot_path) : gnuplot_path_(std::move(gnuplot_path)) {}
  Result<std::string> render(const std::string& script) override;

 private:
  std::string gnuplot_path_;
};

// `svg` (one gnuplot SVG document) made fit to sit inline in an HTML page beside others: the XML
// prolog and <title> elements dropped, every id and reference to one (id='x', href='#x',
// url(#x)) prefixed with `id_prefix` so that two plots' pattern and marker definitions cannot
// collide, and class="plot" on the <svg> element. kIoError when `svg` holds no <svg element.
Result<std::string> inline_svg(std::string_view svg, std::string_view id_prefix);

}  // namespace zs::reports
