#include "exec/mpi/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "common/interrupt.h"
#include "exec/peer_wait.h"

namespace zs::exec {
namespace {

std::string mpi_error(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "MPI error " + std::to_string(code);
  return std::string(text, static_cast<std::size_t>(len));
}

class MpiCommunicator final : public Communicator {
 public:
  MpiCommunicator(MPI_Comm comm, std::int64_t max_message_bytes, double timeout_s)
      : comm_(comm), max_message_(max_message_bytes), timeout_s_(timeout_s) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized == 0) MPI_Comm_free(&comm_);  // after MPI_Finalize the handle is gone anyway
  }
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  Status all_reduce(void* data, std::int64_t count, plan::Dtype dtype) override {
    ZS_RETURN_IF_ERROR(check_collective("all_reduce", count, dtype, 0, size_));
    if (size_ == 1 || count == 0) return Status::ok();
    auto chunk = [&](int c) { return ring_chunk(count, size_, c); };
    ZS_RETURN_IF_ERROR(ring_reduce_scatter("all_reduce", data, dtype, chunk));
    return ring_all_gather("all_reduce", data, dtype, chunk);
  }

  Status reduce_scatter(void* data, std::int64_t count, plan::Dtype dtype) override {
    ZS_RETURN_IF_ERROR(check_collective("reduce_scatter", count, dtype, 0, size_));
    if (size_ == 1 || count == 0) return Status::ok();
    return ring_reduce_scatter("reduce_scatter", data, dtype, [&](int c) {
      return Chunk{c * count, (c + 1) * count};
    });
  }

  Status all_gather(void* data, std::int64_t count, plan::Dtype dtype) override {
    ZS_RETURN_IF_ERROR(check_collective("all_gather", count, dtype, 0, size_));
    if (size_ == 1 || count == 0) return Status::ok();
    return ring_all_gather("all_gather", data, dtype, [&](int c) {
      return Chunk{c * count, (c + 1) * count};
    });
  }

  Status reduce(void* data, std::int64_t count, plan::Dtype dtype, int root) override {
    ZS_RETURN_IF_ERROR(check_collective("reduce", count, dtype, root, size_));
    if (size_ == 1 || count == 0) return Status::ok();
    // The all-reduce's sum on a copy: only root's buffer changes.
    const std::size_t bytes = static_cast<std::size_t>(count * plan::dtype_size(dtype));
    std::vector<std::byte> copy(static_cast<const std::byte*>(data),
                                static_cast<const std::byte*>(data) + bytes);
    ZS_RETURN_IF_ERROR(all_reduce(copy.data(), count, dtype).with_context("reduce"));
    if (rank_ == root) copy_bytes(data, copy.data(), static_cast<std::int64_t>(bytes));
    return Status::ok();
  }

  Status broadcast(void* data, std::int64_t count, plan::Dtype dtype, int root) override {
    ZS_RETURN_IF_ERROR(check_collective("broadcast", count, dtype, root, size_));
    auto* bytes = static_cast<std::byte*>(data);
    const std::int64_t total = count * plan::dtype_size(dtype);
    for (std::int64_t off = 0; off < total; off += max_message_) {
      const int n = static_cast<int>(std::min(max_message_, total - off));
      MPI_Request request = MPI_REQUEST_NULL;
      const int rc = MPI_Ibcast(bytes + off, n, MPI_BYTE, root, comm_, &request);
      if (rc != MPI_SUCCESS) return failed("broadcast", rc);
      ZS_RETURN_IF_ERROR(wait("broadcast", &request, 1, "rank " + std::to_string(root)));
    }
    return Status::ok();
  }

 private:
  Status failed(std::string_view what, int code) const {
    return Status::io_error(std::string(what) + " on rank " + std::to_string(rank_) + " of " +
                            std::to_string(size_) + ": " + mpi_error(code));
  }

