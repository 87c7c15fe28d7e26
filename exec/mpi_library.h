// The MPI transport as the rest of zerosim sees it: an interface whose implementation
// (exec/mpi/mpi_library_entry.cc over exec/mpi/mpi_communicator.h, linked against OpenMPI) is the
// shared library libzerosim_mpi.so, loaded on first use (exec/backend_library.h says where from
// and why). Only a process a launcher started as one of several ranks asks for it
// (exec/launch.h RankGroup::start). The library is built only with MPI (CMake's MPI_CXX_FOUND);
// this header needs no MPI headers.
#pragma once

#include <memory>
#include <string>

#include "common/status.h"
#include "exec/backend_library.h"
#include "exec/communicator.h"

namespace zs::exec {

class MpiLibrary {
 public:
  // MPI initialized in this process for as long as it lives (exec/mpi/mpi_communicator.h
  // MpiSession: MPI_Init_thread, then MPI_Finalize when destroyed).
  class Session {
   public:
    virtual ~Session() = default;
  };

  virtual ~MpiLibrary() = default;

  // Initializes MPI (without the command line: OpenMPI reads its job from the environment).
  // REQUIRES: as MpiSession's constructor.
  virtual std::unique_ptr<Session> start() const = 0;
  // exec/mpi/mpi_communicator.h make_mpi_communicator, kMaxMpiMessageBytes per MPI call.
  // REQUIRES: a Session lives and outlives the communicator; timeout_s > 0.
  virtual Result<std::unique_ptr<Communicator>> make_communicator(double timeout_s) const = 0;
  // MPI_Abort(MPI_COMM_WORLD, code): ends every rank of the job. REQUIRES: a Session lives.
  virtual void abort(int code) const = 0;
};

// The library's file name and its entry point, a BackendEntry<MpiLibrary> (exec/backend_library.h).
inline constexpr char kMpiLibraryFile[] = "libzerosim_mpi.so";
inline constexpr char kMpiLibraryEntry[] = "zs_exec_mpi_library";

// Version 1: the interface above. The sizes are those of the types that cross it.
inline constexpr BackendAbi kMpiLibraryAbi{
    1,
    {sizeof(Status), sizeof(std::string), sizeof(std::unique_ptr<Communicator>),
     sizeof(Result<std::unique_ptr<Communicator>>), sizeof(std::unique_ptr<MpiLibrary::Session>),
     0}};

// The MPI transport, its library loaded (with RTLD_GLOBAL: OpenMPI's plugins look up libmpi's
// symbols) on first call. Not owned (it lives as long as the process). kInvalidArgument when this
// build has no MPI, or the library cannot be loaded (its path and dlerror()'s words), has no
// entry point, or was built from other sources (both ABIs named).
Result<const MpiLibrary*> load_mpi_library();

}  // namespace zs::exec
