// What a mixture-of-experts model's routed experts take of a simulated step: their share of the
// parameters (and so of the model states ZeRO partitions per parameter, and of stage 3's
// gathered and reduced bytes), of the GPU kernel time of the model, and how ZeRO-3 hooks the
// MoE blocks (leaf modules, configs/leaf_module.h). Read from a SimulationResult; nothing is
// re-simulated.
#pragma once

#include <cstdint>
#include <optional>

#include "common/units.h"
#include "sim/simulate.h"

namespace zs::sim {

struct ExpertShare {
  std::int64_t expert_params = 0;  // every routed expert's tensors
  std::int64_t router_params = 0;  // the routers' linear layers
  std::int64_t params = 0;         // the model's trainable parameters
  // Per token: the dense parameters plus top_k / num_experts of the experts'.
  std::int64_t active_params = 0;
  double param_fraction = 0;     // expert_params / params
  Bytes model_states_bytes = 0;  // the experts' part of the per-GPU model states
  // One micro-step's GPU kernels (forward and backward, no recomputation): the router, routing
  // and expert ops, and the whole model's.
  double kernel_s = 0;
  double model_kernel_s = 0;
  int moe_blocks = 0;   // MoE blocks (one per layer past DeepSeek's dense first ones)
  int leaf_blocks = 0;  // of them, ZeRO-3 leaf modules (the whole block fetched as one)
};

// nullopt for a model without experts (a dense one, or a DeepSeek one whose every layer is
// dense).
std::optional<ExpertShare> expert_share(const SimulationResult& r);

}  // namespace zs::sim