  // Waits for `n` requests, yielding the core between tests (ranks may share cores), for at
  // most timeout_s_: then kIoError naming the collective, this rank and `peer`, the rank it
  // waits on. The requests are left pending: the caller ends the job.
  // Waits for `n` requests for at most timeout_s_ of this rank's running time (PeerWait: time
  // it was stopped does not count against the peer), then kIoError naming the collective, this
  // rank and `peer`, the rank it waits on. The requests are left pending: the caller ends the
  // job. It yields the core between tests (ranks may share cores), and after 100 ms of waiting
  // (a peer late, not a message in flight) sleeps between them rather than spin at 100% of a
  // core; every 30 s it says on stderr who waits.
  Status wait(std::string_view what, MPI_Request* requests, int n, const std::string& peer) const {
    PeerWait w(Clock::now(), timeout_s_);
    for (;;) {
      int done = 0;
      const int rc = MPI_Testall(n, requests, &done, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS) return failed(what, rc);
      if (done != 0) return Status::ok();
      const auto now = Clock::now();
      w.observe(now);
      if (w.expired(now)) {
        char text[64];
        std::snprintf(text, sizeof text, "%g", timeout_s_);
        return Status::io_error(std::string(what) + " on rank " + std::to_string(rank_) + " of " +
                                std::to_string(size_) + ": nothing from " + peer + " in " + text +
                                " s (the collective timeout): " + peer +
                                (size_ > 2 ? ", or a rank it waits on," : "") +
                                " stopped or hangs");
      }
      if (w.progress_due(now)) {
        std::fprintf(stderr,
                     "zerosim: rank %d of %d has waited %.0f s for %s in %.*s (the collective "
                     "timeout is %g s)\n",
                     rank_, size_, w.waited_s(now), peer.c_str(), static_cast<int>(what.size()),
                     what.data(), timeout_s_);
        std::fflush(stderr);
      }
      if (w.waited_s(now) > 0.1) {
        // A signal held while the caller's files are open (common/interrupt.h) ends the wait, so
        // that the caller can remove them before it takes effect: a peer killed under mpirun
        // gets the others a SIGTERM, which must not wait for the collective timeout.
        if (interrupt_pending()) {
          return Status::io_error(std::string(what) + " on rank " + std::to_string(rank_) + " of " +
                                  std::to_string(size_) + ": interrupted while waiting for " +
                                  peer);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      } else {
        std::this_thread::yield();
      }
    }
  }

  // Sends `send_bytes` at `send` to rank `to` while receiving `recv_bytes` into `recv` from rank
  // `from`, in exactly `messages` exchanges of at most max_message_ (empty ones past the end):
  // every rank makes the same number per hop, so they pair up even when neighbouring chunks
  // differ in size.
  Status exchange(std::string_view what, const std::byte* send, std::int64_t send_bytes, int to,
                  std::byte* recv, std::int64_t recv_bytes, int from, std::int64_t messages) const {
    for (std::int64_t k = 0; k < messages; ++k) {
      const std::int64_t off = k * max_message_;
      const int s = static_cast<int>(std::clamp<std::int64_t>(send_bytes - off, 0, max_message_));
      const int r = static_cast<int>(std::clamp<std::int64_t>(recv_bytes - off, 0, max_message_));
      MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
      int rc = MPI_Irecv(recv + (r > 0 ? off : 0), r, MPI_BYTE, from, 0, comm_, &requests[0]);
      if (rc == MPI_SUCCESS) {
        rc = MPI_Isend(send + (s > 0 ? off : 0), s, MPI_BYTE, to, 0, comm_, &requests[1]);
      }
      if (rc != MPI_SUCCESS) return failed(what, rc);
      ZS_RETURN_IF_ERROR(wait(what, requests, 2, "rank " + std::to_string(from)));
    }
    return Status::ok();
  }

  // Elements of the largest of the size_ chunks.
  template <class ChunkOf>
  std::int64_t largest_chunk(ChunkOf chunk) const {
    std::int64_t largest = 0;
    for (int c = 0; c < size_; ++c) largest = std::max(largest, chunk(c).end - chunk(c).begin);
    return largest;
  }
  // Messages per hop for chunks of at most `largest` elements: the same on every rank.
  std::int64_t messages_per_hop(std::int64_t largest, Bytes elem) const {
    return std::max<std::int64_t>(1, (largest * elem + max_message_ - 1) / max_message_);
  }

  // The rank `offset` places along the ring from this one.
  int along(int offset) const { return ((rank_ + offset) % size_ + size_) % size_; }

  // One hop of a ring pass: chunk `out` goes to the next rank while chunk `in` arrives from the
  // previous one into `into` (in's place in the buffer, or a scratch buffer).
  Status hop(std::string_view what, const std::byte* bytes, Bytes elem, Chunk out, std::byte* into,
             Chunk in, std::int64_t messages) const {
    return exchange(what, bytes + out.begin * elem, (out.end - out.begin) * elem, along(1), into,
                    (in.end - in.begin) * elem, along(-1), messages);
  }

  // The contract's ring reduce-scatter: chunk c ends summed in this buffer when c == rank.
  template <class ChunkOf>
  Status ring_reduce_scatter(std::string_view what, void* data, plan::Dtype dtype, ChunkOf chunk) {
    const Bytes elem = plan::dtype_size(dtype);
    auto* bytes = static_cast<std::byte*>(data);
    const std::int64_t largest = largest_chunk(chunk);
    const std::int64_t messages = messages_per_hop(largest, elem);
    std::vector<std::byte> partial(static_cast<std::size_t>(largest * elem));
    for (int s = 0; s < size_ - 1; ++s) {
      const Chunk in = chunk(along(-2 - s));
      ZS_RETURN_IF_ERROR(
          hop(what, bytes, elem, chunk(along(-1 - s)), partial.data(), in, messages));
      // acc = partial received + this rank's chunk, kept in place for the next hop.
      add_into(partial.data(), bytes + in.begin * elem, in.end - in.begin, dtype);
      copy_bytes(bytes + in.begin * elem, partial.data(), (in.end - in.begin) * elem);
    }
    return Status::ok();
  }

  // The ring all-gather: this rank's chunk `rank` travels to every other rank.
  template <class ChunkOf>
  Status ring_all_gather(std::string_view what, void* data, plan::Dtype dtype, ChunkOf chunk) {
    const Bytes elem = plan::dtype_size(dtype);
    auto* bytes = static_cast<std::byte*>(data);
    const std::int64_t messages = messages_per_hop(largest_chunk(chunk), elem);
    for (int s = 0; s < size_ - 1; ++s) {
      const Chunk in = chunk(along(-1 - s));
      ZS_RETURN_IF_ERROR(
          hop(what, bytes, elem, chunk(along(-s)), bytes + in.begin * elem, in, messages));
    }
    return Status::ok();
  }

  using Clock = std::chrono::steady_clock;

  MPI_Comm comm_;
  std::int64_t max_message_;  // bytes per MPI call
  double timeout_s_;          // the longest wait for a peer
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

MpiSession::MpiSession(int* argc, char*** argv) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

Result<std::unique_ptr<Communicator>> make_mpi_communicator(std::int64_t max_message_bytes,
                                                            double timeout_s) {
  ZS_CHECK(max_message_bytes > 0 && max_message_bytes <= kMaxMpiMessageBytes);
  ZS_CHECK(timeout_s > 0);
  MPI_Comm comm = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  if (rc != MPI_SUCCESS) return Status::io_error("MPI_Comm_dup: " + mpi_error(rc));
  // Errors come back as codes (and then as Status), not as an abort inside MPI.
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  return std::unique_ptr<Communicator>(
      std::make_unique<MpiCommunicator>(comm, max_message_bytes, timeout_s));
}

}  // namespace zs::exec
