// Internal to plan/: DeepSpeed's gradient bucket (the IPG bucket) bookkeeping, shared by the
// stage 1/2 and stage 3 schedules. A bucket is reduced when the next gradient would overflow
// reduce_bucket_size (stage_1_and_2.py reduce_independent_p_g_buckets_and_remove_grads,
// stage3.py reduce_partition_and_remove_grads); a parameter larger than the bucket keeps its own
// gradient tensor until that reduction.
#pragma once

#include <string>
#include <vector>

#include "plan/builder.h"

namespace zs::plan {

class GradBucket {
 public:
  // `own_grad_for_large`: a parameter larger than the bucket allocates its own gradient tensor
  // (false where the full gradient already exists, as in stage 1).
  GradBucket(PlanBuilder& b, std::string label, bool own_grad_for_large)
      : b_(b), label_(std::move(label)), own_for_large_(own_grad_for_large) {}

  // True when adding parameter p must first reduce the current bucket.
  bool would_overflow(int p) const {
    const std::int64_t n = b_.layout().params()[p].numel;
    return elems_ > 0 && elems_ + n > b_.layout().bucket_elems;
  }

  // True when p's gradient is a tensor of the bucket's own, allocated by add(): p is larger
  // than the bucket and the bucket owns such gradients.
  bool owns_grad(int p) const {
    return own_for_large_ && b_.layout().params()[p].numel > b_.layout().bucket_elems;
  }

  // Adds p's gradient, produced by op `producer` (or, when it waited for a ZeRO-3 leaf module's
  // backward to end, created earlier by op `created`).
  void add(int p, int producer, int created = -1) {
    const Layout& l = b_.layout();
    const std::int64_t n = l.params()[p].numel;
    if (owns_grad(p)) {
      own_.push_back(b_.buffer(b_.name(label_, ".grad.", l.params()[p].name), n * l.param_bytes,
                               Device::kGpu, Category::kGrads));
      b_.alloc(created >= 0 ? created : producer, own_.back());
    }
    params_.push_back(p);
    elems_ += n;
  }

  bool empty() const { return params_.empty(); }
  const std::vector<int>& params() const { return params_; }
  std::int64_t elems() const { return elems_; }

  // After the reduction op `op`: frees the large parameters' own gradients and empties the bucket.
  void reduced(int op) {
    for (int own : own_) b_.free(op, own);
    own_.clear();
    params_.clear();
    elems_ = 0;
  }

 private:
  PlanBuilder& b_;
  std::string label_;
  bool own_for_large_;
  std::vector<int> own_;
  std::vector<int> params_;
  std::int64_t elems_ = 0;
};

}  // namespace zs::plan
