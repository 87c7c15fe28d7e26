#include "cli/check_command.h"

#include <memory>

#include "cli/exit_codes.h"
#include "cli/options.h"
#include "configs/check_render.h"

namespace zs::cli {
namespace {

int run_check(const CommonFlags& f) {
  auto in = read_inputs(f);
  if (!in.ok()) return fail(in.status(), f.json);
  const configs::CheckOptions& options = in->options;
  auto lc = configs::run_check(f.config, options);
  if (!lc.ok()) return fail(lc.status(), f.json);
  print(f.json ? configs::render_check_json(*lc, options)
                     .dump(2, ' ', false, json::Json::error_handler_t::replace)
               : configs::render_check_text(*lc, options));
  return lc->diagnostics.has_errors() ? 1 : 0;
}

}  // namespace

std::function<int()> add_check_command(CLI::App& app) {
  auto flags = std::make_shared<CommonFlags>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "Validate a DeepSpeed config as DeepSpeed would, resolve \"auto\" as the HF "
      "Trainer would, and explain what its settings cost");
  document_exit_codes(cmd, "  (check: 1 also when DeepSpeed would reject the config)\n");
  add_common_flags(cmd, flags.get());
  return [flags] { return run_check(*flags); };
}

}  // namespace zs::cli
