// ModelRunner: one model's training compute on the CPU, op by op, as the executor drives it.
//
// A runner owns, for one ModelSpec and Workload, every buffer the model's kernels touch:
//   parameters   fp32, one flat buffer of num_param_elements(): each non-tied tensor of
//                models::parameter_tensors(spec) at param_offset(id), in registration order (the
//                order DeepSpeed's ZeRO flattens, so the flat span can be partitioned by rank);
//                a tied alias (lm_head.weight) shares its target's storage.
//   gradients    fp32, the same layout. Weight gradients ACCUMULATE over backward passes until
//                zero_grads(), as PyTorch's .grad does under gradient accumulation.
//   activations  per op of models::forward_ops(spec, workload): its output, the gradient of its
//                output, and what its kernel keeps beyond its inputs (norm row statistics, the
//                attention log-sum-exp, GPT-2's q/k/v copied out of the fused qkv output).
// It runs contiguous ranges [first, last] of that op list, the ranges a plan::ComputeWork
// names: forward, backward (the ops in reverse) and recompute, with kernels/cpu only, wired by
// the ops' Op::inputs (models/op_graph.h says what each op's output holds).
//
// Layouts: activations are row-major fp32 (t, width), token index b·s + position. Linear weights
// are stored (out, in) as torch.nn.Linear stores them (kernels/cpu/linear.h), GPT-2's included,
// whose Hugging Face Conv1D tensors are (in, out) (ParamTensor::shape): loading a GPT-2
// checkpoint transposes them.
//
// Numerics: fp32 throughout; Workload::act_bytes is not read (16-bit storage is emulated by
// casts, kernels/cpu/dtype.h). OpKind::kAttention and kFlashAttention both run the flash-style
// kernel of kernels/cpu/attention.h: the choice changes costs, not values. Deterministic: the
// same seed, batches and calls give bitwise the same weights, gradients and losses, however a
// pass is split into ranges and whatever was dropped and recomputed.
//
// Dropout is not implemented. create() rejects a spec with a dropout probability > 0;
// without_dropout() is the spec `zerosim run` trains (llm.c trains GPT-2 without dropout too).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "common/status.h"
#include "exec/activation_ledger.h"
#include "models/model_spec.h"
#include "models/ops.h"
#include "models/parameters.h"

namespace zs::exec {

// `spec` with every dropout probability set to 0.
models::ModelSpec without_dropout(models::ModelSpec spec);

// OK when the CPU kernels can train `spec` on `w`, else kInvalidArgument naming the model, the
// field, its value and what is allowed: validate(spec) and validate_workload(spec, w); a dense
// MLP (no experts); every dropout probability 0; a tanh-approximated GELU ("gelu_new",
// "gelu_pytorch_tanh") for GPT-2 and SiLU ("silu", "swish") for SwiGLU; rope_theta > 0 and an even
// head_dim with rotary positions; seq_len <= sliding_window when there is a window (the kernel
// attends to every earlier token, which only then equals the windowed attention).
Status check_runnable(const models::ModelSpec& spec, const models::Workload& w);

// OK when every id of `tokens` and `targets` is in [0, spec.vocab_size); else kInvalidArgument
// naming the array, the index and the value (set_batch's check, shared with the CUDA runner).
Status check_token_ids(const models::ModelSpec& spec, std::span<const std::int32_t> tokens,
                       std::span<const std::int32_t> targets);

class ModelRunner {
 public:
  // Returns a runner whose weights are GPT-2's initialisation drawn from `seed`
  // (exec/weight_init.h), gradients zero, no batch set and loss scale 1; or check_runnable's
  // error.
  static Result<ModelRunner> create(const models::ModelSpec& spec, const models::Workload& w,
                                    std::uint64_t seed);
  // The bytes create() allocates for `spec` and `w`, counted without allocating them: weights
  // and gradients, every op's output, output gradient and saved extras, the batch.
  // REQUIRES: check_runnable(spec, w) is OK.
  static std::int64_t host_bytes(const models::ModelSpec& spec, const models::Workload& w);

