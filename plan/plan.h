// The Plan: one optimizer step (G gradient-accumulation micro-steps) of one representative
// data-parallel rank, as DeepSpeed runs it. It is the contract between plan/ (which decides
// what happens and when: DeepSpeed's scheduling policy lives only here) and its two plain
// interpreters: sim/ prices each op and replays it over streams and links; exec/ launches it.
//
// - Ops are listed in host issue order (the order DeepSpeed's Python launches them). An op may
//   depend only on earlier ops, so the graph is acyclic by construction; it runs on one stream.
// - Buffers are allocated when the op listing them in `allocs` is issued and released right
//   after the op listing them in `frees` is issued, which is what PyTorch's caching allocator
//   counts in torch.cuda.memory_allocated(). Persistent buffers (model states) live throughout.
// - Segments group ops. A segment with repeat > 1 stands for that many identical micro-steps
//   (DeepSpeed's micro-steps between the first and the last do the same work); it must leave
//   memory as it found it.
// - Every rank of the data-parallel group is symmetric (ZeRO's partitions are equal-sized, the
//   padding included), so one rank describes all; collectives name the group they span.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/status.h"
#include "common/units.h"

namespace zs::plan {

enum class Device { kGpu, kHostPinned, kHostPageable, kNvme };
std::string_view device_name(Device d);

// The breakdown categories of memory reports.
enum class Category { kParams, kGrads, kOptimizerStates, kActivations, kBuffers, kOther };
std::string_view category_name(Category c);

struct Buffer {
  std::string name;
  Bytes bytes = 0;
  Device device = Device::kGpu;
  Category category = Category::kBuffers;
  // Its share of model_states_bytes: parameters, gradient storage and optimizer states as the
  // ZeRO paper counts them (2Ψ/N for a stage-2 gradient partition even where DeepSpeed's buffer
  // holds straddling parameters in full); 0 for buckets and transient casts.
  Bytes model_state_bytes = 0;
  bool persistent = false;  // allocated before the step and alive after it
};

enum class StreamKind { kCompute, kCollective, kCopyH2D, kCopyD2H, kCpu, kNvme };
std::string_view stream_kind_name(StreamKind k);

struct Stream {
  std::string name;
  StreamKind kind = StreamKind::kCompute;
};

enum class Pass { kForward, kBackward, kRecompute };
std::string_view pass_name(Pass p);

// Model kernels: the contiguous range [first_model_op, last_model_op] of
// models::forward_ops(spec, workload), run forward, backward, or forward again to recompute.
struct ComputeWork {
  Pass pass = Pass::kForward;
  int first_model_op = 0;
  int last_model_op = 0;
  std::int64_t flops = 0;
  Bytes hbm_bytes = 0;
};

enum class CollectiveKind { kAllReduce, kReduceScatter, kAllGather, kBroadcast, kReduce };
std::string_view collective_name(CollectiveKind k);

// A collective over the data-parallel group. `bytes` is the size of the whole buffer the
// collective produces on each rank (the all-reduced bucket; the gathered tensor; the input of a
// reduce-scatter), as nccl-tests states message sizes.
struct CollectiveWork {
  CollectiveKind kind = CollectiveKind::kAllReduce;
  Bytes bytes = 0;
  int group_size = 1;
};

// GPU memory-bound work that is not a model kernel: flatten, cast, copy, zero fill, norm.
struct MemoryWork {
  Bytes bytes_read = 0;
  Bytes bytes_written = 0;
};

// A copy between host and GPU over PCIe.
struct CopyWork {
  Bytes bytes = 0;
  bool host_to_device = true;
  bool pinned = true;
};

// The optimizer step over `numel` parameters, on the GPU (fused Adam) or the CPU (DeepSpeed's
// CPU Adam). `bytes_touched` is the memory traffic it makes.
struct OptimizerWork {
  bool on_cpu = false;
  std::int64_t numel = 0;
  Bytes bytes_touched = 0;
};

struct NvmeWork {
  Bytes bytes = 0;
  bool read = true;
};

using Work =
    std::variant<ComputeWork, CollectiveWork, MemoryWork, CopyWork, OptimizerWork, NvmeWork>;

// Where an op sits in the step, for reports ("the peak is in backward").
enum class Phase { kForward, kBackward, kReduce, kStep, kPostStep };
std::string_view phase_name(Phase p);

struct Op {
  std::string name;  // unique and stable, e.g. "mb0.fwd.layers.3.mlp", "step.adam"
  int stream = 0;
  Phase phase = Phase::kForward;
  Work work;
  std::vector<int> deps;      // ids of earlier ops that must finish first
  std::vector<int> allocs;    // buffer ids allocated when this op is issued
  std::vector<int> frees;     // buffer ids released after this op is issued
  Bytes transient_bytes = 0;  // GPU working memory while it runs (activation gradients, temps)
};

struct Segment {
  std::string name;  // "micro_step.0", "micro_step.1-6", "step"
  int first_op = 0;  // [first_op, end_op)
  int end_op = 0;
  int repeat = 1;
};

struct Plan {
  std::string summary;  // one line: model, stage, world, batch
  int world_size = 1;
  int micro_steps = 1;
  std::vector<Stream> streams;
  std::vector<Buffer> buffers;
  std::vector<Op> ops;
  std::vector<Segment> segments;

  int add_stream(std::string name, StreamKind kind);
  int add_buffer(Buffer b);
  int add_op(Op op);  // returns its id
};

// OK when the plan is well formed: every op's stream exists; deps name earlier ops; every
// non-persistent buffer is allocated exactly once and freed exactly once, after; persistent
// buffers are never allocated or freed by an op; segments tile the op list in order; a repeated
// segment frees what it allocates. Otherwise kInvalidArgument naming the op or buffer (a plan/
// bug, reported as a Status so tests can show it).
Status validate(const Plan& plan);

// One line per op: "id stream phase name work deps allocs frees", then the buffers, for tests
// and debugging. Deterministic.
std::string to_text(const Plan& plan);

}  // namespace zs::plan
