// Owners of a CUDA stream and a CUDA event, for the CUDA executor. Move-only; a failing CUDA
// call aborts through ZS_CUDA_CHECK (kernels/cuda/check.h): it is a broken environment.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "kernels/cuda/check.h"

namespace zs::exec {

// A stream created with cudaStreamCreate (a blocking stream: it also orders with the legacy
// default stream, which zerosim never uses).
class CudaStream {
 public:
  CudaStream() { ZS_CUDA_CHECK(cudaStreamCreate(&stream_)); }
  ~CudaStream() {
    if (stream_ != nullptr) ZS_CUDA_CHECK(cudaStreamDestroy(stream_));
  }
  CudaStream(CudaStream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  CudaStream& operator=(CudaStream&& other) noexcept {
    std::swap(stream_, other.stream_);
    return *this;
  }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;

  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An event with timing (cudaEventCreate's default flags), for cudaEventElapsedTime.
class CudaEvent {
 public:
  CudaEvent() { ZS_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~CudaEvent() {
    if (event_ != nullptr) ZS_CUDA_CHECK(cudaEventDestroy(event_));
  }
  CudaEvent(CudaEvent&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  CudaEvent& operator=(CudaEvent&& other) noexcept {
    std::swap(event_, other.event_);
    return *this;
  }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;

  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace zs::exec
