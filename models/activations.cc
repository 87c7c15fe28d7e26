#include "models/activations.h"

#include <algorithm>
#include <vector>

#include "models/op_graph.h"

namespace zs::models {
namespace {

// Peak without checkpointing: walking backward, op i runs while its own saved tensors and those
// of every earlier op are still held, beside its activation gradients.
Bytes peak_without_checkpointing(const std::vector<Op>& ops, Bytes always_live) {
  Bytes live = always_live;
  for (const Op& op : ops) live += op.saved_bytes();
  Bytes peak = 0;
  for (auto it = ops.rbegin(); it != ops.rend(); ++it) {
    peak = std::max(peak, live + it->cost.bwd_grad_bytes);
    live -= it->saved_bytes();
  }
  return peak;
}

// Peak with one checkpoint per layer: the head ops (layer L) run with every checkpoint held;
// layer l's ops run after layer l has been recomputed, with the checkpoints of layers < l and
// the recomputed tensors of layer l up to the op (its attn_norm's saved input is the checkpoint
// itself); the embedding runs with nothing else held.
Bytes peak_with_checkpointing(const std::vector<Op>& ops, std::int64_t num_layers,
                              Bytes checkpoint_bytes, Bytes always_live) {
  Bytes head_saved = 0, embed_saved = 0;
  for (const Op& op : ops) {
    if (op.layer == num_layers) head_saved += op.saved_bytes();
    if (op.layer < 0) embed_saved += op.saved_bytes();
  }
  Bytes peak = 0;
  Bytes head_live = always_live + embed_saved + num_layers * checkpoint_bytes + head_saved;
  std::vector<Bytes> layer_prefix;  // saved bytes of the current layer's ops, cumulative
  for (std::size_t i = ops.size(); i-- > 0;) {
    const Op& op = ops[i];
    if (op.layer == num_layers) {
      peak = std::max(peak, head_live + op.cost.bwd_grad_bytes);
      head_live -= op.saved_bytes();
    } else if (op.layer >= 0) {
      // Saved tensors of layer op.layer from its first op through op i (recomputed).
      Bytes recomputed = 0;
      for (std::size_t j = i + 1; j-- > 0 && ops[j].layer == op.layer;) {
        recomputed += ops[j].saved_bytes();
      }
      const Bytes live = always_live + embed_saved + op.layer * checkpoint_bytes + recomputed;
      peak = std::max(peak, live + op.cost.bwd_grad_bytes);
    } else {
      peak = std::max(peak, always_live + embed_saved + op.cost.bwd_grad_bytes);
    }
  }
  return peak;
}

}  // namespace

Bytes layer_saved_bytes(const std::vector<Op>& ops, int layer) {
  Bytes total = 0;
  for (const Op& op : ops) {
    if (op.layer == layer) total += op.saved_bytes();
  }
  return total;
}

ActivationSummary activation_summary(const ModelSpec& spec, const Workload& w) {
  const std::vector<Op> ops = forward_ops(spec, w);
  ActivationSummary s;
  const std::int64_t layers = total_layers(spec);
  s.per_layer_bytes = layer_saved_bytes(ops, 0);
  for (const Op& op : ops) {
    if (op.layer < 0 || op.layer == layers) s.non_layer_bytes += op.saved_bytes();
  }
  // The logits the loss reads: t x V from the LM head, or an encoder head's few.
  const auto& logits =
      std::get<GemmShape>(ops[static_cast<std::size_t>(ops.back().inputs[0])].shape);
  s.logits_bytes = w.act_bytes * logits.m * logits.n;
  s.total_bytes = s.logits_bytes;  // every op's saved tensors: an encoder-decoder's layers differ
  for (const Op& op : ops) s.total_bytes += op.saved_bytes();
  s.checkpoint_per_layer_bytes = w.act_bytes * w.tokens() * spec.hidden_size;
  s.total_checkpointed_bytes =
      layers * s.checkpoint_per_layer_bytes + s.non_layer_bytes + s.logits_bytes;
  s.peak_backward_bytes = peak_without_checkpointing(ops, s.logits_bytes);
  s.peak_backward_checkpointed_bytes =
      peak_with_checkpointing(ops, layers, s.checkpoint_per_layer_bytes, s.logits_bytes);
  return s;
}

std::int64_t korthikanti_layer_bytes(std::int64_t s, std::int64_t b, std::int64_t h,
                                     std::int64_t a) {
  return 34 * s * b * h + 5 * a * s * s * b;
}

}  // namespace zs::models
