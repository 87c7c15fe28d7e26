// Shared by the CUDA kernel tests (tests/kernels_cuda/): the skip on machines without a GPU,
// device buffers, fp32 test data rounded to the kernels' storage types through kernels/cpu/dtype,
// and element-wise comparison with a stated tolerance.
//
// Every test follows one recipe: inputs are generated in fp32 from a seeded RNG (never all
// zero), rounded to the storage type T, and the CPU reference kernel (kernels/cpu/) runs on the
// rounded values in fp32; the CUDA kernel runs on the same T values, and its output, converted
// back to fp32, is compared with the reference within a tolerance that each test states.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu/dtype.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/types.h"

namespace zs::kernels::cuda::test_util {

// Empty when a CUDA device is usable, else why not (with CUDA's own message).
inline std::string no_device_reason() {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // clear the error so it is not reported by a later call
    return std::string("no CUDA device: cudaGetDeviceCount returned ") + cudaGetErrorName(error) +
           " (" + cudaGetErrorString(error) + ")";
  }
  if (count == 0) return "no CUDA device: cudaGetDeviceCount found none";
  return "";
}

// Base fixture of every CUDA test: skips the test (GTEST_SKIP) on a machine without a device,
// else gives it a stream.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string reason = no_device_reason();
    if (!reason.empty()) GTEST_SKIP() << reason;
    ZS_CUDA_CHECK(cudaStreamCreate(&stream_));
  }
  void TearDown() override {
    if (stream_ != nullptr) ZS_CUDA_CHECK(cudaStreamDestroy(stream_));
  }
  // Waits for the stream, so that a fault in a kernel aborts in the test that launched it.
  void sync() const { ZS_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  cudaStream_t stream_ = nullptr;
};

// 16-bit storage values from and to their bit patterns (through CUDA's raw structs).
inline __nv_bfloat16 bf16_from_bits(std::uint16_t bits) {
  __nv_bfloat16_raw raw;
  raw.x = bits;
  return __nv_bfloat16(raw);
}
inline std::uint16_t bits_of(__nv_bfloat16 x) { return static_cast<__nv_bfloat16_raw>(x).x; }
inline __half fp16_from_bits(std::uint16_t bits) {
  __half_raw raw;
  raw.x = bits;
  return __half(raw);
}
inline std::uint16_t bits_of(__half x) { return static_cast<__half_raw>(x).x; }

// Host-side conversions of the storage types, through kernels/cpu/dtype (which matches CUDA's
// round-to-nearest-even casts bit for bit), and the tolerance their rounding adds.
template <class T>
struct Storage;
template <>
struct Storage<float> {
  static constexpr const char* kName = "fp32";
  // Outputs are fp32: no rounding beyond the kernel's own arithmetic.
  static constexpr double kRel = 0.0;
  static float from_float(float x) { return x; }
  static float to_float(float x) { return x; }
};
template <>
struct Storage<__nv_bfloat16> {
  static constexpr const char* kName = "bf16";
  // One bf16 ulp, relative: 8 significant bits, so an ulp is at most 2^-7 of the value. The
  // reference is unrounded fp32 and the kernel rounds to nearest (half an ulp), but its fp32
  // result may differ from the reference in the last bits and round to the neighbour.
  static constexpr double kRel = 0x1p-7;
  static __nv_bfloat16 from_float(float x) { return bf16_from_bits(cpu::float_to_bf16(x).bits); }
  static float to_float(__nv_bfloat16 x) { return cpu::bf16_to_float(cpu::Bf16{bits_of(x)}); }
};
template <>
struct Storage<__half> {
  static constexpr const char* kName = "fp16";
  // One fp16 ulp, relative: 11 significant bits, so at most 2^-10 of the value (see bf16).
  static constexpr double kRel = 0x1p-10;
  static __half from_float(float x) { return fp16_from_bits(cpu::float_to_fp16(x).bits); }
  static float to_float(__half x) { return cpu::fp16_to_float(cpu::Fp16{bits_of(x)}); }
};

// The storage types of the templated kernels, named fp32 / bf16 / fp16 in test names.
using StorageTypes = ::testing::Types<float, __nv_bfloat16, __half>;
struct StorageTypeNames {
  template <class T>
  static std::string GetName(int /*index*/) {
    return Storage<T>::kName;
  }
};

