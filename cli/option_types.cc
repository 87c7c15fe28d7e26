#include "cli/option_types.h"

#include <string_view>

namespace zs::cli {
namespace {

struct TypeName {
  std::string_view option;  // the long name, or the positional's name
  std::string_view type;
};

constexpr TypeName kTypes[] = {
    {"--world", "INT"},
    {"--nodes", "INT"},
    {"--gpus-per-node", "INT"},
    {"--micro-batch", "INT"},
    {"--grad-accum", "INT"},
    {"--seq-len", "INT"},
    {"--target-len", "INT"},
    {"--steps", "INT"},
    {"--warmup", "INT"},
    {"--jobs", "INT"},
    {"--budget", "INT"},
    {"--max-micro-batch", "INT"},
    {"--global-batch", "INT"},
    {"--repeats", "INT"},
    {"--rounds", "INT"},
    {"--seed", "INT"},
    {"--inject-overflow-step", "INT"},
    {"--fragmentation", "FRACTION"},
    {"--headroom", "FRACTION"},
    {"--tolerance", "FRACTION"},
    {"--straggler", "FACTOR"},
    {"--collective-timeout", "SECONDS"},
    {"--precision", "fp32|fp16|bf16"},
    {"--attention", "flash|eager"},
    {"--kernels", "eager|fused"},
    {"--load-dtype", "auto|fp32|bf16|fp16"},
    {"--backend", "cpu|cuda"},
    {"--ds-version", "X.Y.Z"},
    {"--gpu", "PRESET"},
    {"--model", "NAME|FILE"},
    {"--cluster", "FILE"},
    {"--cluster-out", "FILE"},
    {"--profile", "FILE"},
    {"--trace", "FILE"},
    {"--data", "FILE"},
    {"--output", "FILE"},
    {"--output-dir", "DIR"},
    {"--out", "DIR"},
    {"--name", "NAME"},
    {"--vary", "KEY=VALUES"},
    {"CONFIG", "FILE"},
    {"input", "DIR|FILE"},
};

void name_options(CLI::App* app) {
  for (CLI::Option* o : app->get_options()) {
    for (const TypeName& t : kTypes) {
      const std::string name(t.option);
      const bool positional = !name.starts_with("--");
      const bool match = positional ? o->get_name() == name && o->nonpositional() == false
                                    : o->check_lname(name.substr(2));
      if (match) o->type_name(std::string(t.type));
    }
  }
  for (CLI::App* sub : app->get_subcommands({})) name_options(sub);
}

}  // namespace

void name_option_types(CLI::App& app) { name_options(&app); }

}  // namespace zs::cli
