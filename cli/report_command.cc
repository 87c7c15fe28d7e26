#include "cli/report_command.h"

#include <cstdlib>
#include <memory>

#include "cli/exit_codes.h"
#include "cli/options.h"
#include "common/output_file.h"
#include "reports/gnuplot.h"
#include "reports/html_report.h"
#include "reports/report_inputs.h"

namespace zs::cli {
namespace {

struct ReportFlags {
  std::string input;
  std::string output;
};

int run_report(const ReportFlags& f) {
  auto in = reports::load_report_inputs(f.input);
  if (!in.ok()) return fail(in.status());
  for (const std::string& input : in->files_read) {
    if (same_file(f.output, input)) {
      return fail(Status::invalid_argument(
          "-o " + f.output + ": is " + input +
          ", a file this report reads; write the HTML to another file (e.g. report.html)"));
    }
  }
  const char* path_env = std::getenv("PATH");
  auto gnuplot = reports::find_gnuplot(path_env != nullptr ? path_env : "");
  if (!gnuplot.ok()) return fail(gnuplot.status());
  reports::GnuplotRenderer renderer(*gnuplot);
  auto page = reports::render_report_html(*in, renderer);
  if (!page.ok()) return fail(page.status().with_context("zerosim report"));
  const Status written = write_output_file(f.output, *page);
  if (!written.is_ok()) return fail(written);
  print("zerosim report: wrote " + f.output + " (" + std::to_string(page->size()) + " bytes)");
  return 0;
}

}  // namespace

std::function<int()> add_report_command(CLI::App& app) {
  auto flags = std::make_shared<ReportFlags>();
  CLI::App* cmd = app.add_subcommand(
      "report", "Write a self-contained HTML report (plots and tables) of a sweep or tune");
  document_exit_codes(cmd);
  cmd->add_option("input", flags->input,
                  "the output directory of `zerosim sweep`/`zerosim tune`, or its results.json")
      ->required();
  cmd->add_option("-o,--output", flags->output, "the HTML file to write")->required();
  return [flags] { return run_report(*flags); };
}

}  // namespace zs::cli
