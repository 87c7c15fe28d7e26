// Writing the files zerosim produces (reports, traces, a sweep's results) so that no output path
// makes it destroy what it should not, and no failure or interrupt leaves half a file.
//
// write_output_file(path, text), by what `path` is (lstat):
//   - nothing yet, or a regular file: replaced atomically. The text goes to a new file in the
//     same directory, named ".<name>.zerosim-XXXXXX" (unique, created with O_CREAT|O_EXCL so a
//     planted link is never followed), is flushed to disk and renamed over `path`. A reader or a
//     crash sees the old file or the new one. The new file keeps the old one's permissions
//     (a new name gets 0666 less the umask).
//   - a symbolic link, a character device or a FIFO (/dev/stdout, /dev/null, a link the user
//     made): written through, in place, never replaced; a link that points nowhere, to a
//     directory or to a block device is refused, and so is a FIFO with no reader (rather than
//     waiting for one).
//   - a directory, a block device or a socket: refused.
// SIGINT, SIGTERM and SIGHUP are held while it writes (common/interrupt.h): an interrupt stops the
// write, the temporary file is removed, then the signal takes effect.
//
// OutputSet replaces several files of one directory as a set (a sweep's results.json,
// results.csv and best_ds_config.json): they are written into a staging directory inside it and
// moved into place together; a failure or an interrupt before the move leaves the old set
// untouched, and a failure during it puts the old files back.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/interrupt.h"
#include "common/status.h"

namespace zs {

// kIoError "PATH: error[file]: ..." naming what was wrong (a directory, a block device, the
// system's reason); kIoError "...: interrupted" when a signal stopped it.
Status write_output_file(const std::string& path, std::string_view text);

// What write_output_file would refuse, found before the work that makes the text (minutes of
// benchmarks or training): an empty path, a directory, a block device or a socket, a link to
// nothing or to one of those, and for a new or replaced file a folder that is missing or not
// writable. kIoError as write_output_file words it.
Status check_output_file(const std::string& path);

// True when `path` is, or links to, a character device or a FIFO (/dev/null, /dev/stdout): it is
// written in place, so there is no folder to put a companion file beside it.
bool is_device_output(const std::string& path);

// Whether `a` and `b` name the same existing file (device and inode, links followed).
bool same_file(const std::string& a, const std::string& b);

// A file being written in pieces (the rows of a sweep as they finish). Writes are buffered;
// REQUIRES: one thread at a time.
class OutputStream {
 public:
  OutputStream(OutputStream&&) noexcept;
  OutputStream& operator=(OutputStream&&) noexcept;
  ~OutputStream();  // closes the descriptor

  // Appends `text`; kIoError naming the file when the disk refuses it.
  Status write(std::string_view text);
  // Flushes to the file and to disk, then closes it.
  Status close();

 private:
  friend class OutputSet;
  OutputStream(int fd, std::string path);
  Status flush_buffer();
  int fd_ = -1;
  std::string path_;
  std::string buffer_;
};

class OutputSet {
 public:
  // Creates `dir` when needed and a staging directory inside it, and holds SIGINT, SIGTERM and
  // SIGHUP until the set is committed or abandoned. kIoError naming `dir` when it cannot be
  // created or is not a directory; kInvalidArgument when one of `members` exists in it as
  // something other than a regular file (a link, a directory).
  static Result<std::unique_ptr<OutputSet>> begin(const std::string& dir,
                                                  const std::vector<std::string>& members);
  // Removes the staging directory and what was written into it; when not committed, also `dir`
  // if begin() created it and it is empty.
  ~OutputSet();

  const std::string& dir() const { return dir_; }
  // DIR/name, as messages name it.
  std::string path_of(std::string_view name) const;

  // A member written whole. REQUIRES: `name` is one of the members, not yet written.
  Status write(const std::string& name, std::string_view text);
  // A member written in pieces; close() it before commit(). REQUIRES: as for write().
  Result<OutputStream> open(const std::string& name);

  // Whether an interrupt is pending: a long writer asks between pieces and gives up.
  bool interrupted() const { return guard_.interrupted(); }

  // Moves the written members over the old ones and removes the old members that were not
  // written this time (a stale best_ds_config.json). On a failure part-way, the old files are
  // put back. kIoError naming the file; "interrupted" when a signal arrived before the move.
  Status commit();

 private:
  OutputSet(std::string dir, std::string staging, std::vector<std::string> members);
  InterruptGuard guard_;
  std::string dir_;
  std::string staging_;
  std::vector<std::string> members_;
  std::vector<std::string> written_;
  bool created_dir_ = false;  // begin() made `dir`
  bool committed_ = false;
};

}  // namespace zs
