#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

#include "common/file.h"

namespace zs {
namespace {

Status file_error(const std::string& path, const std::string& what) {
  return Status::io_error(path + ": error[file]: " + what);
}

Status errno_error(const std::string& path, const std::string& doing) {
  return file_error(path, doing + ": " + std::strerror(errno));
}

Status interrupted_error(const std::string& path) {
  return file_error(path,
                    "interrupted (SIGINT, SIGTERM or SIGHUP); nothing was written and "
                    "the files already there are unchanged");
}

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

// Writes all of `text` to `fd`, a chunk at a time, giving up when an interrupt is pending.
Status write_all(int fd, std::string_view text, const std::string& path,
                 const InterruptGuard* guard) {
  std::size_t off = 0;
  while (off < text.size()) {
    if (guard != nullptr && guard->interrupted()) return interrupted_error(path);
    const ssize_t n = ::write(fd, text.data() + off, std::min(kChunkBytes, text.size() - off));
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno_error(path, "writing failed");
    }
    off += static_cast<std::size_t>(n);
  }
  return Status::ok();
}

// The directory part of `path` ("." for a bare name) and its last component.
std::pair<std::string, std::string> split_path(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {".", path};
  return {slash == 0 ? "/" : path.substr(0, slash), path.substr(slash + 1)};
}

// A name no other file has: the pid, a per-process counter and the clock's nanoseconds.
std::string unique_suffix() {
  static std::atomic<unsigned> counter{0};  // only ever increments; uniqueness within a process
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%ld-%u-%lx", static_cast<long>(getpid()), counter++,
                static_cast<unsigned long>(ts.tv_nsec));
  return buf;
}

// Creates a new file exclusively (never through a link) at "<dir>/.<name>.zerosim-<unique>".
// The mode is 0666 less the umask, as for any new file.
Result<std::pair<int, std::string>> create_temp_beside(const std::string& path) {
  const auto [dir, name] = split_path(path);
  for (int attempt = 0; attempt < 100; ++attempt) {
    // NAME_MAX is 255: keep the temporary name under it whatever the target's length.
    const std::string tmp = dir + "/." + name.substr(0, 200) + ".zerosim-" + unique_suffix();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return std::make_pair(fd, tmp);
    if (errno != EEXIST) return errno_error(path, "cannot create a temporary file beside it");
  }
  return file_error(path, "cannot find a free temporary name beside it");
}

// Writes all of `text` to `fd`, flushes it to disk when `sync`, and closes it whatever happened;
// the first failure is the Status.
Status write_and_close(int fd, std::string_view text, const std::string& path,
                       const InterruptGuard* guard, bool sync) {
  Status s = write_all(fd, text, path, guard);
  if (s.is_ok() && sync && ::fsync(fd) != 0) s = errno_error(path, "flushing to disk failed");
  if (::close(fd) != 0 && s.is_ok()) s = errno_error(path, "closing failed");
  return s;
}

Status replace_atomically(const std::string& path, std::string_view text, const struct stat* old,
                          const InterruptGuard& guard) {
  ZS_ASSIGN_OR_RETURN(const auto created, create_temp_beside(path));
  const auto& [fd, tmp] = created;
  if (old != nullptr) ::fchmod(fd, old->st_mode & 07777);  // keep the old file's permissions
  const Status written = write_and_close(fd, text, path, &guard, /*sync=*/true);
  if (!written.is_ok()) {
    ::unlink(tmp.c_str());
    return written;
  }
  if (guard.interrupted()) {
    ::unlink(tmp.c_str());
    return interrupted_error(path);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const Status s = errno_error(path, "cannot replace the file");
    ::unlink(tmp.c_str());
    return s;
  }
  return Status::ok();
}

// What a link, character device or FIFO at `path` leads to (links followed) into *target, or
// why zerosim does not write through it: a link to nothing, a directory, a block device or a
// socket.
Status check_written_through(const std::string& path, struct stat* target) {
  if (::stat(path.c_str(), target) != 0) {
    if (errno == ENOENT) {
      return file_error(path,
                        "is a symbolic link to a file that does not exist; zerosim writes "
                        "through a link but does not create its target");
    }
    return errno_error(path, "cannot follow the link");
  }
  if (S_ISDIR(target->st_mode) || S_ISBLK(target->st_mode) || S_ISSOCK(target->st_mode)) {
    return file_error(path, std::string("leads to ") + file_kind_name(target->st_mode) +
                                "; expected a file to write");
  }
  return Status::ok();
}

