#include "reports/gnuplot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/file.h"

extern char** environ;

namespace zs::reports {
namespace {

namespace fs = std::filesystem;

// A directory made with mkdtemp, removed with what it holds when this goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "zerosim-gnuplot-XXXXXX").string();
    if (ec) pattern = "/tmp/zerosim-gnuplot-XXXXXX";
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) != nullptr) path_ = buf.data();
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs `argv` with stdin from /dev/null and stdout/stderr to the given files; returns its exit
// status (or 128 + signal), or -1 with errno's text in *error when it could not start.
int spawn_and_wait(const std::vector<std::string>& argv, const std::string& out_path,
                   const std::string& err_path, std::string* error) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    *error = std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      *error = std::strerror(errno);
      return -1;
    }
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The first lines of gnuplot's complaint, for a message.
std::string head_lines(const std::string& text, int max_lines) {
  std::string out;
  int lines = 0;
  for (char c : text) {
    if (c == '\n' && ++lines == max_lines) break;
    out += c;
  }
  return out;
}

void replace_all(std::string* s, std::string_view from, std::string_view to) {
  std::size_t pos = 0;
  while ((pos = s->find(from, pos)) != std::string::npos) {
    s->replace(pos, from.size(), to);
    pos += to.size();
  }
}

}  // namespace

Result<std::string> find_gnuplot(std::string_view path_env) {
  std::size_t start = 0;
  while (start <= path_env.size()) {
    std::size_t end = path_env.find(':', start);
    if (end == std::string_view::npos) end = path_env.size();
    // An empty PATH entry means the current directory.
    std::string dir(path_env.substr(start, end - start));
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/gnuplot";
    if (is_executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return Status::not_found(
      "gnuplot was not found on PATH; `zerosim report` draws its plots with it: install the "
      "gnuplot-nox package (scripts/ensure_deps.sh does)");
}

Result<std::string> GnuplotRenderer::render(const std::string& script) {
  TempDir dir;
  if (dir.path().empty()) {
    return Status::io_error("cannot create a temporary directory for gnuplot");
  }
  const std::string script_path = dir.path() + "/plot.gp";
  const std::string out_path = dir.path() + "/plot.svg";
  const std::string err_path = dir.path() + "/stderr.txt";
  {
    std::ofstream f(script_path, std::ios::binary);
    f << script;
    if (!f.flush()) return Status::io_error("cannot write the gnuplot script to " + script_path);
  }
  std::string error;
  const int rc = spawn_and_wait({gnuplot_path_, script_path}, out_path, err_path, &error);
  if (rc < 0) return Status::io_error("cannot run " + gnuplot_path_ + ": " + error);
  if (rc != 0) {
    auto err = read_file(err_path);
    return Status::io_error(gnuplot_path_ + " failed (exit " + std::to_string(rc) +
                            "): " + head_lines(err.ok() ? *err : "", 6));
  }
  auto svg = read_file(out_path);
  if (!svg.ok()) return svg.status();
  return std::move(svg).value();
}

Result<std::string> inline_svg(std::string_view svg, std::string_view id_prefix) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string_view::npos) {
    return Status::io_error("gnuplot's output holds no <svg> element");
  }
  std::string out(svg.substr(start));
  // Drop <title> elements: gnuplot's are "Gnuplot" and "gnuplot_plot_N", useless as tooltips.
  std::size_t pos = 0;
  while ((pos = out.find("<title>", pos)) != std::string::npos) {
    const std::size_t end = out.find("</title>", pos);
    if (end == std::string::npos) break;
    out.erase(pos, end + 8 - pos);
  }
  const std::string p(id_prefix);
  for (const char* quote : {"'", "\""}) {
    replace_all(&out, std::string(" id=") + quote, std::string(" id=") + quote + p);
    replace_all(&out, std::string("href=") + quote + "#", std::string("href=") + quote + "#" + p);
  }
  replace_all(&out, "url(#", "url(#" + p);
  out.replace(0, 4, "<svg class=\"plot\"");
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

}  // namespace zs::reports
