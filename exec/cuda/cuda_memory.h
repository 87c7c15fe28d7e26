// Device and pinned host memory for the CUDA executor: cudaMalloc behind the caching allocator
// (exec/caching_allocator.h), typed device arrays handed out by it, and pinned host staging.
//
// Every byte of device memory the CUDA executor and its model runner use comes from one
// CachingAllocator over CudaRawMemory, so the allocator's peaks are the run's device peaks, as
// torch.cuda.max_memory_allocated / max_memory_reserved report them for PyTorch (cuBLASLt's
// handle keeps a few KiB of its own, as it does under PyTorch).
//
// Streams: the allocator has none (its header). A DeviceArray freed while kernels that use it
// are still queued is safe exactly when the block's next owner uses it on the same stream (the
// FIFO orders the reuse after those kernels): the CUDA model runner keeps all its work on one
// stream for this reason, and the executor's other arrays live for the whole run.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <utility>

#include "common/status.h"
#include "exec/caching_allocator.h"
#include "kernels/cuda/check.h"

namespace zs::exec {

// Segments from cudaMalloc on the current device, 512-byte aligned (cudaMalloc promises 256;
// a pointer that is only 256-aligned is given back and the segment taken again 512 bytes
// larger, then aligned inside it).
class CudaRawMemory final : public RawMemory {
 public:
  CudaRawMemory() = default;
  ~CudaRawMemory() override;
  CudaRawMemory(const CudaRawMemory&) = delete;
  CudaRawMemory& operator=(const CudaRawMemory&) = delete;

  // kInvalidArgument "cudaMalloc of N bytes failed: <CUDA's message>" when the device has no
  // room; the runtime's (non-sticky) error is cleared so that no later check reports it.
  Result<void*> allocate(std::int64_t bytes) override;
  void release(void* p, std::int64_t bytes) override;

 private:
  std::map<void*, void*> realigned_;  // aligned pointer -> what cudaMalloc returned
};

// n elements of T in a Block of a CachingAllocator; freed back to it on destruction. Move-only.
// The memory is not initialised.
template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;

  // "out of memory: ..." (CachingAllocator::allocate) when the device has no room.
  // REQUIRES: n >= 0; `allocator` outlives the array.
  static Result<DeviceArray> allocate(CachingAllocator& allocator, std::int64_t n) {
    ZS_CHECK(n >= 0);
    ZS_ASSIGN_OR_RETURN(const Block block,
                        allocator.allocate(n * static_cast<std::int64_t>(sizeof(T))));
    return DeviceArray(&allocator, block, n);
  }

  ~DeviceArray() { reset(); }
  DeviceArray(DeviceArray&& other) noexcept
      : allocator_(std::exchange(other.allocator_, nullptr)),
        block_(std::exchange(other.block_, Block{})),
        size_(std::exchange(other.size_, 0)) {}
  DeviceArray& operator=(DeviceArray&& other) noexcept {
    if (this != &other) {
      reset();
      allocator_ = std::exchange(other.allocator_, nullptr);
      block_ = std::exchange(other.block_, Block{});
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;

  // Returns the block to the allocator (see the header comment on streams); then empty.
  void reset() {
    if (allocator_ != nullptr) allocator_->free(block_);
    allocator_ = nullptr;
    block_ = Block{};
    size_ = 0;
  }

  // True from allocate() until reset() (also for n == 0, whose pointer is null).
  bool allocated() const { return allocator_ != nullptr; }
  T* get() const { return static_cast<T*>(block_.ptr); }
  std::int64_t size() const { return size_; }
  std::int64_t bytes() const { return size_ * static_cast<std::int64_t>(sizeof(T)); }

 private:
  DeviceArray(CachingAllocator* allocator, Block block, std::int64_t n)
      : allocator_(allocator), block_(block), size_(n) {}

  CachingAllocator* allocator_ = nullptr;
  Block block_;
  std::int64_t size_ = 0;
};

// n elements of T in pinned (page-locked) host memory (cudaHostAlloc), for asynchronous copies.
// Move-only; not initialised. A failure aborts (ZS_CUDA_CHECK): the executor pins a few KiB.
template <class T>
class PinnedArray {
 public:
  PinnedArray() = default;
  explicit PinnedArray(std::int64_t n) : size_(n) {
    ZS_CHECK(n >= 0);
    if (n > 0) {
      ZS_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_),
                                  static_cast<std::size_t>(n) * sizeof(T), cudaHostAllocDefault));
    }
  }
  ~PinnedArray() {
    if (ptr_ != nullptr) ZS_CUDA_CHECK(cudaFreeHost(ptr_));
  }
  PinnedArray(PinnedArray&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedArray& operator=(PinnedArray&& other) noexcept {
    if (this != &other) {
      if (ptr_ != nullptr) ZS_CUDA_CHECK(cudaFreeHost(ptr_));
      ptr_ = std::exchange(other.ptr_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;

  T* get() const { return ptr_; }
  std::int64_t size() const { return size_; }

 private:
  T* ptr_ = nullptr;
  std::int64_t size_ = 0;
};

}  // namespace zs::exec
