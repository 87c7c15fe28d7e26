#include "plan/layout.h"

#include <algorithm>

#include "models/op_graph.h"

namespace zs::plan {
namespace {

Bytes dtype_bytes(const std::string& name) {
  if (name == "fp32" || name == "float32" || name == "float" || name == "torch.float32") return 4;
  if (name == "int8" || name == "torch.int8") return 1;
  return 2;
}

Status need(bool ok, const std::string& msg) {
  return ok ? Status::ok() : Status::invalid_argument(msg);
}

}  // namespace

int Layout::ranks_spanned(int id) const {
  const std::int64_t off = flat_offset[id];
  const std::int64_t n = params[id].numel;
  if (off < 0 || n == 0) return 0;
  const std::int64_t first = off / partition;
  const std::int64_t last = (off + n - 1) / partition;
  return static_cast<int>(last - first + 1);
}

bool Layout::owned_by_rank(int id) const {
  const std::int64_t off = flat_offset[id];
  if (off < 0) return false;
  const std::int64_t lo = static_cast<std::int64_t>(rank) * partition;
  return off < lo + partition && off + params[id].numel > lo;
}

std::int64_t Layout::owned_elems(int id) const {
  const std::int64_t off = flat_offset[id];
  if (off < 0) return 0;
  const std::int64_t lo = static_cast<std::int64_t>(rank) * partition;
  const std::int64_t hi = lo + partition;
  return std::max<std::int64_t>(0, std::min(hi, off + params[id].numel) - std::max(lo, off));
}

Result<Layout> make_layout(const PlanRequest& r) {
  ZS_CHECK(r.config != nullptr && r.model != nullptr && r.cluster != nullptr);
  const configs::DsConfig& c = *r.config;
  const auto& batch = c.batch;
  ZS_RETURN_IF_ERROR(need(batch.micro_batch_per_gpu.is_set() && !batch.micro_batch_per_gpu.is_auto(),
                          "train_micro_batch_size_per_gpu is not known: set it in the config or "
                          "pass --micro-batch"));
  ZS_RETURN_IF_ERROR(need(batch.gradient_accumulation_steps.is_set() &&
                              !batch.gradient_accumulation_steps.is_auto(),
                          "gradient_accumulation_steps is not known: set it in the config or pass "
                          "--grad-accum"));
  ZS_RETURN_IF_ERROR(need(r.seq_len > 0, "the sequence length must be positive (--seq-len)"));
  Layout l;
  l.stage = static_cast<int>(c.zero.stage.value);
  l.world = r.cluster->world_size();
  l.micro_steps = static_cast<int>(batch.gradient_accumulation_steps.value);
  l.micro_batch = batch.micro_batch_per_gpu.value;
  l.seq_len = r.seq_len;
  l.precision = configs::training_precision(c);
  l.param_bytes = l.precision == configs::Precision::kFp32 ? 4 : 2;
  l.comm_bytes = c.comm.communication_data_type.is_set()
                     ? dtype_bytes(c.comm.communication_data_type.value)
                     : l.param_bytes;
  l.accum_bytes = c.data_types.grad_accum_dtype.is_set()
                      ? dtype_bytes(c.data_types.grad_accum_dtype.value)
                      : l.param_bytes;
  l.overlap_comm = c.zero.overlap_comm.value;
  l.contiguous_gradients = c.zero.contiguous_gradients.value;
  l.bucket_elems = std::max<std::int64_t>(1, c.zero.reduce_bucket_size.value);
  l.checkpointing = r.activation_checkpointing;
  if (l.stage > 0) {
    const auto& oo = c.zero.offload_optimizer;
    l.offload_optimizer = oo.device.value != "none";
    l.optimizer_on_nvme = l.stage == 3 && oo.device.value == "nvme";
    l.pin_optimizer = oo.pin_memory.value;
    l.offload_ratio = l.stage == 3 ? oo.ratio.value : 1.0;
    // stage_1_and_2.py forces contiguous gradients with CPU offload.
    if (l.offload_optimizer && l.stage < 3) l.contiguous_gradients = true;
  }
  if (l.stage == 3) {
    const auto& op = c.zero.offload_param;
    l.offload_param = op.device.value != "none";
    l.param_on_nvme = op.device.value == "nvme";
    l.pin_param = op.pin_memory.value;
  }

  const models::Workload w{l.micro_batch, l.seq_len, l.param_bytes, r.flash_attention};
  ZS_RETURN_IF_ERROR(models::validate_workload(*r.model, w));
  l.hidden = r.model->hidden_size;
  l.params = models::parameter_tensors(*r.model);
  l.ops = models::forward_ops(*r.model, w);
  l.blocks = make_blocks(l.ops, l.params);
  l.grad_order = models::gradient_ready_order(*r.model);
  l.flat_offset.assign(l.params.size(), -1);
  std::int64_t offset = 0;
  for (const models::ParamTensor& p : l.params) {
    if (p.tied) continue;
    l.real_params.push_back(p.id);
    l.flat_offset[p.id] = offset;
    offset += p.numel;
    l.largest_param = std::max(l.largest_param, p.numel);
  }
  l.psi = offset;

  // Stage 1/2 partitions (stage_1_and_2.py: pad to a multiple of 2N, N equal partitions).
  const std::int64_t align = 2LL * l.world;
  l.padded = (l.psi + align - 1) / align * align;
  l.partition = l.padded / l.world;
  l.rank = l.world - 1;
  for (int id : l.real_params) {
    if (l.owned_by_rank(id)) l.owned_full += l.params[id].numel;
  }

  // Stage 3 (parameter_offload.py persistence; stage3.py sub-groups).
  l.persistent.assign(l.params.size(), false);
  std::int64_t persistent_total = 0;
  std::int64_t group = 0;
  for (int id : l.real_params) {
    const std::int64_t n = l.params[id].numel;
    if (n <= c.zero.param_persistence_threshold.value &&
        persistent_total + n <= c.zero.model_persistence_threshold.value) {
      l.persistent[id] = true;
      persistent_total += n;
    }
    const std::int64_t pn = l.partition_numel(n);
    l.psi3 += pn;
    group += pn;
    if (group >= c.zero.sub_group_size.value) {
      l.sub_groups.push_back(group);
      group = 0;
    }
  }
  if (group > 0) l.sub_groups.push_back(group);
  return l;
}

}  // namespace zs::plan
