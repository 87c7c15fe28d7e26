#include "exec/rank_tensors.h"

#include <variant>

namespace zs::exec {

bool moves_gradients(const plan::Plan& plan) {
  for (const plan::Op& op : plan.ops) {
    const auto* c = std::get_if<plan::CopyWork>(&op.work);
    if (c != nullptr && c->role == plan::CopyRole::kGradients) return true;
  }
  return false;
}

}  // namespace zs::exec
