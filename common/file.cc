#include "common/file.h"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace zs {

Result<std::string> read_file(const std::string& path, std::string_view kind) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::invalid_argument(path + ": error[file]: is a directory, not a " +
                                    std::string(kind));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::not_found(path + ": error[file]: cannot open the file (does it exist?)");
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return Status::io_error(path + ": error[file]: reading the file failed");
  return buf.str();
}

Status write_file_atomic(const std::string& path, std::string_view text) {
  const std::string tmp = path + ".tmp";
  const Status failed = Status::io_error(path + ": error[file]: cannot write the file");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return failed;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out.flush()) {
      out.close();
      std::error_code ignored;
      std::filesystem::remove(tmp, ignored);
      return failed;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return failed;
  }
  return Status::ok();
}

}  // namespace zs