  const models::ModelSpec& spec() const { return spec_; }
  const models::Workload& workload() const { return workload_; }
  // models::forward_ops(spec(), workload()); ranges index into it.
  const std::vector<models::Op>& ops() const { return ops_; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  // models::parameter_tensors(spec()); ids index into it.
  const std::vector<models::ParamTensor>& params() const { return tensors_; }

  // Copies the micro-batch that the embedding (tokens) and the loss (targets) read, each (t)
  // token-major, t = workload().tokens(). Returns kInvalidArgument naming the array, the index
  // and the value when an id is outside [0, vocab_size); the runner then keeps its old batch.
  // REQUIRES: tokens.size() == targets.size() == t.
  Status set_batch(std::span<const std::int32_t> tokens, std::span<const std::int32_t> targets);

  // The gradient the loss's backward starts from, d(objective)/d(mean loss): 1 (the default)
  // for plain training, the loss scale under fp16 loss scaling (exec/loss_scaler.h), which then
  // multiplies every gradient. REQUIRES: dloss finite.
  void set_loss_scale(float dloss);

  // Runs ops first..last forward, in order. Each overwrites its output and saved tensors; the
  // loss op sets loss(). Starts a new backward for these ops: the gradient of each output is
  // rebuilt by its readers' next backward.
  // REQUIRES: 0 <= first <= last < num_ops(); set_batch() has been called (if the range holds
  // the embedding or the loss); every input of every op in range is an op in range or an op
  // already run forward in this micro-step whose output has not been dropped.
  void forward(int first, int last);

  // Runs ops first..last forward again, as activation checkpointing does before their backward,
  // without starting a new backward (gradients of later ops in flight are kept). Restores what
  // drop_activations() poisoned, bitwise as forward() computed it.
  // REQUIRES: as forward(), and forward() has run for these ops in this micro-step with the
  // same parameters and batch.
  void recompute(int first, int last);

  // What activation checkpointing frees after the forward of ops first..last: their saved
  // tensors, and the outputs that no op after `last` reads (the range's own output, read
  // later, is the next checkpoint and is kept). They are filled with NaN and marked dead, so a
  // backward that reads one before recompute() aborts. Storage is kept for recompute().
  // REQUIRES: 0 <= first <= last < num_ops().
  void drop_activations(int first, int last);

  // Runs the backward of ops last..first, in that order. Each op turns the gradient of its
  // output into gradients of its inputs (sent back to the ops that produced them: the first of
  // an output's readers to run overwrites, the others add) and ACCUMULATES its weight
  // gradients into the gradient storage; a tied table gets the sum of both uses.
  // REQUIRES: 0 <= first <= last < num_ops(); every op in range has run forward (and
  // recompute() after a drop) since its last backward, with live saved tensors and live
  // inputs; every reader of each op in range has already run its backward since that op's
  // forward (ranges walk down from the loss, as a plan's backward does).
  void backward(int first, int last);

  // The mean cross-entropy over the t tokens of the last forward (or recompute) of the loss op;
  // NaN before the first.
  double loss() const { return loss_; }

  // Parameter `id`'s storage (ParamTensor::numel elements; a tied alias gives its target's).
  // REQUIRES: 0 <= id < params().size().
  std::span<float> param(int id);
  std::span<const float> param(int id) const;
  // Gradient of parameter `id`, same layout and REQUIRES as param().
  std::span<float> grad(int id);
  std::span<const float> grad(int id) const;
  // Element offset of parameter `id` in the flat spans (a tied alias: its target's).
  // REQUIRES: as param().
  std::int64_t param_offset(int id) const {
    ZS_CHECK(id >= 0 && static_cast<std::size_t>(id) < offsets_.size());
    return offsets_[static_cast<std::size_t>(id)];
  }
  // Every non-tied parameter (gradient), back to back in registration order.
  std::int64_t num_param_elements() const { return static_cast<std::int64_t>(weights_.size()); }
  std::span<float> flat_params() { return weights_; }
  std::span<const float> flat_params() const { return weights_; }
  std::span<float> flat_grads() { return grads_; }
  std::span<const float> flat_grads() const { return grads_; }

  // Sets every weight gradient to 0 (the optimizer step's zero_grad).
  void zero_grads();

  // Elements of an op's output (models/op_graph.h, "Dataflow"); 0 for the loss (a scalar).
  // Shared with the CUDA runner, whose buffers have the same shapes.
  static std::int64_t output_numel(const models::Op& op);
  // Each parameter's element offset in the flat buffers: non-tied tensors back to back in
  // registration order, a tied alias at its target's; *numel gets the flat length.
  static std::vector<std::int64_t> param_offsets(const std::vector<models::ParamTensor>& tensors,
                                                 std::int64_t* numel);
  // The attention both runners' rotary kernels see: the model's heads over the workload's
  // sequences, causal, without dropout (the executor trains without it).
  static models::AttentionShape attention_shape(const models::ModelSpec& spec,
                                                const models::Workload& w);

 private:
  // One op's activations.
  struct OpState {
    std::vector<float> out;    // the op's output (models/op_graph.h, "Dataflow")
    std::vector<float> dout;   // d(objective)/d(out)
    std::vector<float> saved;  // kernel state beyond its inputs (model_runner_ops.cc layout)
  };
  // Where an op's backward writes the gradient of one input: the input's own gradient buffer
  // when this op is the first of its readers to run backward, else scratch added in afterwards.
  struct InputGrad {
    float* data = nullptr;    // what the kernel writes (overwrites)
    float* target = nullptr;  // the input's dout
    std::int64_t numel = 0;
  };

  ModelRunner() = default;
  // Elements of an op's OpState::saved (exec/model_runner_ops.cc).
  static std::int64_t saved_numel(const models::Op& op);
  // Adds g's scratch into its target when the kernel did not write the target itself.
  static void finish(const InputGrad& g);
  void allocate();
  void run_forward(int first, int last, bool recompute);
  void forward_op(int i);
  void forward_attention(int i);
  void backward_op(int i);
  void backward_attention(int i);
  void backward_rotary(int i);
  InputGrad input_grad(int input, int slot);
  float* scratch(int slot, std::int64_t numel);
  models::AttentionShape attention_shape() const { return attention_shape(spec_, workload_); }
  // Parameter `id`'s elements of `flat` (weights_ or grads_).
  template <class T>
  std::span<T> tensor_slice(std::span<T> flat, int id) const {
    ZS_CHECK(id >= 0 && static_cast<std::size_t>(id) < tensors_.size());
    const auto i = static_cast<std::size_t>(id);
    return flat.subspan(static_cast<std::size_t>(offsets_[i]),
                        static_cast<std::size_t>(tensors_[i].numel));
  }
  const float* out(int i) const { return state_[static_cast<std::size_t>(i)].out.data(); }
  const float* weight(const models::Op& op, std::size_t k) const;
  float* weight_grad(const models::Op& op, std::size_t k);

  models::ModelSpec spec_;
  models::Workload workload_;
  std::vector<models::Op> ops_;
  std::vector<models::ParamTensor> tensors_;
  std::vector<std::int64_t> offsets_;  // per parameter id, into weights_ / grads_
  std::vector<float> weights_;         // (num_param_elements)
  std::vector<float> grads_;           // (num_param_elements)
  std::vector<OpState> state_;         // per op
  ActivationLedger ledger_;            // which of state_ is live (exec/activation_ledger.h)
  std::vector<std::int32_t> tokens_;   // (t)
  std::vector<std::int32_t> targets_;  // (t)
  // Per slot, grown on demand: an op's backward keeps up to three scratch tensors at once.
  std::array<std::vector<float>, 3> scratch_;
  float loss_scale_ = 1.0f;
  double loss_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace zs::exec
