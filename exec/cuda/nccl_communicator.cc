#include "exec/cuda/nccl_communicator.h"

#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

#include "common/check.h"
#include "kernels/cuda/check.h"

namespace zs::exec {
namespace {

using Clock = std::chrono::steady_clock;

Status nccl_status(ncclResult_t r, const char* what, int rank) {
  if (r == ncclSuccess) return Status::ok();
  return Status::io_error(std::string("rank ") + std::to_string(rank) + ": NCCL " + what +
                          " failed: " + ncclGetErrorString(r));
}

ncclDataType_t nccl_type(plan::Dtype d) {
  switch (d) {
    case plan::Dtype::kFp32:
      return ncclFloat32;
    case plan::Dtype::kBf16:
      return ncclBfloat16;
    case plan::Dtype::kFp16:
      return ncclFloat16;
    case plan::Dtype::kFp64:
      return ncclFloat64;
    case plan::Dtype::kU8:
      return ncclUint8;
    default:
      break;
  }
  ZS_UNREACHABLE();  // check_collective refused it
}

ncclRedOp_t nccl_op(plan::Dtype d) { return d == plan::Dtype::kU8 ? ncclMax : ncclSum; }

// Checks that each enqueued collective completes within the timeout (the header's watchdog).
class Watchdog {
 public:
  Watchdog(int rank, double timeout_s) : rank_(rank), timeout_(timeout_s) {
    int device = 0;
    ZS_CUDA_CHECK(cudaGetDevice(&device));
    thread_ = std::thread([this, device] {
      ZS_CUDA_CHECK(cudaSetDevice(device));  // the events' device
      loop();
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
    for (Pending& p : pending_) ZS_CUDA_CHECK(cudaEventDestroy(p.event));
  }
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  // After enqueueing `what` on `stream`.
  void watch(const char* what, std::int64_t bytes, cudaStream_t stream) {
    cudaEvent_t e = nullptr;
    ZS_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    ZS_CUDA_CHECK(cudaEventRecord(e, stream));
    {
      std::lock_guard<std::mutex> lock(mu_);
      pending_.push_back({e, Clock::now(), what, bytes});
    }
    cv_.notify_all();
  }

 private:
  struct Pending {
    cudaEvent_t event;
    Clock::time_point enqueued;
    const char* what;
    std::int64_t bytes;
  };

  void loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stop_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      while (!pending_.empty()) {
        Pending& p = pending_.front();
        const cudaError_t q = cudaEventQuery(p.event);
        if (q == cudaSuccess) {
          ZS_CUDA_CHECK(cudaEventDestroy(p.event));
          pending_.pop_front();
          continue;
        }
        if (q != cudaErrorNotReady) ZS_CUDA_CHECK(q);
        const double waited = std::chrono::duration<double>(Clock::now() - p.enqueued).count();
        if (waited > timeout_.count()) {
          std::fprintf(stderr,
                       "zerosim: error: rank %d: NCCL %s of %lld bytes not complete after %.0f s: "
                       "a peer rank stopped or died\n",
                       rank_, p.what, static_cast<long long>(p.bytes), waited);
          std::fflush(stderr);
          std::_Exit(1);
        }
        break;
      }
    }
  }

  int rank_;
  std::chrono::duration<double> timeout_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> pending_;
  bool stop_ = false;
  std::thread thread_;
};

class NcclCommunicator final : public Communicator {
 public:
  NcclCommunicator(ncclComm_t comm, int rank, int size, const cudaStream_t* stream,
                   double timeout_s)
      : comm_(comm), rank_(rank), size_(size), stream_(stream), watchdog_(rank, timeout_s) {}
  ~NcclCommunicator() override { ncclCommDestroy(comm_); }
  NcclCommunicator(const NcclCommunicator&) = delete;
  NcclCommunicator& operator=(const NcclCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status all_reduce(void* data, std::int64_t count, plan::Dtype dtype) override {
    ZS_RETURN_IF_ERROR(check_collective("all_reduce", count, dtype, 0, size_));
    return done("all_reduce", count, dtype,
                ncclAllReduce(data, data, static_cast<std::size_t>(count), nccl_type(dtype),
                              nccl_op(dtype), comm_, *stream_));
  }
  Status reduce_scatter(void* data, std::int64_t count, plan::Dtype dtype) override {
    ZS_RETURN_IF_ERROR(check_collective("reduce_scatter", count, dtype, 0, size_));
    char* block = static_cast<char*>(data) + rank_ * count * plan::dtype_size(dtype);
    return done("reduce_scatter", count * size_, dtype,
                ncclReduceScatter(data, block, static_cast<std::size_t>(count), nccl_type(dtype),
                                  nccl_op(dtype), comm_, *stream_));
  }
  Status all_gather(void* data, std::int64_t count, plan::Dtype dtype) override {
    ZS_RETURN_IF_ERROR(check_collective("all_gather", count, dtype, 0, size_));
    const char* block = static_cast<const char*>(data) + rank_ * count * plan::dtype_size(dtype);
    return done("all_gather", count * size_, dtype,
                ncclAllGather(block, data, static_cast<std::size_t>(count), nccl_type(dtype), comm_,
                              *stream_));
  }
  Status reduce(void* data, std::int64_t count, plan::Dtype dtype, int root) override {
    ZS_RETURN_IF_ERROR(check_collective("reduce", count, dtype, root, size_));
    return done("reduce", count, dtype,
                ncclReduce(data, data, static_cast<std::size_t>(count), nccl_type(dtype),
                           nccl_op(dtype), root, comm_, *stream_));
  }
  Status broadcast(void* data, std::int64_t count, plan::Dtype dtype, int root) override {
    ZS_RETURN_IF_ERROR(check_collective("broadcast", count, dtype, root, size_));
    return done("broadcast", count, dtype,
                ncclBroadcast(data, data, static_cast<std::size_t>(count), nccl_type(dtype), root,
                              comm_, *stream_));
  }

 private:
  Status done(const char* what, std::int64_t count, plan::Dtype dtype, ncclResult_t r) {
    ZS_RETURN_IF_ERROR(nccl_status(r, what, rank_));
    watchdog_.watch(what, count * plan::dtype_size(dtype), *stream_);
    return Status::ok();
  }

  ncclComm_t comm_;
  int rank_, size_;
  const cudaStream_t* stream_;
  Watchdog watchdog_;
};

}  // namespace

Result<std::unique_ptr<Communicator>> make_nccl_communicator(Communicator& bootstrap,
                                                             const cudaStream_t* stream,
                                                             double timeout_s) {
  ZS_CHECK(timeout_s > 0 && stream != nullptr);
  const int rank = bootstrap.rank(), size = bootstrap.size();
  ncclUniqueId id{};
  if (rank == 0) ZS_RETURN_IF_ERROR(nccl_status(ncclGetUniqueId(&id), "ncclGetUniqueId", rank));
  ZS_RETURN_IF_ERROR(bootstrap.broadcast(&id, sizeof id, plan::Dtype::kU8, 0));
  ncclComm_t comm = nullptr;
  ZS_RETURN_IF_ERROR(
      nccl_status(ncclCommInitRank(&comm, size, id, rank), "ncclCommInitRank", rank));
  return std::unique_ptr<Communicator>(
      std::make_unique<NcclCommunicator>(comm, rank, size, stream, timeout_s));
}

}  // namespace zs::exec
