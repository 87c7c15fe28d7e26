// Loading a backend's shared library on first use. The CUDA backend (exec/cuda_library.h) and the
// MPI transport (exec/mpi_library.h) are shared libraries of their own, libzerosim_cuda.so and
// libzerosim_mpi.so, so that the commands that never run on a GPU or over several ranks (check,
// simulate, sweep, tune, report) never map cudart, cuBLASLt, NCCL or OpenMPI: those cost about
// 210 MiB of resident memory and 80 ms at every start-up.
//
// A library is looked for in one directory: $ZS_BACKEND_DIR when it is set and not empty, else
// the directory of the running executable (/proc/self/exe: build/, where build/zerosim is and
// the build puts the libraries). Each library holds its own copy of the zerosim code it needs
// and exports one extern "C" entry point, which checks that the caller was built from the same
// interface (BackendAbi) before it hands out the backend. A library, once loaded, stays loaded
// until the process ends (unloading CUDA or MPI mid-process is not safe); loading it again is
// the dynamic loader's reference count, so nothing is cached here.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "common/status.h"

namespace zs::exec {

// The environment variable naming the directory of the backend libraries.
inline constexpr char kBackendDirVariable[] = "ZS_BACKEND_DIR";

// What both sides of a backend library's entry point must agree on: the version of the
// interface (bumped whenever a backend interface changes) and the sizes of the types that cross
// it, which catch a library left from a build of other sources.
struct BackendAbi {
  std::uint64_t version = 0;
  std::array<std::uint64_t, 6> sizes{};
  bool operator==(const BackendAbi&) const = default;
};

// "<version>/<size>,<size>,...", for messages.
std::string describe_abi(const BackendAbi& abi);

// The directory the backend libraries are loaded from: $ZS_BACKEND_DIR, else the executable's.
// kIoError when neither is known (/proc is not mounted).
Result<std::string> backend_library_dir();

// The address of `symbol` in `file` (a name in backend_library_dir()), which is loaded with
// RTLD_NOW (a missing dependency fails here, not at the first call into it) and RTLD_GLOBAL when
// `global` (OpenMPI's plugins look up libmpi's symbols in the global scope), else RTLD_LOCAL.
// kNotFound, naming the path and dlerror()'s words, when the library cannot be loaded or has no
// such symbol.
Result<void*> load_backend_symbol(const std::string& file, const char* symbol, bool global);

// A library's entry point has the type `const Interface* (*)(const BackendAbi* caller,
// BackendAbi* library)`: it writes its own ABI to `library` and returns its implementation when
// the caller's ABI is the same, else null.
template <class Interface>
using BackendEntry = const Interface* (*)(const BackendAbi* caller, BackendAbi* library);

// The body of such an entry point, for `impl` (a static of the library) built with `abi`.
template <class Interface>
const Interface* backend_entry(const Interface& impl, const BackendAbi& abi,
                               const BackendAbi* caller, BackendAbi* library) {
  *library = abi;
  return *caller == abi ? &impl : nullptr;
}

// kInvalidArgument: `file`, whose ABI is `library`, was built from other sources than this
// program (`caller`), both named.
Status backend_abi_mismatch(const std::string& file, const BackendAbi& library,
                            const BackendAbi& caller);

// The implementation of `Interface` in `file`, from its entry point `entry` called with `abi`
// (load_backend_symbol; then backend_abi_mismatch when the ABIs differ). Not owned: a library
// stays loaded.
template <class Interface>
Result<const Interface*> load_backend(const std::string& file, const char* entry,
                                      const BackendAbi& abi, bool global) {
  ZS_ASSIGN_OR_RETURN(void* address, load_backend_symbol(file, entry, global));
  BackendAbi library;
  const Interface* impl = reinterpret_cast<BackendEntry<Interface>>(address)(&abi, &library);
  if (impl == nullptr) return backend_abi_mismatch(file, library, abi);
  return impl;
}

}  // namespace zs::exec
