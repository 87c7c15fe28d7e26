#include "exec/model_runner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>

#include "common/units.h"
#include "exec/weight_init.h"
#include "models/op_graph.h"

namespace zs::exec {
namespace {

using models::ModelSpec;

constexpr float kPoison = std::numeric_limits<float>::quiet_NaN();

std::size_t idx(std::int64_t i) { return static_cast<std::size_t>(i); }

Status unsupported(const ModelSpec& spec, std::string_view field, const std::string& value,
                   std::string_view allowed) {
  return Status::invalid_argument("model \"" + spec.name + "\": " + std::string(field) + " = " +
                                  value + " is not supported by the executor; expected " +
                                  std::string(allowed));
}

void check_range(int first, int last, int n) {
  ZS_CHECK_MSG(0 <= first && first <= last && last < n, "op range outside the model");
}

}  // namespace

models::ModelSpec without_dropout(models::ModelSpec spec) {
  spec.dropout = {};
  return spec;
}

Status check_runnable(const ModelSpec& spec, const models::Workload& w) {
  ZS_RETURN_IF_ERROR(models::validate(spec));
  ZS_RETURN_IF_ERROR(models::validate_workload(spec, w));
  if (spec.moe.enabled()) {
    // kernels/cpu and kernels/cuda have no router or grouped expert GEMM yet: the executor
    // refuses what it cannot run rather than train a different model.
    return unsupported(spec, "moe.num_experts", std::to_string(spec.moe.num_experts),
                       "0 (a dense MLP: the executor does not run a mixture of experts yet; "
                       "simulate, sweep and tune do)");
  }
  // The families whose pieces kernels/cpu and kernels/cuda do not run yet: the executor refuses
  // what it cannot run rather than train a different model.
  std::string_view missing;
  if (spec.model_type == models::ModelType::kGptNeox) {
    missing = "GPT-NeoX's parallel residual and partial rotary embedding";
  } else if (spec.model_type == models::ModelType::kOpt) {
    // The executor's learned positions are GPT-2's (no offset rows), its attention a fused
    // c_attn's.
    missing = "OPT's offset positions and separate projections";
  } else if (spec.model_type == models::ModelType::kFalcon) {
    missing = "Falcon's parallel attention and multi-query fused projection";
  } else if (spec.model_type == models::ModelType::kBloom) {
    missing = "BLOOM's ALiBi and embedding LayerNorm";
  } else if (models::is_gemma(spec)) {
    missing = "Gemma's scaled embedding, (1 + w) norms and soft-capping";
  } else if (models::fused_gate_up(spec)) {
    // The rotary and SwiGLU kernels read q, k, gate and up as tensors of their own; Phi-3's
    // come as slices of one fused projection each.
    missing = "Phi-3's fused qkv_proj and gate_up_proj";
  } else if (models::is_encoder(spec)) {
    missing = "an encoder's token types, unmasked attention, post-norm layers and heads";
  } else if (models::is_encoder_decoder(spec)) {
    missing = "the encoder-decoder stacks and cross-attention";
  }
  if (!missing.empty()) {
    return unsupported(spec, "model_type",
                       "\"" + std::string(models::model_type_name(spec.model_type)) + "\"",
                       "a family the executor runs (" + std::string(missing) +
                           " are not run yet; simulate, sweep and tune do)");
  }
  const std::pair<std::string_view, double> dropouts[] = {{"dropout.embd", spec.dropout.embd},
                                                          {"dropout.attn", spec.dropout.attn},
                                                          {"dropout.resid", spec.dropout.resid}};
  for (const auto& [field, p] : dropouts) {
    if (p > 0) {
      return unsupported(spec, field, format_double(p),
                         "0 (the CPU kernels have no dropout; exec::without_dropout sets it)");
    }
  }
  const bool gelu = spec.mlp == models::MlpKind::kGelu;
  const bool tanh_gelu = spec.activation == "gelu_new" || spec.activation == "gelu_pytorch_tanh";
  const bool silu = spec.activation == "silu" || spec.activation == "swish";
  if (gelu ? !tanh_gelu : !silu) {
    return unsupported(spec, "activation", "\"" + spec.activation + "\"",
                       gelu ? "\"gelu_new\" or \"gelu_pytorch_tanh\" (kernels/cpu/activation.h)"
                            : "\"silu\" or \"swish\" (kernels/cpu/activation.h)");
  }
  if (spec.position == models::PositionKind::kRotary) {
    if (!(spec.rope_theta > 0) || !std::isfinite(spec.rope_theta)) {
      return unsupported(spec, "rope_theta", format_double(spec.rope_theta), "a number > 0");
    }
    if (spec.head_dim % 2 != 0) {
      return unsupported(spec, "head_dim", std::to_string(spec.head_dim),
                         "an even number (RoPE rotates pairs)");
    }
  }
  if (spec.sliding_window > 0 && w.seq_len > spec.sliding_window) {
    return unsupported(spec, "sliding_window", std::to_string(spec.sliding_window),
                       "no window, or one of at least seq_len = " + std::to_string(w.seq_len) +
                           " tokens (the kernel attends to every earlier token)");
  }
  return Status::ok();
}

Result<ModelRunner> ModelRunner::create(const ModelSpec& spec, const models::Workload& w,
                                        std::uint64_t seed) {
  ZS_RETURN_IF_ERROR(check_runnable(spec, w));
  ModelRunner r;
  r.spec_ = spec;
  r.workload_ = w;
  r.ops_ = models::forward_ops(spec, w);
  r.tensors_ = models::parameter_tensors(spec);
  r.allocate();
  init_gpt2_weights(r.ops_, r.tensors_, r.offsets_, spec.num_layers, seed, r.weights_);
  return r;
}

std::int64_t ModelRunner::host_bytes(const ModelSpec& spec, const models::Workload& w) {
  constexpr std::int64_t kFloat = sizeof(float);
  std::int64_t bytes = 2 * kFloat * models::parameter_count(spec);  // weights, gradients
  for (const models::Op& op : models::forward_ops(spec, w)) {
    bytes += kFloat * (2 * output_numel(op) + saved_numel(op));  // out, dout, saved
  }
  return bytes + 2 * static_cast<std::int64_t>(sizeof(std::int32_t)) * w.tokens();
}

std::vector<std::int64_t> ModelRunner::param_offsets(
    const std::vector<models::ParamTensor>& tensors, std::int64_t* numel) {
  std::vector<std::int64_t> offsets(tensors.size(), 0);
  *numel = 0;
  for (const models::ParamTensor& p : tensors) {
    if (p.tied) continue;  // aliases come after their targets: filled below
    offsets[idx(p.id)] = *numel;
    *numel += p.numel;
  }
  for (const models::ParamTensor& p : tensors) {
    if (p.tied) offsets[idx(p.id)] = offsets[idx(p.tied_to)];
  }
  return offsets;
}

void ModelRunner::allocate() {
  std::int64_t numel = 0;
  offsets_ = param_offsets(tensors_, &numel);
  weights_.assign(idx(numel), 0.0f);
  grads_.assign(idx(numel), 0.0f);

  state_.assign(ops_.size(), OpState{});
  for (std::size_t i = 0; i < ops_.size(); ++i) {
    OpState& s = state_[i];
    s.out.assign(idx(output_numel(ops_[i])), 0.0f);
    s.dout.assign(s.out.size(), 0.0f);
    s.saved.assign(idx(saved_numel(ops_[i])), 0.0f);
  }
  ledger_ = ActivationLedger(ops_);
  const std::int64_t t = workload_.tokens();
  tokens_.assign(idx(t), -1);
  targets_.assign(idx(t), -1);
}

Status check_token_ids(const models::ModelSpec& spec, std::span<const std::int32_t> tokens,
                       std::span<const std::int32_t> targets) {
  const std::pair<const char*, std::span<const std::int32_t>> arrays[] = {{"tokens", tokens},
                                                                          {"targets", targets}};
  for (const auto& [name, ids] : arrays) {
    for (std::size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0 || ids[i] >= spec.vocab_size) {
        return Status::invalid_argument(
            std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(ids[i]) +
            " is not a token id of model \"" + spec.name + "\"; expected [0, " +
            std::to_string(spec.vocab_size) + ")");
      }
    }
  }
  return Status::ok();
}

