// Layout: what a plan is built from, derived once from the config, the model and the cluster:
// dtypes, ZeRO partitions, the representative rank, gradient order and the model's blocks.
// Everything here follows DeepSpeed 0.19.6's code (zero/stage_1_and_2.py, zero/stage3.py,
// zero/partition_parameters.py, zero/parameter_offload.py); the comments cite the functions.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/units.h"
#include "configs/ds_config.h"
#include "configs/hardware/cluster.h"
#include "models/model_spec.h"
#include "models/ops.h"
#include "models/parameters.h"
#include "plan/blocks.h"
#include "plan/model_graph.h"
#include "plan/plan.h"

namespace zs::plan {

struct PlanRequest {
  const configs::DsConfig* config = nullptr;  // "auto" resolved, batch triad filled in
  const models::ModelSpec* model = nullptr;
  const configs::Cluster* cluster = nullptr;
  std::int64_t seq_len = 0;
  std::int64_t target_len = 0;  // an encoder-decoder's decoder tokens; 0: seq_len
  // Full activation checkpointing, one checkpoint per transformer layer (HF
  // gradient_checkpointing / torch.utils.checkpoint). DeepSpeed's activation_checkpointing
  // section only configures models that call deepspeed.checkpointing, so this is a separate flag.
  bool activation_checkpointing = false;
  bool flash_attention = true;  // SDPA / FlashAttention-2, the HF default on GPUs
  // The model's graph for this workload when the caller already has it (a sweep shares one);
  // built here when null or built for another workload.
  std::shared_ptr<const ModelGraph> graph;
  // Op and buffer names (Plan::names) and the reductions' gradient slices
  // (CollectiveWork::slices). Off, they are empty and nothing else changes: a sweep, which
  // prints no plan, trace or peak op and executes nothing, skips building them.
  bool names = true;
};

struct Layout {
  // Run shape.
  int stage = 0;
  int world = 1;        // N, the data-parallel group
  int micro_steps = 1;  // G
  std::int64_t micro_batch = 1;
  std::int64_t seq_len = 0;
  // Tokens one rank trains on in an optimizer step: b x s x G.
  std::int64_t tokens_per_step() const { return micro_batch * seq_len * micro_steps; }
  configs::Precision precision = configs::Precision::kBf16;
  Dtype param_dtype = Dtype::kBf16;  // the model dtype
  Dtype comm_dtype = Dtype::kBf16;   // communication_data_type (default: the model dtype)
  Dtype accum_dtype = Dtype::kBf16;  // data_types.grad_accum_dtype (default: the model dtype)
  Bytes param_bytes = 2;             // b: bytes per element of the model dtype
  Bytes comm_bytes = 2;              // of communication_data_type (default: the model dtype)
  Bytes accum_bytes = 2;  // stage 3 gradient partition dtype (data_types.grad_accum_dtype)
  bool overlap_comm = false;
  // The host synchronizes the device at the end of every micro-step (ThroughputTimer with
  // timers.throughput enabled and synchronized, or wall_clock_breakdown's timers).
  bool timer_sync = true;
  // Stage 1/2 check the gradients for inf/NaN at the step (an all_reduce and an .item()).
  bool check_overflow = false;
  bool contiguous_gradients = true;
  // Stage 1/2 reduction paths (stage_1_and_2.py average_tensor): reduce_scatter off all-reduces
  // whole buckets; use_multi_rank_bucket_allreduce off reduces each owner's slices to it.
  bool reduce_scatter = true;
  bool multi_rank_allreduce = true;
  std::int64_t bucket_elems = 0;  // B, reduce_bucket_size
  bool checkpointing = false;
  // Offload.
  bool offload_optimizer = false;  // optimizer states and step on the CPU (cpu or nvme)
  bool optimizer_on_nvme = false;  // stage 3 only; stage 1/2 treat nvme as cpu
  bool offload_param = false;      // stage 3 only
  bool param_on_nvme = false;
  bool pin_optimizer = true;
  bool pin_param = true;
  double offload_ratio = 1.0;  // stage 3 partial offload (Twin-Flow)
  // NVMe (stage 3): offload_param's max_in_cpu elements, its swap buffers (buffer_count x
  // buffer_size elements); offload_optimizer's buffer_count (sub-group sized fp32 buffers).
  std::int64_t param_max_in_cpu = 0;
  std::int64_t param_swap_buffers = 0;
  std::int64_t param_swap_buffer_elems = 0;
  std::int64_t optimizer_swap_buffers = 0;

