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

}  // namespace zs
