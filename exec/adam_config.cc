#include "exec/adam_config.h"

#include <string>

namespace zs::exec {

Result<kernels::cpu::AdamConfig> adam_config(const configs::DsConfig& c) {
  kernels::cpu::AdamConfig a;
  a.lr = 5e-5f;
  const configs::OptimizerConfig& o = c.optimizer;
  if (!o.present) return a;
  const std::string& type = o.type.value;
  if (type != "Adam" && type != "AdamW" && type != "adam" && type != "adamw") {
    return Status::invalid_argument("optimizer.type: \"" + type +
                                    "\" is not implemented by `zerosim run` (Adam or AdamW)");
  }
  // ops/adam/fused_adam.py: "AdamW" always decays decoupled; "Adam" unless adam_w_mode is off.
  const bool adamw = type == "AdamW" || type == "adamw" || o.adam_w_mode.value;
  a.mode = adamw ? kernels::cpu::AdamMode::kAdamW : kernels::cpu::AdamMode::kL2;
  if (o.lr.is_set() && !o.lr.is_auto()) a.lr = static_cast<float>(o.lr.value);
  if (o.eps.is_set() && !o.eps.is_auto()) a.eps = static_cast<float>(o.eps.value);
  if (o.weight_decay.is_set() && !o.weight_decay.is_auto()) {
    a.weight_decay = static_cast<float>(o.weight_decay.value);
  }
  if (o.betas.is_set() && !o.betas.is_auto()) {
    if (o.betas.value.size() != 2) {
      return Status::invalid_argument("optimizer.params.betas: expected two numbers");
    }
    a.beta1 = static_cast<float>(o.betas.value[0]);
    a.beta2 = static_cast<float>(o.betas.value[1]);
  }
  return a;
}

}  // namespace zs::exec
