// The entry point of libzerosim_mpi.so (exec/mpi_library.h): exec/mpi/mpi_communicator.h behind
// the MpiLibrary interface. The only symbol the library exports (exec/mpi/exports.map).
#include <mpi.h>

#include <memory>

#include "exec/mpi/mpi_communicator.h"
#include "exec/mpi_library.h"

namespace zs::exec {
namespace {

class SessionImpl final : public MpiLibrary::Session {
 public:
  SessionImpl() : session_(nullptr, nullptr) {}

 private:
  MpiSession session_;
};

class MpiLibraryImpl final : public MpiLibrary {
 public:
  std::unique_ptr<Session> start() const override { return std::make_unique<SessionImpl>(); }

  Result<std::unique_ptr<Communicator>> make_communicator(double timeout_s) const override {
    return make_mpi_communicator(kMaxMpiMessageBytes, timeout_s);
  }

  void abort(int code) const override { MPI_Abort(MPI_COMM_WORLD, code); }
};

}  // namespace
}  // namespace zs::exec

extern "C" const zs::exec::MpiLibrary* zs_exec_mpi_library(const zs::exec::BackendAbi* caller,
                                                           zs::exec::BackendAbi* library) {
  static const zs::exec::MpiLibraryImpl kImpl;  // stateless
  return zs::exec::backend_entry<zs::exec::MpiLibrary>(kImpl, zs::exec::kMpiLibraryAbi, caller,
                                                       library);
}
