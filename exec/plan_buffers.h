// The Plan's device buffers as a backend without a device accounts them: allocated and freed
// through the caching allocator (exec/caching_allocator.h, PyTorch's rules) in the order the
// Plan's ops issue them, so that its peaks are what torch.cuda.max_memory_allocated and
// max_memory_reserved would report for those buffers, per rank, comparable with simulate's replay
// of the same Plan (plan/memory.h replay_memory and its allocator replay).
//
// The CPU backend keeps its own tensors in host vectors; this ledger holds no memory: its
// allocator's segments come from an address space that hands out addresses only (nothing is
// touched or reserved), so a 70B plan's buffers can be accounted on a laptop.
//
// Order (the replay's): the persistent GPU buffers when the ledger is made, in buffer id order;
// at an op's issue the buffers it allocates, then its transient working memory; after it the
// transient, then the buffers it frees (a persistent buffer's gap included). Host and NVMe
// buffers are not device memory and are not counted.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "exec/caching_allocator.h"
#include "exec/exec_types.h"
#include "plan/plan.h"

namespace zs::exec {

class PlanBufferLedger {
 public:
  // REQUIRES: `plan` outlives the ledger and is valid (plan::validate).
  explicit PlanBufferLedger(const plan::Plan& plan);

  // Op `op` is issued / has run. Each issue() is followed by finish() of the same op before the
  // next issue(). REQUIRES: 0 <= op < plan.ops.size().
  void issue(int op);
  void finish(int op);

  // The peaks so far (DeviceMemoryStats: allocated, reserved, segments taken).
  DeviceMemoryStats stats() const;

 private:
  // Addresses without memory: each segment gets a fresh, 512-aligned range.
  class AddressSpace final : public RawMemory {
   public:
    Result<void*> allocate(std::int64_t bytes) override;
    void release(void* p, std::int64_t bytes) override;

   private:
    std::uintptr_t next_ = 1 << 20;
  };

  const plan::Plan& plan_;
  plan::BufferEvents events_;
  std::unique_ptr<AddressSpace> space_;  // before the allocator: it outlives it
  std::unique_ptr<CachingAllocator> allocator_;
  std::vector<Block> blocks_;  // per buffer id: its block while allocated
  Block transient_;
};

}  // namespace zs::exec
