#include "exec/mpi_library.h"

#include <string>

namespace zs::exec {

Result<const MpiLibrary*> load_mpi_library() {
#if defined(ZS_WITH_MPI)
  auto mpi = load_backend<MpiLibrary>(kMpiLibraryFile, kMpiLibraryEntry, kMpiLibraryAbi,
                                      /*global=*/true);
  if (!mpi.ok()) {
    return Status::invalid_argument("MPI's library did not load: " + mpi.status().message());
  }
  return mpi;
#else
  return Status::invalid_argument(
      "this build has no MPI: rebuild with OpenMPI installed (libopenmpi-dev)");
#endif
}

}  // namespace zs::exec
