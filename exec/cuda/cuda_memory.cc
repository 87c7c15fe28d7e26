#include "exec/cuda/cuda_memory.h"

#include <cstdint>
#include <string>

namespace zs::exec {
namespace {

bool aligned(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(kMinBlockBytes) == 0;
}

// cudaMalloc, with its failure as a Status and the runtime's error cleared.
Result<void*> cuda_malloc(std::int64_t bytes) {
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, static_cast<std::size_t>(bytes));
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // cudaErrorMemoryAllocation is not sticky: clear it
    return Status::invalid_argument("cudaMalloc of " + std::to_string(bytes) +
                                    " bytes failed: " + cudaGetErrorString(e));
  }
  return p;
}

}  // namespace

CudaRawMemory::~CudaRawMemory() {
  // The CachingAllocator releases its segments before its RawMemory goes (it is declared after
  // it); anything left here was not released by its owner.
  ZS_CHECK(realigned_.empty());
}

Result<void*> CudaRawMemory::allocate(std::int64_t bytes) {
  ZS_CHECK(bytes > 0);
  ZS_ASSIGN_OR_RETURN(void* p, cuda_malloc(bytes));
  if (aligned(p)) return p;
  ZS_CUDA_CHECK(cudaFree(p));
  ZS_ASSIGN_OR_RETURN(void* raw, cuda_malloc(bytes + kMinBlockBytes));
  const auto address = reinterpret_cast<std::uintptr_t>(raw);
  const auto align = static_cast<std::uintptr_t>(kMinBlockBytes);
  void* at = reinterpret_cast<void*>((address + align - 1) / align * align);
  realigned_.emplace(at, raw);
  return at;
}

void CudaRawMemory::release(void* p, std::int64_t /*bytes*/) {
  // A wholly free segment may still be read by queued kernels (the allocator frees in stream
  // order): wait for the device first. Segments go back only when the cache is emptied (out of
  // memory) and at the end, so this costs nothing in a step.
  ZS_CUDA_CHECK(cudaDeviceSynchronize());
  auto it = realigned_.find(p);
  if (it != realigned_.end()) {
    p = it->second;
    realigned_.erase(it);
  }
  ZS_CUDA_CHECK(cudaFree(p));
}

}  // namespace zs::exec
