#include "plan/step_memory.h"

namespace zs::plan {

StepMemory step_memory(const BuiltPlan& built, const models::ModelSpec& model,
                       const configs::Cluster& cluster, const MemoryRequest& request) {
  MemoryOptions mo;
  mo.gpu_capacity_bytes = cluster.gpu_memory_bytes();
  mo.host_capacity_bytes = cluster.node.host_memory_bytes;
  mo.ranks_per_node = cluster.gpus_per_node;
  mo.fragmentation = request.fragmentation;
  mo.allocator_only_near_capacity = request.allocator_near_capacity_only;
  if (cluster.gpu.backend == "cpu") {  // no CUDA context, no NCCL
    mo.cuda_context_bytes = 0;
    mo.nccl_workspace_bytes = 0;
  }
  StepMemory out;
  if (request.load_dtype) {
    const auto dtype = parse_load_dtype(model.checkpoint_dtype);
    // The graph's trainable parameters (= model_facts().params).
    out.load = model_load(*request.load_dtype, dtype.value_or(LoadDtype::kAuto), built.layout.psi,
                          built.layout.stage);
    mo.host_load_bytes_per_rank = out.load->per_rank_bytes;
  }
  out.memory = replay_memory(built.plan, mo);
  return out;
}

}  // namespace zs::plan
