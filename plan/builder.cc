#include "plan/builder.h"

#include "common/check.h"

namespace zs::plan {

PlanBuilder::PlanBuilder(const Layout& layout, bool names) : l_(layout), names_(names) {
  // Room for one micro-step (stage 3 issues about 1.6 ops per trace entry, stages 0-2 fewer);
  // plans of several distinct micro-steps grow from there. Memory reserved but never written
  // is not free either: a sweep's working set has to stay in the core's cache.
  const std::size_t ops = layout.trace.size() * 2 + 64;
  plan_.ops.reserve(ops);
  plan_.buffers.reserve(ops / 2);
  plan_.dep_ids.reserve(ops);
  if (names_) plan_.names.reserve(48 * ops);
}

int PlanBuilder::add_stream(int* slot, const char* name, StreamKind kind) {
  *slot = plan_.add_stream(name, kind);
  last_on_.push_back(-1);
  return *slot;
}

int PlanBuilder::h2d_stream() { return stream(&h2d_, "h2d", StreamKind::kCopyH2D); }
int PlanBuilder::d2h_stream() { return stream(&d2h_, "d2h", StreamKind::kCopyD2H); }
int PlanBuilder::host_stream() { return stream(&host_, "host", StreamKind::kCpu); }
int PlanBuilder::nvme_stream() { return stream(&nvme_, "nvme", StreamKind::kNvme); }

int PlanBuilder::persistent(Name name, Bytes bytes, Device device, Category category,
                            bool model_state) {
  return plan_.add_buffer(
      Buffer{make_name(name), bytes, device, category, model_state ? bytes : 0, true});
}

int PlanBuilder::buffer(NameRef name, Bytes bytes, Device device, Category category,
                        bool model_state) {
  return plan_.add_buffer(Buffer{name, bytes, device, category, model_state ? bytes : 0, false});
}

int PlanBuilder::op(NameRef name, int stream_id, Phase phase, const Work& work,
                    std::span<const int> deps) {
  Op& o = plan_.append_op(deps);
  o.name = name;
  o.stream = stream_id;
  o.phase = phase;
  o.work = work;
  o.host_wait_for = pending_wait_;
  pending_wait_ = -1;
  const int id = last_op();
  last_on_[stream_id] = id;
  return id;
}

int PlanBuilder::host_sync(Name name, Phase phase, std::span<const int> deps, int rounds) {
  const int id = op(name, host_stream(), phase, SyncWork{rounds}, deps);
  plan_.ops[id].host_waits = true;
  return id;
}

int PlanBuilder::device_sync(Name name, Phase phase) {
  std::vector<int> deps;
  for (int s = 0; s < static_cast<int>(last_on_.size()); ++s) {
    if (last_on_[s] >= 0 && plan_.streams[s].kind != StreamKind::kCpu) deps.push_back(last_on_[s]);
  }
  return host_sync(name, phase, deps);
}

int PlanBuilder::host_op(Name name, Phase phase, Work work, std::span<const int> deps) {
  const int id = op(name, host_stream(), phase, std::move(work), deps);
  plan_.ops[id].host_waits = true;
  return id;
}

int PlanBuilder::last_on(int stream_id) const { return last_on_[stream_id]; }

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
  ZS_CHECK(!open_.has_value() && pending_wait_ < 0);
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

}  // namespace

int emit_micro_step(PlanBuilder& b, const std::string& label, const MicroStepHooks& hooks) {
  const Layout& l = b.layout();
  const int n = static_cast<int>(l.blocks().size());
  const int compute = b.compute_stream();
  // Checkpointing keeps each layer's input: e bytes per token per hidden unit.
  const Bytes checkpoint_bytes = l.micro_batch * l.seq_len * l.hidden * l.param_bytes;
  std::vector<int> act(n, -1);   // the saved (or recomputed) activations of each block
  std::vector<int> ckpt(n, -1);  // the checkpoint, held by the first block of each layer
  std::vector<int> deps;
  int lm_head = -1;  // the block whose logits the training loop holds through backward
  for (int i = 0; i < n; ++i) {
    if (l.blocks()[i].name == "lm_head") lm_head = i;
  }
  int logits = -1;
  int last = -1;
  for (const TraceEntry& t : l.trace) {
    const Block& blk = l.blocks()[t.block];
    deps.clear();
    hooks.before(t.block, t.pass, &deps);
    const int id = b.op(b.name(label, ".", pass_name(t.pass), ".", blk.name), compute,
                        t.pass == Pass::kForward ? Phase::kForward : Phase::kBackward,
                        compute_work(blk, t.pass), deps);
    const bool ckpt_block = l.is_checkpointed(t.block);
    if (t.pass == Pass::kForward) {
      if (ckpt_block && l.first_of_layer(t.block)) {
        ckpt[t.block] = b.buffer(b.name(label, ".ckpt.layer", blk.layer), checkpoint_bytes,
                                 Device::kGpu, Category::kActivations);
        b.alloc(id, ckpt[t.block]);
      } else if (!ckpt_block && blk.saved_bytes > 0) {
        act[t.block] = b.buffer(b.name(label, ".act.", blk.name), blk.saved_bytes, Device::kGpu,
                                Category::kActivations);
        b.alloc(id, act[t.block]);
      }
      if (t.block == lm_head) {
        // The training loop holds the output's logits through backward (models/activations.h).
        const auto& shape = std::get<models::GemmShape>(l.ops()[blk.first_op].shape);
        logits = b.buffer({label, ".logits"}, shape.m * shape.n * l.param_bytes, Device::kGpu,
                          Category::kActivations);
        b.alloc(id, logits);
      }
    } else if (t.pass == Pass::kRecompute) {
      // The first block's saved input is the checkpoint itself, not a new tensor.
      const Bytes reused =
          l.first_of_layer(t.block) ? std::min(blk.saved_bytes, checkpoint_bytes) : 0;
      if (blk.saved_bytes > reused) {
        act[t.block] = b.buffer(b.name(label, ".recomputed.", blk.name), blk.saved_bytes - reused,
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
