// What the process launcher says about this process's job, read from its environment without
// starting MPI: how many ranks mpirun/mpiexec (OpenMPI: OMPI_COMM_WORLD_SIZE), a PMI launcher
// such as MPICH's or srun --mpi=pmi2 (PMI_SIZE) or Slurm's srun (SLURM_STEP_NUM_TASKS: srun sets
// it for the tasks of a step; a batch script's own environment has SLURM_NTASKS, which is not
// read) started; and the job's ranks once started (RankGroup).
#pragma once

#include <memory>

#include "common/status.h"
#include "exec/communicator.h"
#include "exec/mpi_library.h"

namespace zs::exec {

// The number of processes the launcher started with this one, or 1 when no launcher variable
// is set or none holds a positive integer.
int launched_world_size();

// This process's rank among those the launcher started on its node (OpenMPI:
// OMPI_COMM_WORLD_LOCAL_RANK; srun: SLURM_LOCALID; MPICH's Hydra: MPI_LOCALRANKID), or 0 when
// none is set or holds a non-negative integer.
int launched_local_rank();

// This process's place in its job: the only rank, or one of the N a launcher started, with MPI
// initialized for as long as the group lives (MPI_Finalize when it is destroyed).
class RankGroup {
 public:
  // One rank when launched_world_size() is 1 (MPI is not loaded); otherwise loads MPI
  // (exec/mpi_library.h), starts it and a communicator over MPI_COMM_WORLD whose collectives
  // wait at most `collective_timeout_s` for a peer (exec/mpi/mpi_communicator.h).
  // kInvalidArgument when launched as several but the build has no MPI, its library cannot be
  // loaded, or MPI's world is not the launcher's size (a launcher this MPI does not know: each
  // process would be alone); kIoError when MPI cannot make the communicator. At most one per
  // process.
  // REQUIRES: collective_timeout_s > 0.
  static Result<std::unique_ptr<RankGroup>> start(double collective_timeout_s);
  ~RankGroup();
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // The communicator of the group; null for a single rank.
  Communicator* communicator() { return comm_.get(); }
  // Ends this process with `code` and, when it is one of several, every other rank of the job
  // (MPI_Abort: a rank that failed alone must not leave the others waiting in a collective).
  [[noreturn]] void abort(int code);

 private:
  RankGroup() = default;
  int rank_ = 0;
  int size_ = 1;
  const MpiLibrary* mpi_ = nullptr;               // loaded for several ranks; not owned
  std::unique_ptr<MpiLibrary::Session> session_;  // declared first: it outlives the communicator
  std::unique_ptr<Communicator> comm_;
};

}  // namespace zs::exec
