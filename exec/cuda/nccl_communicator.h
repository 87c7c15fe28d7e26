// The CUDA backend's Communicator: exec/communicator.h's collectives with NCCL on device
// buffers, for a rank launched by mpirun (one process per GPU).
//
// - Bootstrap: rank 0 makes NCCL's unique id (ncclGetUniqueId) and `bootstrap` (the ranks' MPI
//   communicator) broadcasts it; every rank then joins with ncclCommInitRank on its current CUDA
//   device.
// - Buffers are device memory (the CUDA RankTensors' buffer and scalar). A collective is
//   enqueued on the stream `*stream` names at the call (the Plan op's collective stream, which
//   the backend sets at each begin_op) and returns without waiting, as DeepSpeed's
//   dist.all_reduce(..., async_op=...) on its communication stream does. In place, as NCCL
//   defines it: a reduce-scatter's rank r keeps block r (recvbuff = sendbuff + r * count); an
//   all-gather's rank r gives block r.
// - Values: sums in the dtype (ncclSum; u8 with ncclMax). NCCL picks its own algorithm and
//   order (ring, tree, NVLS), so the result is not the ring reference of exec/communicator.h to
//   the bit: it is NCCL's, the same on every rank.
// - A watchdog thread (as PyTorch's ProcessGroupNCCL has) checks every collective's completion:
//   one not complete `timeout_s` after it was enqueued (a peer stopped or died) ends this
//   process with a message naming the rank, the collective and its size, exit code 1; mpirun
//   then ends the others. A rank that dies ends the job through mpirun.
// Errors from NCCL calls are kIoError with NCCL's message.
#pragma once

#include <cuda_runtime.h>

#include <memory>

#include "common/status.h"
#include "exec/communicator.h"

namespace zs::exec {

// REQUIRES: a current CUDA device; `bootstrap` and `*stream` outlive the result; timeout_s > 0.
Result<std::unique_ptr<Communicator>> make_nccl_communicator(Communicator& bootstrap,
                                                             const cudaStream_t* stream,
                                                             double timeout_s);

}  // namespace zs::exec