// A link, character device or FIFO: opened and written in place.
Status write_through(const std::string& path, std::string_view text, const InterruptGuard& guard) {
  struct stat target {};
  ZS_RETURN_IF_ERROR(check_written_through(path, &target));
  // O_NONBLOCK: opening a FIFO nobody reads fails (ENXIO) instead of waiting for a reader.
  const int flags =
      O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (S_ISREG(target.st_mode) ? O_TRUNC : 0);
  const int fd = ::open(path.c_str(), flags);
  if (fd < 0) {
    if (errno == ENXIO) return file_error(path, "is a FIFO that nobody is reading");
    return errno_error(path, "cannot open it for writing");
  }
  const int fl = ::fcntl(fd, F_GETFL);
  if (fl >= 0) ::fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  return write_and_close(fd, text, path, &guard, /*sync=*/S_ISREG(target.st_mode));
}

}  // namespace

Status write_output_file(const std::string& path, std::string_view text) {
  if (path.empty()) return file_error("(empty path)", "an output file name is required");
  InterruptGuard guard;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) return errno_error(path, "cannot inspect the output path");
    return replace_atomically(path, text, nullptr, guard);
  }
  if (S_ISREG(st.st_mode)) return replace_atomically(path, text, &st, guard);
  if (S_ISLNK(st.st_mode) || S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
    return write_through(path, text, guard);
  }
  return file_error(path,
                    std::string("is ") + file_kind_name(st.st_mode) + "; expected a file to write");
}

Status check_output_file(const std::string& path) {
  if (path.empty()) return file_error("(empty path)", "an output file name is required");
  struct stat st {};
  const bool exists = ::lstat(path.c_str(), &st) == 0;
  if (!exists && errno != ENOENT) return errno_error(path, "cannot inspect the output path");
  if (exists && S_ISLNK(st.st_mode)) {
    struct stat target {};
    return check_written_through(path, &target);
  }
  if (exists && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) return Status::ok();
  if (exists && !S_ISREG(st.st_mode)) {
    return file_error(
        path, std::string("is ") + file_kind_name(st.st_mode) + "; expected a file to write");
  }
  // A new or replaced file is made in its folder (replace_atomically).
  const std::string dir = split_path(path).first;
  struct stat d {};
  if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode)) {
    return file_error(path, "its folder " + dir + " does not exist");
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    return file_error(path, "its folder " + dir + " is not writable");
  }
  return Status::ok();
}

bool is_device_output(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  return S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode);
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// ---------------------------------------------------------------------------------------------
// OutputStream

OutputStream::OutputStream(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}

OutputStream::OutputStream(OutputStream&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), buffer_(std::move(o.buffer_)) {}

OutputStream& OutputStream::operator=(OutputStream&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    buffer_ = std::move(o.buffer_);
  }
  return *this;
}

OutputStream::~OutputStream() {
  if (fd_ >= 0) ::close(fd_);
}

Status OutputStream::flush_buffer() {
  ZS_CHECK(fd_ >= 0);
  const Status s = write_all(fd_, buffer_, path_, nullptr);
  buffer_.clear();
  return s;
}

Status OutputStream::write(std::string_view text) {
  buffer_.append(text);
  return buffer_.size() >= kChunkBytes ? flush_buffer() : Status::ok();
}

Status OutputStream::close() {
  ZS_CHECK(fd_ >= 0);
  const Status s = write_and_close(std::exchange(fd_, -1), buffer_, path_, nullptr, true);
  buffer_.clear();
  return s;
}

// ---------------------------------------------------------------------------------------------
// OutputSet

OutputSet::OutputSet(std::string dir, std::string staging, std::vector<std::string> members)
    : dir_(std::move(dir)), staging_(std::move(staging)), members_(std::move(members)) {}

