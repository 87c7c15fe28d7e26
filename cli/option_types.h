// The value names --help shows for zerosim's options: every option takes its value as a string
// (so that a bad value gets the project's message and exit 1, cli/flags.h), which CLI11 would
// show as TEXT; this names what each one takes instead (INT, NUMBER, FILE, the allowed words).
#pragma once

#include <CLI/CLI.hpp>

namespace zs::cli {

// Sets the type name of every option of `app` and of its subcommands that this table knows;
// the others keep theirs.
void name_option_types(CLI::App& app);

}  // namespace zs::cli
