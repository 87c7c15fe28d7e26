// Runs the zerosim binary in a subprocess for end-to-end tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace zs::testing {

struct RunResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command and collects its standard output.
inline RunResult run_command(const std::string& cmd) {
  RunResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// REQUIRES: ZS_ZEROSIM_BIN names the built binary (tests/cli/CMakeLists.txt).
inline RunResult run_zerosim(const std::string& args) {
  return run_command(std::string(ZS_ZEROSIM_BIN) + " " + args + " 2>&1");
}

// Runs `zerosim ARGS` with `dir` as the working directory; stderr is kept apart from the output
// unless `with_stderr`.
inline RunResult run_zerosim_in(const std::string& dir, const std::string& args, bool with_stderr) {
  return run_command("cd '" + dir + "' && " + std::string(ZS_ZEROSIM_BIN) + " " + args +
                     (with_stderr ? " 2>&1" : " 2>/dev/null"));
}

// Writes `text` to a file under the test temp dir and returns its path. The name carries the
// process id: ctest runs test processes in parallel.
inline std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + "zs_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace zs::testing