Status ModelRunner::set_batch(std::span<const std::int32_t> tokens,
                              std::span<const std::int32_t> targets) {
  ZS_CHECK(tokens.size() == tokens_.size() && targets.size() == targets_.size());
  ZS_RETURN_IF_ERROR(check_token_ids(spec_, tokens, targets));
  std::copy(tokens.begin(), tokens.end(), tokens_.begin());
  std::copy(targets.begin(), targets.end(), targets_.begin());
  return Status::ok();
}

void ModelRunner::set_loss_scale(float dloss) {
  ZS_CHECK(std::isfinite(dloss));
  loss_scale_ = dloss;
}

void ModelRunner::forward(int first, int last) { run_forward(first, last, false); }

void ModelRunner::recompute(int first, int last) { run_forward(first, last, true); }

void ModelRunner::run_forward(int first, int last, bool recompute) {
  check_range(first, last, num_ops());
  for (int i = first; i <= last; ++i) {
    ledger_.check_forward(i);
    forward_op(i);
    ledger_.forwarded(i, recompute);
  }
}

void ModelRunner::drop_activations(int first, int last) {
  check_range(first, last, num_ops());
  for (int i = first; i <= last; ++i) {
    OpState& s = state_[idx(i)];
    std::fill(s.saved.begin(), s.saved.end(), kPoison);
    if (ledger_.drop(i, last)) std::fill(s.out.begin(), s.out.end(), kPoison);
  }
}

