#include "exec/cuda/cuda_rank_tensors.h"

#include <algorithm>
#include <cstring>
#include <variant>

#include "common/check.h"
#include "kernels/cuda/check.h"
#include "kernels/cuda/dtype.h"

namespace zs::exec {
namespace {

namespace cuda = kernels::cuda;

cuda::ElemType elem_type(plan::Dtype d) {
  switch (d) {
    case plan::Dtype::kFp32:
      return cuda::ElemType::kF32;
    case plan::Dtype::kBf16:
      return cuda::ElemType::kBf16;
    case plan::Dtype::kFp16:
      return cuda::ElemType::kF16;
    default:
      break;
  }
  ZS_CHECK_MSG(false, "a packed collective in a dtype other than fp32, bf16 or fp16");
  ZS_UNREACHABLE();
}

}  // namespace

Result<std::unique_ptr<CudaRankTensors>> CudaRankTensors::create(const plan::Plan& plan, Tensors t,
                                                                 CachingAllocator& allocator,
                                                                 CudaSchedule& schedule,
                                                                 const cudaStream_t* current) {
  std::unique_ptr<CudaRankTensors> r(new CudaRankTensors(t, allocator, schedule, current));
  Bytes largest = 0;
  for (const plan::Op& op : plan.ops) {
    if (const auto* c = std::get_if<plan::CollectiveWork>(&op.work)) {
      largest = std::max(largest, c->bytes);
    }
  }
  if (plan.world_size > 1) {
    ZS_ASSIGN_OR_RETURN(r->reduced_, DeviceArray<float>::allocate(allocator, t.num_params));
    ZS_ASSIGN_OR_RETURN(r->buffer_, DeviceArray<std::byte>::allocate(allocator, largest));
  }
  ZS_ASSIGN_OR_RETURN(r->scalar_, DeviceArray<std::byte>::allocate(allocator, 8));
  r->scalar_host_ = PinnedArray<std::byte>(8);
  if (moves_gradients(plan)) r->host_ = PinnedArray<float>(t.num_params);
  r->runs_.resize(plan.ops.size());
  return r;
}

void CudaRankTensors::begin_step() {
  grads_on_host_ = false;
  const cudaStream_t s = *current_;
  if (reduced_.allocated() && reduced_.size() > 0) {
    ZS_CUDA_CHECK(
        cudaMemsetAsync(reduced_.get(), 0, static_cast<std::size_t>(reduced_.bytes()), s));
  }
  if (host_.size() > 0) {
    // The last step's copies are done: the step before ended with the device synchronized.
    std::memset(host_.get(), 0, static_cast<std::size_t>(host_.size()) * sizeof(float));
  }
}

cudaStream_t CudaRankTensors::shared_stream() {
  const cudaStream_t s = *current_;
  if (last_shared_ != nullptr && last_shared_ != s) schedule_.join_into(s);
  last_shared_ = s;
  return s;
}

std::byte* CudaRankTensors::buffer(std::int64_t bytes) {
  ZS_CHECK(bytes >= 0 && bytes <= buffer_.size());
  shared_stream();
  return buffer_.get();
}

std::byte* CudaRankTensors::scalar() { return scalar_.get(); }

void CudaRankTensors::write_scalar(const void* value, std::int64_t bytes) {
  ZS_CHECK(bytes >= 1 && bytes <= 8);
  const cudaStream_t s = shared_stream();
  // Through pinned memory: the copy is queued, and the pinned bytes must stay until it runs,
  // so wait for it (a scalar collective ends with read_scalar's wait anyway).
  std::memcpy(scalar_host_.get(), value, static_cast<std::size_t>(bytes));
  ZS_CUDA_CHECK(cudaMemcpyAsync(scalar_.get(), scalar_host_.get(), static_cast<std::size_t>(bytes),
                                cudaMemcpyHostToDevice, s));
  ZS_CUDA_CHECK(cudaStreamSynchronize(s));
}

void CudaRankTensors::read_scalar(void* value, std::int64_t bytes) {
  ZS_CHECK(bytes >= 1 && bytes <= 8);
  const cudaStream_t s = shared_stream();
  ZS_CUDA_CHECK(cudaMemcpyAsync(scalar_host_.get(), scalar_.get(), static_cast<std::size_t>(bytes),
                                cudaMemcpyDeviceToHost, s));
  ZS_CUDA_CHECK(cudaStreamSynchronize(s));
  std::memcpy(value, scalar_host_.get(), static_cast<std::size_t>(bytes));
}

const cuda::PackRun* CudaRankTensors::runs_of(int op, std::span<const BufferRun> runs) {
  std::optional<DeviceArray<cuda::PackRun>>& d = runs_[static_cast<std::size_t>(op)];
  if (d) return d->get();
  std::vector<cuda::PackRun> host;
  host.reserve(runs.size());
  for (const BufferRun& r : runs) host.push_back({r.pos, r.flat, r.n});
  Result<DeviceArray<cuda::PackRun>> a =
      DeviceArray<cuda::PackRun>::allocate(allocator_, static_cast<std::int64_t>(host.size()));
  ZS_CHECK_MSG(a.ok(), "no device memory for a collective's run table");
  d = std::move(a).value();
  if (!host.empty()) {
    // Synchronous: `host` goes out of scope, and the table is made once per op.
    ZS_CUDA_CHECK(cudaMemcpy(d->get(), host.data(), host.size() * sizeof(cuda::PackRun),
                             cudaMemcpyHostToDevice));
  }
  return d->get();
}

void CudaRankTensors::take_grads(int op, const BufferMap& m, float scale, plan::Dtype dtype,
                                 std::byte* buffer) {
  // On the compute stream, where the backward that accumulates into the gradients runs (as
  // DeepSpeed's gradient hook copies a gradient into its bucket on the current stream): the
  // next backward cannot add to a gradient before it was taken. The compute stream first waits
  // for what the op's stream queued so far (the shared buffer's last user), and the op's
  // stream then waits for the packing.
  const cudaStream_t compute = schedule_.compute();
  const cudaStream_t s = *current_;
  if (s != compute) {
    ZS_CUDA_CHECK(cudaEventRecord(queued_.get(), s));
    ZS_CUDA_CHECK(cudaStreamWaitEvent(compute, queued_.get(), 0));
  }
  cuda::pack_runs(runs_of(op, m.runs), static_cast<std::int64_t>(m.runs.size()), t_.grads,
                  cuda::ElemType::kF32, scale, /*take=*/true, 0, m.elems, buffer, elem_type(dtype),
                  compute);
  if (s != compute) {
    ZS_CUDA_CHECK(cudaEventRecord(packed_.get(), compute));
    ZS_CUDA_CHECK(cudaStreamWaitEvent(s, packed_.get(), 0));
  }
}

void CudaRankTensors::add_reduced(int op, const BufferMap& m, const std::byte* buffer, float scale,
                                  plan::Dtype dtype, std::int64_t lo, std::int64_t hi) {
  ZS_CHECK(reduced_.allocated());
  cuda::unpack_runs(runs_of(op, m.runs), static_cast<std::int64_t>(m.runs.size()), buffer,
                    elem_type(dtype), scale, lo, hi, reduced_.get(), cuda::ElemType::kF32,
                    /*add=*/true, *current_);
}

void CudaRankTensors::pack_weights(int op, const BufferMap& m, plan::Dtype dtype, std::int64_t lo,
                                   std::int64_t hi, std::byte* buffer) {
  cuda::pack_runs(runs_of(op, m.runs), static_cast<std::int64_t>(m.runs.size()), t_.weights,
                  t_.weights_type, 1.0f, /*take=*/false, lo, hi, buffer, elem_type(dtype),
                  *current_);
}

void CudaRankTensors::place_weights(int op, const BufferMap& m, const std::byte* buffer,
                                    plan::Dtype dtype, std::int64_t lo, std::int64_t hi) {
  cuda::unpack_runs(runs_of(op, m.runs), static_cast<std::int64_t>(m.runs.size()), buffer,
                    elem_type(dtype), 1.0f, lo, hi, t_.weights, t_.weights_type,
                    /*add=*/false, *current_);
}

void CudaRankTensors::take_partition(GradSource from, std::span<const OwnedRun> owned) {
  const cudaStream_t s = *current_;
  schedule_.join_into(s);
  if (t_.num_params > 0) {
    ZS_CUDA_CHECK(
        cudaMemsetAsync(t_.grads, 0, static_cast<std::size_t>(t_.num_params) * sizeof(float), s));
  }
  if (from == GradSource::kHost) {
    // The host's gradients stay where they are: the backend's gradient work and CPU Adam read
    // them there.
    ZS_CHECK(host_.size() == t_.num_params);
    grads_on_host_ = true;
    return;
  }
  ZS_CHECK(reduced_.allocated());
  for (const OwnedRun& r : owned) {
    ZS_CUDA_CHECK(cudaMemcpyAsync(t_.grads + r.flat, reduced_.get() + r.flat,
                                  static_cast<std::size_t>(r.n) * sizeof(float),
                                  cudaMemcpyDeviceToDevice, s));
  }
}

void CudaRankTensors::move_grads(int op, std::span<const BufferRun> runs, bool host_to_device) {
  ZS_CHECK(host_.size() == t_.num_params);
  if (runs.empty()) return;
  // One kernel on the copy's stream reads and writes the pinned host array through its mapping
  // (unified addressing maps cudaHostAlloc's memory into the device's address space), so both
  // directions add as the contract says without a staging copy.
  float* dev = reduced();
  float* host = host_.get();
  cuda::move_runs(runs_of(op, runs), static_cast<std::int64_t>(runs.size()),
                  host_to_device ? host : dev, host_to_device ? dev : host, *current_);
}

std::vector<float> CudaRankTensors::working_weights() {
  const cudaStream_t s = *current_;
  schedule_.join_into(s);
  std::vector<float> out(static_cast<std::size_t>(t_.num_params));
  if (t_.num_params == 0) return out;
  const auto bytes = out.size() * sizeof(float);
  if (t_.weights_type == cuda::ElemType::kF32) {
    ZS_CUDA_CHECK(cudaMemcpyAsync(out.data(), t_.weights, bytes, cudaMemcpyDeviceToHost, s));
  } else {
    Result<DeviceArray<float>> tmp = DeviceArray<float>::allocate(allocator_, t_.num_params);
    ZS_CHECK_MSG(tmp.ok(), "no device memory to read the working weights back");
    if (t_.weights_type == cuda::ElemType::kBf16) {
      cuda::bf16_to_float(static_cast<const __nv_bfloat16*>(t_.weights), tmp->get(), t_.num_params,
                          s);
    } else {
      cuda::fp16_to_float(static_cast<const __half*>(t_.weights), tmp->get(), t_.num_params, s);
    }
    ZS_CUDA_CHECK(cudaMemcpyAsync(out.data(), tmp->get(), bytes, cudaMemcpyDeviceToHost, s));
    ZS_CUDA_CHECK(cudaStreamSynchronize(s));  // before tmp returns to the allocator
  }
  ZS_CUDA_CHECK(cudaStreamSynchronize(s));
  return out;
}

}  // namespace zs::exec
