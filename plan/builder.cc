#include "plan/builder.h"

#include "common/check.h"

namespace zs::plan {

int PlanBuilder::stream(int* slot, const char* name, StreamKind kind) {
  if (*slot < 0) *slot = plan_.add_stream(name, kind);
  return *slot;
}

int PlanBuilder::compute_stream() { return stream(&compute_, "compute", StreamKind::kCompute); }
int PlanBuilder::reduce_stream() {
  return l_.overlap_comm ? stream(&reduce_, "reduce", StreamKind::kCollective) : compute_stream();
}
int PlanBuilder::gather_stream() {
  return l_.overlap_comm ? stream(&gather_, "allgather", StreamKind::kCollective)
                         : compute_stream();
}
int PlanBuilder::h2d_stream() { return stream(&h2d_, "h2d", StreamKind::kCopyH2D); }
int PlanBuilder::d2h_stream() { return stream(&d2h_, "d2h", StreamKind::kCopyD2H); }
int PlanBuilder::cpu_stream() { return stream(&cpu_, "cpu", StreamKind::kCpu); }
int PlanBuilder::nvme_stream() { return stream(&nvme_, "nvme", StreamKind::kNvme); }

int PlanBuilder::persistent(std::string name, Bytes bytes, Device device, Category category,
                            bool model_state) {
  return plan_.add_buffer(
      Buffer{std::move(name), bytes, device, category, model_state ? bytes : 0, true});
}

int PlanBuilder::buffer(std::string name, Bytes bytes, Device device, Category category,
                        bool model_state) {
  return plan_.add_buffer(
      Buffer{std::move(name), bytes, device, category, model_state ? bytes : 0, false});
}

int PlanBuilder::op(std::string name, int stream_id, Phase phase, Work work,
                    std::vector<int> deps) {
  Op o;
  o.name = std::move(name);
  o.stream = stream_id;
  o.phase = phase;
  o.work = std::move(work);
  o.deps = std::move(deps);
  return plan_.add_op(std::move(o));
}

void PlanBuilder::begin_segment(std::string name, int repeat) {
  ZS_CHECK(!open_.has_value());
  const int first = static_cast<int>(plan_.ops.size());
  open_ = Segment{std::move(name), first, first, repeat};
}

void PlanBuilder::end_segment() {
  ZS_CHECK(open_.has_value());
  open_->end_op = static_cast<int>(plan_.ops.size());
  plan_.segments.push_back(*open_);
  open_.reset();
}

Plan PlanBuilder::finish(std::string summary) {
  ZS_CHECK(!open_.has_value());
  plan_.summary = std::move(summary);
  plan_.world_size = l_.world;
  plan_.micro_steps = l_.micro_steps;
  return std::move(plan_);
}

std::string micro_step_label(int first, int last) {
  return first == last ? "mb" + std::to_string(first)
                       : "mb" + std::to_string(first) + "-" + std::to_string(last);
}

namespace {

ComputeWork compute_work(const Block& blk, Pass pass) {
  ComputeWork w;
  w.pass = pass;
  w.first_model_op = blk.first_op;
  w.last_model_op = blk.last_op;
  w.flops = pass == Pass::kBackward ? blk.bwd_flops : blk.fwd_flops;
  w.hbm_bytes = pass == Pass::kBackward ? blk.bwd_hbm_bytes : blk.fwd_hbm_bytes;
  return w;
}

bool first_of_layer(const Layout& l, int i) {
  return i == 0 || l.blocks[i - 1].layer != l.blocks[i].layer;
}

bool last_of_layer(const Layout& l, int i) {
  return i + 1 == static_cast<int>(l.blocks.size()) || l.blocks[i + 1].layer != l.blocks[i].layer;
}

}  // namespace

bool is_checkpointed(const Layout& l, int block) {
  const int layer = l.blocks[block].layer;
  return l.checkpointing && layer >= 0 && layer < l.blocks.back().layer;
}

std::vector<TraceEntry> micro_step_trace(const Layout& l) {
  const int n = static_cast<int>(l.blocks.size());
  std::vector<TraceEntry> trace;
  trace.reserve(3 * n);
  for (int i = 0; i < n; ++i) trace.push_back({i, Pass::kForward});
  for (int i = n - 1; i >= 0; --i) {
    if (is_checkpointed(l, i) && last_of_layer(l, i)) {
      int first = i;
      while (!first_of_layer(l, first)) --first;
      for (int j = first; j <= i; ++j) trace.push_back({j, Pass::kRecompute});
    }
    trace.push_back({i, Pass::kBackward});
  }
  return trace;
}

int emit_micro_step(PlanBuilder& b, const std::string& label, const MicroStepHooks& hooks) {
  const Layout& l = b.layout();
  const int n = static_cast<int>(l.blocks.size());
  const int compute = b.compute_stream();
  // Checkpointing keeps each layer's input: e bytes per token per hidden unit.
  const Bytes checkpoint_bytes = l.micro_batch * l.seq_len * l.hidden * l.param_bytes;
  std::vector<int> act(n, -1);   // the saved (or recomputed) activations of each block
  std::vector<int> ckpt(n, -1);  // the checkpoint, held by the first block of each layer
  int logits = -1;
  int last = -1;
  for (const TraceEntry& t : micro_step_trace(l)) {
    const Block& blk = l.blocks[t.block];
    const int id = b.op(label + "." + std::string(pass_name(t.pass)) + "." + blk.name, compute,
                        t.pass == Pass::kForward ? Phase::kForward : Phase::kBackward,
                        compute_work(blk, t.pass), hooks.before(t.block, t.pass));
    const bool ckpt_block = is_checkpointed(l, t.block);
    if (t.pass == Pass::kForward) {
      if (ckpt_block && first_of_layer(l, t.block)) {
        ckpt[t.block] = b.buffer(label + ".ckpt.layer" + std::to_string(blk.layer),
                                 checkpoint_bytes, Device::kGpu, Category::kActivations);
        b.alloc(id, ckpt[t.block]);
      } else if (!ckpt_block && blk.saved_bytes > 0) {
        act[t.block] = b.buffer(label + ".act." + blk.name, blk.saved_bytes, Device::kGpu,
                                Category::kActivations);
        b.alloc(id, act[t.block]);
      }
      if (blk.name == "lm_head") {
        // The training loop holds the output's logits through backward (models/activations.h).
        const auto& shape = std::get<models::GemmShape>(l.ops[blk.first_op].shape);
        logits = b.buffer(label + ".logits", shape.m * shape.n * l.param_bytes, Device::kGpu,
                          Category::kActivations);
        b.alloc(id, logits);
      }
    } else if (t.pass == Pass::kRecompute) {
      // The first block's saved input is the checkpoint itself, not a new tensor.
      const Bytes reused = first_of_layer(l, t.block) ? std::min(blk.saved_bytes, checkpoint_bytes)
                                                      : 0;
      if (blk.saved_bytes > reused) {
        act[t.block] = b.buffer(label + ".recomputed." + blk.name, blk.saved_bytes - reused,
                                Device::kGpu, Category::kActivations);
        b.alloc(id, act[t.block]);
      }
    } else {
      b.at(id).transient_bytes = blk.bwd_working_bytes;
      if (act[t.block] >= 0) b.free(id, act[t.block]);
      if (ckpt[t.block] >= 0) b.free(id, ckpt[t.block]);
      last = id;
    }
    hooks.after(t.block, t.pass, id);
  }
  if (logits >= 0) b.free(last, logits);
  hooks.end_backward(last);
  return last;
}

}  // namespace zs::plan