Result<std::unique_ptr<OutputSet>> OutputSet::begin(const std::string& dir,
                                                    const std::vector<std::string>& members) {
  // The guard (a member) holds interrupts from here, before anything exists on disk.
  std::unique_ptr<OutputSet> set(new OutputSet(dir, "", members));
  std::error_code ec;
  set->created_dir_ = !std::filesystem::exists(std::filesystem::symlink_status(dir, ec));
  if (!set->created_dir_ && !std::filesystem::is_directory(dir, ec)) {
    return file_error(dir, "exists and is not a directory; expected an output directory");
  }
  std::filesystem::create_directories(dir, ec);
  if (!std::filesystem::is_directory(dir, ec)) {
    return file_error(dir, "cannot create the output directory: " + ec.message());
  }
  for (const std::string& m : members) {
    const std::string p = set->path_of(m);
    struct stat st {};
    if (::lstat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      return Status::invalid_argument(
          p + ": error[file]: is " + file_kind_name(st.st_mode) +
          "; zerosim writes its output files as regular files: remove it or choose another "
          "output directory");
    }
  }
  std::string tmpl = dir + "/.zerosim-staging-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return errno_error(dir, "cannot create a staging directory in it");
  }
  set->staging_ = tmpl;
  return set;
}

OutputSet::~OutputSet() {
  std::error_code ignored;
  if (!staging_.empty()) std::filesystem::remove_all(staging_, ignored);
  // Abandoned: a directory made for this set goes too (only when empty: rmdir).
  if (!committed_ && created_dir_) ::rmdir(dir_.c_str());
}

std::string OutputSet::path_of(std::string_view name) const {
  return dir_ + (dir_.ends_with('/') ? "" : "/") + std::string(name);
}

Result<OutputStream> OutputSet::open(const std::string& name) {
  ZS_CHECK(std::find(members_.begin(), members_.end(), name) != members_.end());
  ZS_CHECK(std::find(written_.begin(), written_.end(), name) == written_.end());
  const std::string staged = staging_ + "/" + name;
  const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
  if (fd < 0) return errno_error(path_of(name), "cannot create it in the staging directory");
  written_.push_back(name);
  return OutputStream(fd, path_of(name));
}

Status OutputSet::write(const std::string& name, std::string_view text) {
  ZS_ASSIGN_OR_RETURN(OutputStream out, open(name));
  if (interrupted()) return interrupted_error(path_of(name));
  ZS_RETURN_IF_ERROR(out.write(text));
  return out.close();
}

Status OutputSet::commit() {
  ZS_CHECK(!committed_);
  if (interrupted()) return interrupted_error(dir_);
  // Old members move into the staging directory (".old" names), new ones move out of it. Each
  // step is a rename within one file system; a failure undoes the steps before it.
  struct Step {
    std::string name;
    bool had_old = false;
    bool moved_new = false;
  };
  std::vector<Step> done;
  const auto undo = [&] {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      const std::string target = path_of(it->name);
      if (it->moved_new) ::rename(target.c_str(), (staging_ + "/" + it->name).c_str());
      if (it->had_old) ::rename((staging_ + "/" + it->name + ".old").c_str(), target.c_str());
    }
  };
  for (const std::string& m : members_) {
    const std::string target = path_of(m);
    Step step{m};
    if (::rename(target.c_str(), (staging_ + "/" + m + ".old").c_str()) == 0) {
      step.had_old = true;
    } else if (errno != ENOENT) {
      const Status s = errno_error(target, "cannot move the old file aside");
      undo();
      return Status::io_error(s.message() + "; the previous files are unchanged");
    }
    done.push_back(step);
    if (std::find(written_.begin(), written_.end(), m) == written_.end()) continue;
    if (::rename((staging_ + "/" + m).c_str(), target.c_str()) != 0) {
      const Status s = errno_error(target, "cannot move the new file into place");
      undo();
      return Status::io_error(s.message() + "; the previous files are unchanged");
    }
    done.back().moved_new = true;
  }
  committed_ = true;
  return Status::ok();
}

}  // namespace zs
