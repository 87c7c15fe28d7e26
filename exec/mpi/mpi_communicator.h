// The Communicator of a rank launched by mpirun (or srun): the collectives of exec/communicator.h
// over MPI point-to-point messages on a duplicate of MPI_COMM_WORLD, walking the ring as the
// contract there defines, so that every rank's result equals the single-process reference bit
// for bit. Only built when CMake finds MPI (ZS_WITH_MPI).
//
// MpiSession owns MPI's lifetime in a process: MPI_Init_thread (MPI_THREAD_FUNNELED: only the
// thread that made the session calls MPI) on construction, MPI_Finalize on destruction. One per
// process, made before any communicator and outliving them all.
#pragma once

#include <cstdint>
#include <memory>

#include "common/status.h"
#include "exec/communicator.h"

namespace zs::exec {

class MpiSession {
 public:
  // REQUIRES: no other MpiSession exists in the process, and MPI was never initialized in it.
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
};

// The most bytes one MPI call carries (its counts are ints).
inline constexpr std::int64_t kMaxMpiMessageBytes = std::int64_t{1} << 30;

// How long a rank waits for a peer's message before its collective fails (as NCCL's default
// process-group timeout in PyTorch: 10 minutes).
inline constexpr double kDefaultCollectiveTimeoutS = 600;

// A communicator over every rank of MPI_COMM_WORLD, sending at most `max_message_bytes` per MPI
// call (a chunk larger than that goes in several; tests use a small limit to exercise it). A
// collective that waits more than `timeout_s` for a peer returns kIoError naming that peer
// (a rank stopped or hung; a rank that dies ends the job through mpirun).
// kIoError when MPI cannot duplicate the world communicator.
// REQUIRES: an MpiSession exists; 0 < max_message_bytes <= kMaxMpiMessageBytes; timeout_s > 0.
Result<std::unique_ptr<Communicator>> make_mpi_communicator(
    std::int64_t max_message_bytes = kMaxMpiMessageBytes,
    double timeout_s = kDefaultCollectiveTimeoutS);

}  // namespace zs::exec
