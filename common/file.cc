#include "common/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "common/units.h"

namespace zs {
namespace {

// Closes the descriptor when the read is over, whatever the path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

const char* file_kind_name(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

Result<std::string> read_file(const std::string& path, std::string_view kind,
                              std::int64_t max_bytes) {
  const std::string what(kind);
  // O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused below anyway).
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)};
  if (f.fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) {
      return Status::not_found(path + ": error[file]: cannot open the file (does it exist?)");
    }
    return Status::not_found(path + ": error[file]: cannot open the file: " + std::strerror(errno));
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) {
    return Status::io_error(path +
                            ": error[file]: cannot inspect the file: " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return Status::invalid_argument(path + ": error[file]: is a directory, not a " + what);
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::invalid_argument(path + ": error[file]: is " + file_kind_name(st.st_mode) +
                                    ", not a regular file; expected a " + what +
                                    " (save it to a file first)");
  }
  const auto too_big = [&](std::int64_t size, bool at_least) {
    // Rounded figures that read the same ("16.0 MiB; at most 16.0 MiB") get exact byte counts.
    const bool same = format_bytes(size) == format_bytes(max_bytes);
    const auto shown = [same](std::int64_t b) {
      return same ? format_grouped(b) + " bytes" : format_bytes(b);
    };
    return Status::invalid_argument(path + ": error[file]: holds " + (at_least ? "over " : "") +
                                    shown(size) + "; a " + what + " may hold at most " +
                                    shown(max_bytes));
  };
  if (st.st_size > max_bytes) return too_big(st.st_size, false);
  std::string out;
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  // Read to the end, not to st_size: a file that grows meanwhile still stops at the limit.
  while (true) {
    if (got == out.size()) {
      if (static_cast<std::int64_t>(got) > max_bytes) return too_big(max_bytes, true);
      out.resize(got + 4096);
    }
    const ssize_t n = ::read(f.fd, out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return Status::io_error(path +
                              ": error[file]: reading the file failed: " + std::strerror(errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  if (static_cast<std::int64_t>(got) > max_bytes) return too_big(max_bytes, true);
  out.resize(got);
  return out;
}

}  // namespace zs
