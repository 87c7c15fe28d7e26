#include "plan/module_order.h"

#include <algorithm>
#include <map>

#include "common/check.h"

namespace zs::plan {
namespace {

// A module of the model tree as forward() calls it.
struct Node {
  std::string name;
  std::vector<Node> children;
  bool grad_output = true;  // its output requires grad, so backward fetches it
};

Node leaf(std::string name, bool grad_output = true) {
  return Node{std::move(name), {}, grad_output};
}

// transformers 5.16 GPT2LMHeadModel: GPT2Model.forward runs wte, wpe, drop, the blocks and
// ln_f; GPT2Attention calls attn_dropout only in eager attention (SDPA takes dropout_p).
Node gpt2_tree(int layers, bool eager) {
  Node model{"transformer",
             {leaf("transformer.wte"), leaf("transformer.wpe"), leaf("transformer.drop")}};
  for (int i = 0; i < layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    Node attn{p + ".attn", {leaf(p + ".attn.c_attn")}};
    if (eager) attn.children.push_back(leaf(p + ".attn.attn_dropout"));
    attn.children.push_back(leaf(p + ".attn.c_proj"));
    attn.children.push_back(leaf(p + ".attn.resid_dropout"));
    Node mlp{p + ".mlp",
             {leaf(p + ".mlp.c_fc"), leaf(p + ".mlp.act"), leaf(p + ".mlp.c_proj"),
              leaf(p + ".mlp.dropout")}};
    model.children.push_back(
        Node{p, {leaf(p + ".ln_1"), std::move(attn), leaf(p + ".ln_2"), std::move(mlp)}});
  }
  model.children.push_back(leaf("transformer.ln_f"));
  return Node{"", {std::move(model), leaf("lm_head")}};
}

// LlamaForCausalLM (Mistral, Qwen2 and Qwen3 alike): LlamaModel.forward runs embed_tokens, the
// rotary embedding (cos/sin need no gradient), the decoder layers and the norm. Qwen3Attention
// calls q_norm right after q_proj and k_norm after k_proj (modeling_qwen3.py).
Node llama_tree(int layers, bool qk_norm) {
  Node model{"model", {leaf("model.embed_tokens"), leaf("model.rotary_emb", false)}};
  for (int i = 0; i < layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    Node attn{p + ".self_attn", {leaf(p + ".self_attn.q_proj")}};
    if (qk_norm) attn.children.push_back(leaf(p + ".self_attn.q_norm"));
    attn.children.push_back(leaf(p + ".self_attn.k_proj"));
    if (qk_norm) attn.children.push_back(leaf(p + ".self_attn.k_norm"));
    attn.children.push_back(leaf(p + ".self_attn.v_proj"));
    attn.children.push_back(leaf(p + ".self_attn.o_proj"));
    Node mlp{p + ".mlp",
             {leaf(p + ".mlp.gate_proj"), leaf(p + ".mlp.act_fn"), leaf(p + ".mlp.up_proj"),
              leaf(p + ".mlp.down_proj")}};
    model.children.push_back(Node{p,
                                  {leaf(p + ".input_layernorm"), std::move(attn),
                                   leaf(p + ".post_attention_layernorm"), std::move(mlp)}});
  }
  model.children.push_back(leaf("model.norm"));
  return Node{"", {std::move(model), leaf("lm_head")}};
}

void pre_order(const Node& n, std::vector<const Node*>* out) {
  out->push_back(&n);
  for (const Node& c : n.children) pre_order(c, out);
}

void post_order(const Node& n, std::vector<const Node*>* out) {
  for (const Node& c : n.children) post_order(c, out);
  out->push_back(&n);
}

}  // namespace

ModuleOrder make_module_order(const models::ModelSpec& spec,
                              const std::vector<models::ParamTensor>& params,
                              const std::vector<Block>& blocks, bool flash_attention) {
  const Node root = spec.model_type == models::ModelType::kGpt2
                        ? gpt2_tree(spec.num_layers, !flash_attention)
                        : llama_tree(spec.num_layers, spec.qk_norm);
  std::vector<const Node*> forward, exits;
  pre_order(root, &forward);
  post_order(root, &exits);

  ModuleOrder o;
  std::map<std::string, int> index;
  for (const Node* n : forward) {
    index[n->name] = static_cast<int>(o.modules.size());
    o.forward.push_back(static_cast<int>(o.modules.size()));
    o.modules.push_back(FetchedModule{n->name, {}, 0, -1});
  }
  for (auto it = exits.rbegin(); it != exits.rend(); ++it) {
    if ((*it)->grad_output) o.backward.push_back(index[(*it)->name]);
  }
  for (const models::ParamTensor& p : params) {
    const auto it = index.find(p.module);
    ZS_CHECK(it != index.end());  // every parameter's module is in the tree
    FetchedModule& m = o.modules[it->second];
    const int real = p.tied ? p.tied_to : p.id;
    m.params.push_back(real);
    m.numel += params[real].numel;
  }
  // The block of each parameter module: forward order matches blocks in order, so a scan finds
  // the first block from the current one that reads all of the module's parameters.
  int b = 0;
  for (FetchedModule& m : o.modules) {
    std::sort(m.params.begin(), m.params.end());
    if (m.params.empty()) continue;
    auto reads_all = [&](int blk) {
      for (int p : m.params) {
        if (std::find(blocks[blk].params.begin(), blocks[blk].params.end(), p) ==
            blocks[blk].params.end()) {
          return false;
        }
      }
      return true;
    };
    while (b < static_cast<int>(blocks.size()) && !reads_all(b)) ++b;
    ZS_CHECK(b < static_cast<int>(blocks.size()));
    m.block = b;
  }
  auto per_block = [&](const std::vector<int>& pass) {
    std::vector<std::vector<int>> out(blocks.size());
    std::size_t pending = 0;
    int last = -1;
    for (std::size_t k = 0; k < pass.size(); ++k) {
      const int blk = o.modules[pass[k]].block;
      if (blk < 0) continue;
      for (; pending <= k; ++pending) out[blk].push_back(pass[pending]);
      last = blk;
    }
    for (; pending < pass.size() && last >= 0; ++pending) out[last].push_back(pass[pending]);
    return out;
  };
  o.forward_by_block = per_block(o.forward);
  o.backward_by_block = per_block(o.backward);
  return o;
}

}  // namespace zs::plan