void ModelRunner::backward(int first, int last) {
  check_range(first, last, num_ops());
  for (int i = last; i >= first; --i) {
    ledger_.check_backward(i);
    backward_op(i);
  }
}

std::span<float> ModelRunner::param(int id) { return tensor_slice<float>(weights_, id); }
std::span<const float> ModelRunner::param(int id) const {
  return tensor_slice<const float>(weights_, id);
}
std::span<float> ModelRunner::grad(int id) { return tensor_slice<float>(grads_, id); }
std::span<const float> ModelRunner::grad(int id) const {
  return tensor_slice<const float>(grads_, id);
}

void ModelRunner::zero_grads() { std::fill(grads_.begin(), grads_.end(), 0.0f); }

const float* ModelRunner::weight(const models::Op& op, std::size_t k) const {
  return k < op.param_ids.size() ? param(op.param_ids[k]).data() : nullptr;
}

float* ModelRunner::weight_grad(const models::Op& op, std::size_t k) {
  return k < op.param_ids.size() ? grad(op.param_ids[k]).data() : nullptr;
}

models::AttentionShape ModelRunner::attention_shape(const models::ModelSpec& spec,
                                                    const models::Workload& w) {
  return {.batch = w.micro_batch,
          .seq = w.seq_len,
          .heads = spec.num_heads,
          .kv_heads = spec.num_kv_heads,
          .head_dim = spec.head_dim,
          .dropout = 0,
          .causal = true};
}

float* ModelRunner::scratch(int slot, std::int64_t numel) {
  ZS_CHECK(slot >= 0 && idx(slot) < scratch_.size());
  std::vector<float>& buf = scratch_[idx(slot)];
  if (buf.size() < idx(numel)) buf.resize(idx(numel));
  return buf.data();
}

ModelRunner::InputGrad ModelRunner::input_grad(int input, int slot) {
  OpState& s = state_[idx(input)];
  const bool first = ledger_.take_gradient(input);
  const auto numel = static_cast<std::int64_t>(s.dout.size());
  float* target = s.dout.data();
  return {first ? target : scratch(slot, numel), target, numel};
}

}  // namespace zs::exec
