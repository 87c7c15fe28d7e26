#include "exec/backend_library.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace zs::exec {

std::string describe_abi(const BackendAbi& abi) {
  std::string s = std::to_string(abi.version) + "/";
  for (std::size_t i = 0; i < abi.sizes.size(); ++i) {
    if (i > 0) s += ",";
    s += std::to_string(abi.sizes[i]);
  }
  return s;
}

Result<std::string> backend_library_dir() {
  const char* dir = std::getenv(kBackendDirVariable);
  if (dir != nullptr && dir[0] != '\0') return std::string(dir);
  std::string exe(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", exe.data(), exe.size());
  if (n <= 0 || static_cast<std::size_t>(n) >= exe.size()) {
    return Status::io_error(std::string("cannot tell where the zerosim executable is "
                                        "(readlink /proc/self/exe: ") +
                            (n < 0 ? std::strerror(errno) : "too long") + "); set " +
                            kBackendDirVariable + " to the directory of the backend libraries");
  }
  exe.resize(static_cast<std::size_t>(n));
  const std::size_t slash = exe.rfind('/');
  return slash == 0 ? std::string("/") : exe.substr(0, slash);
}

Result<void*> load_backend_symbol(const std::string& file, const char* symbol, bool global) {
  ZS_ASSIGN_OR_RETURN(const std::string dir, backend_library_dir());
  const std::string path = dir + "/" + file;
  // Never closed: see the header.
  void* library = dlopen(path.c_str(), RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
  if (library == nullptr) {
    const char* error = dlerror();
    std::string why = error != nullptr ? error : "dlopen failed";
    if (why.starts_with(path + ": ")) why.erase(0, path.size() + 2);  // named already
    return Status::not_found("cannot load " + path + ": " + why +
                             " (the library is built with zerosim and looked for beside the "
                             "executable, or in $" +
                             kBackendDirVariable + ")");
  }
  dlerror();  // clear, so that a null symbol's error is its own
  void* address = dlsym(library, symbol);
  if (address == nullptr) {
    const char* why = dlerror();
    return Status::not_found(path + " has no entry point " + symbol + ": " +
                             (why != nullptr ? why : "dlsym found a null address") +
                             " (a library from another program, or a broken build)");
  }
  return address;
}

Status backend_abi_mismatch(const std::string& file, const BackendAbi& library,
                            const BackendAbi& caller) {
  return Status::invalid_argument(file + " was built from other sources (interface " +
                                  describe_abi(library) + ", this program's " +
                                  describe_abi(caller) + "): rebuild both");
}

}  // namespace zs::exec
