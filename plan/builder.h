// Internal to plan/: the pieces every stage's schedule is built from. PlanBuilder appends
// streams, buffers, ops and segments to a Plan; emit_micro_step emits the model's forward and
// backward for one micro-step (with activation buffers and recomputation) and lets the stage
// add its own work around each block through MicroStepHooks.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/layout.h"
#include "plan/plan.h"

namespace zs::plan {

class PlanBuilder {
 public:
  explicit PlanBuilder(const Layout& layout) : l_(layout) {}

  const Layout& layout() const { return l_; }
  Plan& plan() { return plan_; }

  // Streams, created on first use. Without overlap_comm DeepSpeed runs its collectives on the
  // current (compute) stream, so reduce_stream()/gather_stream() return the compute stream.
  int compute_stream();
  int reduce_stream();
  int gather_stream();
  int h2d_stream();
  int d2h_stream();
  int cpu_stream();
  int nvme_stream();

  int persistent(std::string name, Bytes bytes, Device device, Category category,
                 bool model_state = false);
  int buffer(std::string name, Bytes bytes, Device device, Category category,
             bool model_state = false);

  // Appends an op; returns its id. The op also depends on the last op issued on its stream
  // only implicitly (streams are FIFO); `deps` are the cross-stream dependencies.
  int op(std::string name, int stream, Phase phase, Work work, std::vector<int> deps = {});
  Op& at(int id) { return plan_.ops[id]; }
  void alloc(int op_id, int buffer_id) { plan_.ops[op_id].allocs.push_back(buffer_id); }
  void free(int op_id, int buffer_id) { plan_.ops[op_id].frees.push_back(buffer_id); }
  int last_op() const { return static_cast<int>(plan_.ops.size()) - 1; }

  void begin_segment(std::string name, int repeat);
  void end_segment();

  Plan finish(std::string summary);

 private:
  int stream(int* slot, const char* name, StreamKind kind);

  const Layout& l_;
  Plan plan_;
  int compute_ = -1, reduce_ = -1, gather_ = -1, h2d_ = -1, d2h_ = -1, cpu_ = -1, nvme_ = -1;
  std::optional<Segment> open_;
};

// What the stage adds around the model's blocks in one micro-step.
struct MicroStepHooks {
  // Before block `b` runs in `pass`: ops the compute must wait for (stage-3 fetches).
  std::function<std::vector<int>(int b, Pass pass)> before = [](int, Pass) {
    return std::vector<int>();
  };
  // After block `b`'s compute op `op` was issued in `pass`.
  std::function<void(int b, Pass pass, int op)> after = [](int, Pass, int) {};
  // After the last backward block: the backward epilogue.
  std::function<void(int last_op)> end_backward = [](int) {};
};

// One step of a micro-step's compute: block `block` run in `pass`. Backward recomputes a
// checkpointed layer's blocks just before the layer's own backward.
struct TraceEntry {
  int block = 0;
  Pass pass = Pass::kForward;
};

// The order in which one micro-step runs its blocks (what DeepSpeed's stage-3 coordinator
// records as its trace): every block forward, then backward from the last block, with the
// blocks of each checkpointed layer recomputed just before that layer's backward.
std::vector<TraceEntry> micro_step_trace(const Layout& l);

// Transformer layers are 0..L-1; the embedding is -1 and the final norm, head and loss are L.
bool is_checkpointed(const Layout& l, int block);

// The label a micro-step's op and buffer names start with ("mb0", "mb1-6", ...).
std::string micro_step_label(int first, int last);

// Emits forward then backward of one micro-step: one compute op per block and pass, activation
// buffers allocated in forward and freed in backward, the logits held until backward ends
// (models/activations.h), and, with checkpointing, each layer's input kept in forward and its
// blocks recomputed just before their backward. Returns the id of the last backward op.
int emit_micro_step(PlanBuilder& b, const std::string& label, const MicroStepHooks& hooks);

}  // namespace zs::plan
