#include "plan/layout.h"

#include <algorithm>

namespace zs::plan {
namespace {

// A ds_config dtype name (communication_data_type, grad_accum_dtype) as the Plan's Dtype;
// `otherwise` when unset. DeepSpeed accepts fp32/fp16/bf16 and torch's spellings
// (runtime/config.py get_communication_data_type).
Dtype dtype_of(const configs::Knob<std::string>& knob, Dtype otherwise) {
  if (!knob.is_set()) return otherwise;
  const std::string& name = knob.value;
  if (name == "fp32" || name == "float32" || name == "float" || name == "torch.float32") {
    return Dtype::kFp32;
  }
  if (name == "bf16" || name == "bfloat16" || name == "torch.bfloat16") return Dtype::kBf16;
  if (name == "int8" || name == "torch.int8") return Dtype::kU8;
  return Dtype::kFp16;
}

Status need(bool ok, const std::string& msg) {
  return ok ? Status::ok() : Status::invalid_argument(msg);
}

// The batch a plan needs: the micro-batch and the accumulation steps resolved, a sequence.
Status check_batch(const PlanRequest& r) {
  const auto& batch = r.config->batch;
  ZS_RETURN_IF_ERROR(
      need(batch.micro_batch_per_gpu.is_set() && !batch.micro_batch_per_gpu.is_auto(),
           "train_micro_batch_size_per_gpu is not known: set it in the config or "
           "pass --micro-batch"));
  ZS_RETURN_IF_ERROR(need(
      batch.gradient_accumulation_steps.is_set() && !batch.gradient_accumulation_steps.is_auto(),
      "gradient_accumulation_steps is not known: set it in the config or pass "
      "--grad-accum"));
  return need(r.seq_len > 0, "the sequence length must be positive (--seq-len)");
}

// The stage, the batch, the dtypes and the reduction's knobs.
void read_run(const PlanRequest& r, Layout* l) {
  const configs::DsConfig& c = *r.config;
  l->stage = static_cast<int>(c.zero.stage.value);
  l->world = r.cluster->world_size();
  l->micro_steps = static_cast<int>(c.batch.gradient_accumulation_steps.value);
  l->micro_batch = c.batch.micro_batch_per_gpu.value;
  l->seq_len = r.seq_len;
  l->precision = configs::training_precision(c);
  l->param_dtype = l->precision == configs::Precision::kFp32   ? Dtype::kFp32
                   : l->precision == configs::Precision::kBf16 ? Dtype::kBf16
                                                               : Dtype::kFp16;
  l->comm_dtype = dtype_of(c.comm.communication_data_type, l->param_dtype);
  l->accum_dtype = dtype_of(c.data_types.grad_accum_dtype, l->param_dtype);
  l->param_bytes = dtype_size(l->param_dtype);
  l->comm_bytes = dtype_size(l->comm_dtype);
  l->accum_bytes = dtype_size(l->accum_dtype);
  l->overlap_comm = c.zero.overlap_comm.value;
  l->timer_sync =
      (c.logging.throughput_timer_enabled.value && c.logging.throughput_timer_synchronized.value) ||
      c.logging.wall_clock_breakdown.value;
  // engine.py _configure_zero_optimizer: bf16 reads bf16.check_grad_overflow, fp16 always
  // checks, fp32 never.
  l->check_overflow =
      l->precision == configs::Precision::kFp16 ||
      (l->precision == configs::Precision::kBf16 && c.bf16.check_grad_overflow.value);
  l->contiguous_gradients = c.zero.contiguous_gradients.value;
  l->reduce_scatter = c.zero.reduce_scatter.value;
  l->multi_rank_allreduce = c.zero.use_multi_rank_bucket_allreduce.value;
  l->bucket_elems = std::max<std::int64_t>(1, c.zero.reduce_bucket_size.value);
  l->checkpointing = r.activation_checkpointing;
}

// Bytes of optimizer state per parameter element: Adam's and most others' two fp32 moments,
// Adagrad's and Lion's one, torch's SGD and RMSprop one.
Bytes optimizer_state_bytes(const configs::DsConfig& c) {
  using configs::OptimizerKind;
  switch (c.optimizer.kind) {
    case OptimizerKind::kAdagrad:
    case OptimizerKind::kLion:
      return 4;
    case OptimizerKind::kTorch:
      return c.optimizer.type.value == "SGD" || c.optimizer.type.value == "RMSprop" ? 4 : 8;
    default:
      return 8;
  }
}

// The optimizer, the step's clipping, the release's IPG rule and stage 3's knobs.
void read_step(const configs::DsConfig& c, Layout* l) {
  l->optimizer_state_bytes = optimizer_state_bytes(c);
  // engine.py _configure_basic_optimizer, _configure_fp16_optimizer.
  l->fused_adam = l->precision != configs::Precision::kFp32 && c.optimizer.present &&
                  !c.optimizer.torch_adam.value &&
                  (c.optimizer.kind == configs::OptimizerKind::kAdam ||
                   c.optimizer.kind == configs::OptimizerKind::kAdamW);
  l->clip_gradients = c.gradient_clipping.value > 0;
  l->ipg_at_first_grad_hook = !(c.version < configs::kIpgBuffersAtFirstGradHook);
  l->max_live_parameters = c.zero.max_live_parameters.value;
  l->prefetch_bucket_size = c.zero.prefetch_bucket_size.value;
  l->max_reuse_distance = c.zero.max_reuse_distance.value;
  l->hpz_group = static_cast<int>(std::max<std::int64_t>(1, c.zero.zero_hpz_partition_size.value));
}

// Where the optimizer states and (stage 3) the parameters are offloaded.
void read_offload(const configs::DsConfig& c, Layout* l) {
  if (l->stage > 0) {
    const auto& oo = c.zero.offload_optimizer;
    l->offload_optimizer = oo.device.value != "none";
    l->optimizer_on_nvme = l->stage == 3 && oo.device.value == "nvme";
    l->pin_optimizer = oo.pin_memory.value;
    l->offload_ratio = l->stage == 3 ? oo.ratio.value : 1.0;
    // stage_1_and_2.py forces contiguous gradients with CPU offload.
    if (l->offload_optimizer && l->stage < 3) l->contiguous_gradients = true;
  }
  if (l->stage == 3) {
    const auto& op = c.zero.offload_param;
    l->offload_param = op.device.value != "none";
    l->param_on_nvme = op.device.value == "nvme";
    l->pin_param = op.pin_memory.value;
    l->param_max_in_cpu = op.max_in_cpu.value;
    l->param_swap_buffers = op.buffer_count.value;
    l->param_swap_buffer_elems = op.buffer_size.value;
    l->optimizer_swap_buffers = c.zero.offload_optimizer.buffer_count.value;
  }
}

// The model graph: the request's when it matches the workload and leaf modules (a sweep shares
// one), else a new one. A family without an SDPA path (BLOOM) runs its eager attention whatever
// was asked. Leaf modules are read at every stage, used by stage 3's.
Status attach_graph(const PlanRequest& r, Layout* l) {
  const configs::DsConfig& c = *r.config;
  const models::Workload w{l->micro_batch, l->seq_len, l->param_bytes,
                           r.flash_attention && models::supports_sdpa(*r.model), r.target_len};
  configs::LeafModules leaves;
  if (auto issue = configs::read_leaf_modules(
          c.zero.leaf_module.is_set() ? &c.zero.leaf_module.value : nullptr, c.version, &leaves)) {
    return Status::invalid_argument(issue->path + ": " + issue->message);
  }
  if (r.graph != nullptr && r.graph->matches(*r.model, w, leaves)) {
    l->graph = r.graph;
  } else {
    ZS_ASSIGN_OR_RETURN(l->graph, make_model_graph(*r.model, w, leaves));
  }
  l->hidden = l->graph->hidden;
  l->psi = l->graph->psi;
  l->largest_param = l->graph->largest_param;
  return Status::ok();
}

// The flat 16-bit group of stages 1/2: parameters in registration order or, with
// round_robin_gradients, the i-th with i mod N = 0 first, then 1, ... (stage_1_and_2.py
// _round_robin_reorder; flatten_dense_tensors_aligned(round_robin_bit16_groups)); padded to a
// multiple of 2N and cut into N equal partitions, of which the last rank's is described.
void flat_group(const configs::DsConfig& c, Layout* l) {
  const ModelGraph& g = *l->graph;
  l->flat_offset.assign(g.params.size(), -1);
  std::int64_t offset = 0;
  const int lanes =
      l->stage >= 1 && l->stage <= 2 && c.zero.round_robin_gradients.value ? l->world : 1;
  const int real = static_cast<int>(g.real_params.size());
  for (int lane = 0; lane < lanes; ++lane) {
    for (int i = lane; i < real; i += lanes) {
      const int id = g.real_params[i];
      l->flat_offset[id] = offset;
      offset += g.params[id].numel;
    }
  }
  const std::int64_t align = 2LL * l->world;
  l->padded = (l->psi + align - 1) / align * align;
  l->partition = l->padded / l->world;
  l->rank = l->world - 1;
  for (int id : g.real_params) {
    if (!l->owned_by_rank(id)) continue;
    l->owned_full += g.params[id].numel;
    ++l->owned_params;
  }
}

// Stage 3's partitions (parameter_offload.py persistence; stage3.py sub-groups) and the
// parameters each block gathers.
void stage3_partitions(const configs::DsConfig& c, Layout* l) {
  const ModelGraph& g = *l->graph;
  l->persistent.assign(g.params.size(), false);
  l->partition_elems.resize(g.params.size());
  for (std::size_t id = 0; id < g.params.size(); ++id) {
    l->partition_elems[id] = l->partition_numel(g.params[id].numel);
  }
  std::int64_t persistent_total = 0;
  std::int64_t group = 0;
  for (int id : g.real_params) {
    const std::int64_t n = g.params[id].numel;
    if (n <= c.zero.param_persistence_threshold.value &&
        persistent_total + n <= c.zero.model_persistence_threshold.value) {
      l->persistent[id] = true;
      persistent_total += n;
    }
    const std::int64_t pn = l->partition_elems[id];
    l->psi3 += pn;
    group += pn;
    if (group >= c.zero.sub_group_size.value) {
      l->sub_groups.push_back(group);
      group = 0;
    }
  }
  if (group > 0) l->sub_groups.push_back(group);
  l->gathered_begin.assign(g.blocks.size() + 1, 0);
  for (std::size_t b = 0; b < g.blocks.size(); ++b) {
    for (int p : g.blocks[b].params) {
      if (!l->persistent[p]) l->gathered_ids.push_back(p);
    }
    l->gathered_begin[b + 1] = static_cast<int>(l->gathered_ids.size());
  }
}

}  // namespace

int Layout::ranks_spanned(int id) const {
  const std::int64_t off = flat_offset[id];
  const std::int64_t n = params()[id].numel;
  if (off < 0 || n == 0) return 0;
  const std::int64_t first = off / partition;
  const std::int64_t last = (off + n - 1) / partition;
  return static_cast<int>(last - first + 1);
}

bool Layout::owned_by_rank(int id) const {
  const std::int64_t off = flat_offset[id];
  if (off < 0) return false;
  const std::int64_t lo = static_cast<std::int64_t>(rank) * partition;
  return off < lo + partition && off + params()[id].numel > lo;
}

std::int64_t Layout::owned_elems(int id) const {
  const std::int64_t off = flat_offset[id];
  if (off < 0) return 0;
  const std::int64_t lo = static_cast<std::int64_t>(rank) * partition;
  const std::int64_t hi = lo + partition;
  return std::max<std::int64_t>(0, std::min(hi, off + params()[id].numel) - std::max(lo, off));
}

Result<Layout> make_layout(const PlanRequest& r) {
  ZS_CHECK(r.config != nullptr && r.model != nullptr && r.cluster != nullptr);
  ZS_RETURN_IF_ERROR(check_batch(r));
  Layout l;
  read_run(r, &l);
  read_offload(*r.config, &l);
  read_step(*r.config, &l);
  ZS_RETURN_IF_ERROR(attach_graph(r, &l));
  flat_group(*r.config, &l);
  stage3_partitions(*r.config, &l);
  return l;
}

}  // namespace zs::plan