template <class T>
std::vector<T> to_storage(const std::vector<float>& x) {
  std::vector<T> out;
  out.reserve(x.size());
  for (const float v : x) out.push_back(Storage<T>::from_float(v));
  return out;
}
template <class T>
std::vector<float> to_floats(const std::vector<T>& x) {
  std::vector<float> out;
  out.reserve(x.size());
  for (const T v : x) out.push_back(Storage<T>::to_float(v));
  return out;
}
// x rounded to T and widened back: exactly the values a kernel reading T sees.
template <class T>
std::vector<float> rounded(const std::vector<float>& x) {
  return to_floats<T>(to_storage<T>(x));
}

// n samples of N(mean, stddev²) from a seeded generator.
inline std::vector<float> random_normal(std::int64_t n, std::uint32_t seed, float stddev = 1.0f,
                                        float mean = 0.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = dist(rng);
  return v;
}
// n ids uniform in [0, limit) from a seeded generator.
inline std::vector<std::int32_t> random_ids(std::int64_t n, std::int32_t limit,
                                            std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int32_t> dist(0, limit - 1);
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  for (std::int32_t& x : v) x = dist(rng);
  return v;
}

// An owned device array of n elements of T (cudaMalloc / cudaFree); neither copied nor moved.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::int64_t n) : n_(n) {
    if (n_ > 0) ZS_CUDA_CHECK(cudaMalloc(&ptr_, bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host)
      : DeviceBuffer(static_cast<std::int64_t>(host.size())) {
    upload(host);
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) ZS_CUDA_CHECK(cudaFree(ptr_));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* get() const { return ptr_; }
  std::int64_t size() const { return n_; }

  // Synchronous copies (cudaMemcpy waits for the work queued before it on blocking streams).
  void upload(const std::vector<T>& host) {
    ASSERT_EQ(static_cast<std::int64_t>(host.size()), n_);
    if (n_ > 0) ZS_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(static_cast<std::size_t>(n_));
    if (n_ > 0) ZS_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  std::size_t bytes() const { return static_cast<std::size_t>(n_) * sizeof(T); }

  T* ptr_ = nullptr;
  std::int64_t n_ = 0;
};

// fp32 data rounded to T in a new device array, and a T device array read back as fp32.
template <class T>
DeviceBuffer<T> device_copy(const std::vector<float>& x) {
  return DeviceBuffer<T>(to_storage<T>(x));
}
template <class T>
std::vector<float> download_floats(const DeviceBuffer<T>& buffer) {
  return to_floats<T>(buffer.download());
}

// |got - want| <= abs + rel·|want| element by element.
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

// Success when every element is within tol, plus extra_abs[i] for element i where extra_abs is
// not empty (a NaN never is); otherwise says how many are not, and shows the worst one.
template <class Want>
::testing::AssertionResult all_near(const std::vector<float>& got, const std::vector<Want>& want,
                                    Tolerance tol, const std::vector<double>& extra_abs = {}) {
  if (got.size() != want.size() || (!extra_abs.empty() && extra_abs.size() != want.size())) {
    return ::testing::AssertionFailure() << "sizes differ: got " << got.size() << ", want "
                                         << want.size() << ", extra " << extra_abs.size();
  }
  std::size_t bad = 0;
  std::size_t worst = 0;
  double worst_excess = -1.0;  // |diff| / allowed of the worst element
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto w = static_cast<double>(want[i]);
    const double diff = std::fabs(static_cast<double>(got[i]) - w);
    const double allowed =
        tol.abs + tol.rel * std::fabs(w) + (extra_abs.empty() ? 0.0 : extra_abs[i]);
    const double excess = allowed > 0 ? diff / allowed : (diff > 0 ? INFINITY : 0.0);
    if (!(diff <= allowed)) ++bad;
    if (std::isnan(diff) || excess > worst_excess) {
      worst_excess = std::isnan(diff) ? INFINITY : excess;
      worst = i;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  std::ostringstream msg;
  msg.precision(9);
  msg << bad << " of " << got.size() << " elements outside |got - want| <= " << tol.abs << " + "
      << tol.rel << "·|want|" << (extra_abs.empty() ? "" : " + extra[i]") << "; worst at [" << worst
      << "]: got " << got[worst] << ", want " << static_cast<double>(want[worst]);
  return ::testing::AssertionFailure() << msg.str();
}

}  // namespace zs::kernels::cuda::test_util
