#include "exec/plan_buffers.h"

#include "common/check.h"

namespace zs::exec {

Result<void*> PlanBufferLedger::AddressSpace::allocate(std::int64_t bytes) {
  ZS_CHECK(bytes > 0);
  const std::uintptr_t at = next_;
  // Consecutive segments never touch (so the allocator cannot mistake them for one).
  next_ += static_cast<std::uintptr_t>(round_block_bytes(bytes)) + kMinBlockBytes;
  return reinterpret_cast<void*>(at);
}

void PlanBufferLedger::AddressSpace::release(void* /*p*/, std::int64_t /*bytes*/) {}

PlanBufferLedger::PlanBufferLedger(const plan::Plan& plan)
    : plan_(plan),
      events_(plan::buffer_events(plan)),
      space_(std::make_unique<AddressSpace>()),
      allocator_(std::make_unique<CachingAllocator>(*space_)),
      blocks_(plan.buffers.size()) {
  for (std::size_t id = 0; id < plan.buffers.size(); ++id) {
    const plan::Buffer& b = plan.buffers[id];
    if (b.device == plan::Device::kGpu && b.persistent && b.bytes > 0) {
      blocks_[id] = allocator_->allocate(b.bytes).value();  // an address space never runs out
    }
  }
}

void PlanBufferLedger::issue(int op) {
  for (int id : events_.allocs(op)) {
    const plan::Buffer& b = plan_.buffers[static_cast<std::size_t>(id)];
    if (b.device == plan::Device::kGpu && b.bytes > 0) {
      blocks_[static_cast<std::size_t>(id)] = allocator_->allocate(b.bytes).value();
    }
  }
  const Bytes t = plan_.ops[static_cast<std::size_t>(op)].transient_bytes;
  if (t > 0) transient_ = allocator_->allocate(t).value();
}

void PlanBufferLedger::finish(int op) {
  allocator_->free(transient_);
  transient_ = {};
  for (int id : events_.frees(op)) {
    Block& b = blocks_[static_cast<std::size_t>(id)];
    allocator_->free(b);
    b = {};
  }
}

DeviceMemoryStats PlanBufferLedger::stats() const {
  const Stats s = allocator_->stats();
  return {s.peak_allocated_bytes, s.peak_reserved_bytes, s.num_raw_allocs};
}

}  // namespace zs::exec