  // The optimizer and the step, read once from the config: the schedules read the Layout alone.
  Bytes optimizer_state_bytes = 8;  // per parameter element (Adam's m and v in fp32)
  // Stage 0 in 16 bits: DeepSpeed built FusedAdam from the config's Adam/AdamW (no torch_adam)
  // and wrapped it in FP16_Optimizer; otherwise FP16_UnfusedOptimizer.
  bool fused_adam = false;
  bool clip_gradients = false;  // gradient_clipping > 0
  // DeepSpeed >= 0.18.3 sets up ZeRO-1/2's IPG buffers at the first gradient hook; earlier
  // releases in backward_prologue, before the loss's backward.
  bool ipg_at_first_grad_hook = true;
  // Stage 3's coordinator (stage3_max_live_parameters, stage3_prefetch_bucket_size,
  // stage3_max_reuse_distance) and ZeRO++ hpZ's group (zero_hpz_partition_size; 1: off).
  std::int64_t max_live_parameters = 0;
  std::int64_t prefetch_bucket_size = 0;
  std::int64_t max_reuse_distance = 0;
  int hpz_group = 1;

  // Model.
  std::shared_ptr<const ModelGraph> graph;
  std::int64_t hidden = 0;         // h
  std::int64_t psi = 0;            // trainable parameters
  std::int64_t largest_param = 0;  // L_max
  const std::vector<models::ParamTensor>& params() const { return graph->params; }
  const std::vector<int>& real_params() const { return graph->real_params; }
  const std::vector<models::Op>& ops() const { return graph->ops; }
  const std::vector<Block>& blocks() const { return graph->blocks; }
  const GradFlow& flow() const { return graph->flow; }
  const GradFlow& stage3_flow() const { return graph->stage3_flow; }
  // ZeRO-3 leaf modules (plan/module_order.h): p is fetched by one, and p's gradient reaches
  // the bucket after `block`'s backward.
  bool leaf_param(int p) const { return graph->leaf_param[p]; }
  bool completes_with(int p, int block) const { return graph->stage3_done_block[p] == block; }
  // A micro-step's blocks and module fetches (plan/micro_step_trace.h), the graph's; trace() is
  // the order in which it runs its blocks.
  const MicroStepTrace& micro_step_trace() const { return graph->trace(checkpointing); }
  std::span<const TraceEntry> trace() const { return micro_step_trace().entries; }

  // Stage 1/2: one flat group padded to a multiple of 2N (stage_1_and_2.py
  // align_dense_tensors; HF's second, no-decay group adds at most 2N more padding).
  std::int64_t padded = 0;                // A
  std::int64_t partition = 0;             // P = A / N
  int rank = 0;                           // the rank described: N-1, owner of the last partition
  std::vector<std::int64_t> flat_offset;  // per param id (aliases: -1)
  std::int64_t owned_full = 0;  // S: full numel of every param touching this rank's partition
  int owned_params = 0;         // how many params touch it (real ones: aliases own nothing)

  // Stage 3 (partition_parameters.py: partition numel ceil(n / N) per parameter).
  std::vector<bool> persistent;               // per param id: not partitioned (numel <= threshold)
  std::vector<std::int64_t> partition_elems;  // per param id: partition_numel(numel)
  std::int64_t psi3 = 0;                      // sum of ceil(n / N): the flat partition buffers
  std::vector<std::int64_t> sub_groups;       // S_j, optimizer tiling (sub_group_size)
  // Per block: its parameters that stage 3 gathers (the non-persistent ones), as ranges of one
  // array (gathered_begin has blocks + 1 offsets into gathered_ids).
  std::vector<int> gathered_begin;
  std::vector<int> gathered_ids;
  std::span<const int> gathered_params(int block) const {
    return {gathered_ids.data() + gathered_begin[block],
            static_cast<std::size_t>(gathered_begin[block + 1] - gathered_begin[block])};
  }

  std::int64_t partition_numel(std::int64_t numel) const { return (numel + world - 1) / world; }
  // True when parameter `id`'s slice of the flat group lies in ranks spanning `ranks` > 1.
  int ranks_spanned(int id) const;
  bool owned_by_rank(int id) const;
  // Elements of parameter `id` inside this rank's stage-1/2 partition.
  std::int64_t owned_elems(int id) const;
  // Transformer layers are 0..L-1; the embedding is -1 and the final norm, head and loss are L.
  // A block is checkpointed when its layer is a transformer layer and checkpointing is on.
  bool is_checkpointed(int block) const {
    return block_checkpointed(graph->blocks, block, checkpointing);
  }
  bool first_of_layer(int block) const { return plan::first_of_layer(graph->blocks, block); }
  bool last_of_layer(int block) const { return plan::last_of_layer(graph->blocks, block); }
};

// kInvalidArgument when the request cannot be planned: batch keys still "auto" or unset, a
// world size that differs from the cluster's, a sequence longer than the model allows.
Result<Layout> make_layout(const PlanRequest& request);

}  // namespace zs::plan
