// Parameter tensors of a ModelSpec, named and shaped as the Hugging Face model names them.
//
// The list is in PyTorch registration order, i.e. the order of model.named_parameters() for
// GPT2LMHeadModel / LlamaForCausalLM / MistralForCausalLM / Qwen2ForCausalLM. That order
// matters: DeepSpeed ZeRO-1/2 flatten each param group in it (stage_1_and_2.py), so it decides
// which rank owns which slice. named_parameters() drops a tied alias; this list keeps it, flagged
// `tied`, at the position of its module, so that per-module sums (DeepSpeed's "largest layer")
// see it, while counts skip it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/model_spec.h"

namespace zs::models {

// Where a parameter sits in the layer structure.
inline constexpr int kEmbeddingLayer = -1;  // token/position embeddings
// The final norm and the LM head use layer index total_layers(spec) (num_layers, or an
// encoder-decoder's encoder and decoder layers together); an encoder-decoder's encoder final
// norm and decoder embedding are outside the layers too, at kEmbeddingLayer.

struct ParamTensor {
  int id = 0;        // index in parameter_tensors(spec); ops refer to parameters by it
  std::string name;  // HF state_dict key, e.g. "transformer.h.0.attn.c_attn.weight"
  // PyTorch shape: nn.Linear weights are [out, in]; GPT-2's Conv1D weights are [in, out].
  std::vector<std::int64_t> shape;
  std::int64_t numel = 0;
  std::string module;  // owning module: the name without its last component ("lm_head")
  int layer = 0;       // kEmbeddingLayer, 0..L-1, or L for the final norm and the LM head
  bool is_bias = false;
  // True for an alias of another tensor (lm_head.weight when the embeddings are tied): it has no
  // storage, gradient or optimizer state of its own. `tied_to` is the id of the real tensor.
  bool tied = false;
  int tied_to = -1;
};

// Every parameter tensor, in registration order (see above); ids are 0, 1, 2, ...
// REQUIRES: validate(spec).is_ok()
std::vector<ParamTensor> parameter_tensors(const ModelSpec& spec);

// Number of trainable parameters, counting tied weights once (what HF's
// model.num_parameters() and DeepSpeed's model_to_params() report).
// REQUIRES: validate(spec).is_ok()
std::int64_t parameter_count(const ModelSpec& spec);

// Parameters multiplied in a GEMM: every linear weight (biases and norms excluded) and the LM head
// (the shared table when tied). The "N" of the 6·N FLOPs-per-token rule (models/flops.h). For a
// mixture of experts, a token is multiplied by k of the E experts: the experts' 3-D tensors count
// k/E of their elements (the active parameters), the router in full.
// REQUIRES: validate(spec).is_ok()
std::int64_t matmul_parameter_count(const ModelSpec& spec);

// DeepSpeed's largest_layer_params: the maximum over modules of the numel of the parameters the
// module owns directly (recurse=False), tied aliases included (deepspeed/runtime/zero/stage3.py
// model_to_params). For GPT-2 and Llama it is the embedding table (V·h).
// REQUIRES: validate(spec).is_ok()
std::int64_t largest_module_params(const ModelSpec& spec);

// Sum of numel over the non-tied tensors of layer `layer` (kEmbeddingLayer..num_layers).
std::int64_t layer_parameter_count(const std::vector<ParamTensor>& params, int layer);

}  // namespace zs::models
