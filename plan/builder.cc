#include "plan/builder.h"

#include <algorithm>
#include <vector>

#include "common/check.h"

namespace zs::plan {

PlanBuilder::PlanBuilder(const Layout& layout, bool names) : l_(layout), names_(names) {
  // Room for one micro-step (stage 3 issues about 1.6 ops per trace entry, stages 0-2 fewer);
  // plans of several distinct micro-steps grow from there. Memory reserved but never written
  // is not free either: a sweep's working set has to stay in the core's cache.
  const std::size_t ops = layout.trace().size() * 2 + 64;
  plan_.ops.reserve(ops);
  plan_.buffers.reserve(ops / 2);
  plan_.dep_ids.reserve(ops);
  if (names_) plan_.names.reserve(48 * ops);
}

IdRange PlanBuilder::whole_params(std::span<const int> params) {
  if (!names_) return {};
  IdRange r;
  r.begin = static_cast<std::uint32_t>(plan_.param_slices.size());
  for (int p : params) plan_.param_slices.push_back({p, 0, l_.params()[p].numel});
  r.end = static_cast<std::uint32_t>(plan_.param_slices.size());
  return r;
}

IdRange PlanBuilder::flat_group() {
  if (!names_) return {};
  std::vector<int> order;
  for (int p : l_.real_params()) {
    if (l_.flat_offset[p] >= 0) order.push_back(p);
  }
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return l_.flat_offset[a] < l_.flat_offset[b]; });
  return whole_params(order);
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
  if (!pending_calls_.empty()) {
    o.host_calls = pending_calls_;
    pending_calls_ = HostCalls{};
  }
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
  ZS_CHECK(open_.has_value() && pending_calls_.empty());  // a segment holds its own hooks
  open_->end_op = static_cast<int>(plan_.ops.size());
  plan_.segments.push_back(*open_);
  open_.reset();
}

Plan PlanBuilder::finish(std::string summary) {
  ZS_CHECK(!open_.has_value() && pending_wait_ < 0 && pending_calls_.empty());
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

MicroStepCompute::MicroStepCompute(PlanBuilder& b, std::string label)
    : b_(b),
      l_(b.layout()),
      trace_(l_.trace()),
      label_(std::move(label)),
      // Checkpointing keeps each layer's input: e bytes per token per hidden unit.
      checkpoint_bytes_(l_.micro_batch * l_.seq_len * l_.hidden * l_.param_bytes),
      act_(l_.blocks().size(), -1),
      ckpt_(l_.blocks().size(), -1) {
  // The block of the GEMM whose logits the loss reads: the LM head, or an encoder's head.
  const models::Op& loss = l_.ops().back();
  ZS_CHECK(loss.kind == models::OpKind::kCrossEntropy && !loss.inputs.empty());
  for (int i = 0; i < static_cast<int>(l_.blocks().size()); ++i) {
    if (l_.blocks()[i].first_op == loss.inputs[0]) lm_head_ = i;
  }
  b_.compute_stream();  // the first stream, before any the stage's work creates
}

int MicroStepCompute::run(std::span<const int> deps) {
  ZS_CHECK(!done());
  const TraceEntry& t = trace_[pos_++];
  const Block& blk = l_.blocks()[t.block];
  // engine.backward() wraps loss.backward() (engine.forward: begin_micro_steps).
  if (t.pass != Pass::kForward && !backward_begun_) {
    backward_begun_ = true;
    b_.host_calls_before_next(HostTask::kEngineBackward, 1);
  }
  ComputeWork work = compute_work(blk, t.pass);
  const bool ckpt_block = l_.is_checkpointed(t.block);
  if (t.pass == Pass::kForward) {
    work.begins_micro_step = blk.first_op == 0;
    work.ends_micro_step = blk.last_op == static_cast<int>(l_.ops().size()) - 1;
    if (ckpt_block && l_.last_of_layer(t.block)) {
      int first = t.block;
      while (!l_.first_of_layer(first)) --first;
      work.drop_first_model_op = l_.blocks()[first].first_op;
    }
  }
  const int id = b_.op(b_.name(label_, ".", pass_name(t.pass), ".", blk.name), b_.compute_stream(),
                       t.pass == Pass::kForward ? Phase::kForward : Phase::kBackward, work, deps);
  if (t.pass == Pass::kForward) {
    if (ckpt_block && l_.first_of_layer(t.block)) {
      ckpt_[t.block] = b_.buffer(b_.name(label_, ".ckpt.layer", blk.layer), checkpoint_bytes_,
                                 Device::kGpu, Category::kActivations);
      b_.alloc(id, ckpt_[t.block]);
    } else if (!ckpt_block && blk.saved_bytes > 0) {
      act_[t.block] = b_.buffer(b_.name(label_, ".act.", blk.name), blk.saved_bytes, Device::kGpu,
                                Category::kActivations);
      b_.alloc(id, act_[t.block]);
    }
    if (t.block == lm_head_) {
      // The training loop holds the output's logits through backward (models/activations.h).
      const auto& shape = std::get<models::GemmShape>(l_.ops()[blk.first_op].shape);
      logits_ = b_.buffer({label_, ".logits"}, shape.m * shape.n * l_.param_bytes, Device::kGpu,
                          Category::kActivations);
      b_.alloc(id, logits_);
    }
  } else if (t.pass == Pass::kRecompute) {
    // The first block's saved input is the checkpoint itself, not a new tensor.
    const Bytes reused =
        l_.first_of_layer(t.block) ? std::min(blk.saved_bytes, checkpoint_bytes_) : 0;
    if (blk.saved_bytes > reused) {
      act_[t.block] = b_.buffer(b_.name(label_, ".recomputed.", blk.name), blk.saved_bytes - reused,
                                Device::kGpu, Category::kActivations);
      b_.alloc(id, act_[t.block]);
    }
  } else {
    b_.at(id).transient_bytes = blk.bwd_working_bytes;
    if (act_[t.block] >= 0) b_.free(id, act_[t.block]);
    if (ckpt_[t.block] >= 0) b_.free(id, ckpt_[t.block]);
    last_backward_ = id;
  }
  return id;
}

int MicroStepCompute::finish() {
  ZS_CHECK(done());
  if (logits_ >= 0) b_.free(last_backward_, logits_);
  return last_backward_;
}

}  // namespace zs::plan
