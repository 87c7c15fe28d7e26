#include "bench/fidelity_rows.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "models/hf_config.h"

namespace zs::fidelity {
namespace {

std::string temp_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/zs_fidelity_" + std::to_string(getpid()) + "_" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  return out;
}

bool is_int(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string family(const Row& r) {
  const std::string id = r["id"].substr(0, 2);
  if (id == "AT" || id == "DT") return "DeepSpeed V100";
  if (id == "GR" || id == "ZF") return "DeepSpeed A100";
  if (id == "DH") return "DeepSpeed H100";
  if (id == "LC") return "llm.c A100 (peer)";
  if (id == "MF") return "FSDP A100/H100 (peer)";
  if (id == "BL") return "DeepSpeed TITAN RTX";
  if (id == "BS") return "PyTorch BERT V100";
  if (id == "HF") return "DeepSpeed T5 TITAN RTX";
  if (id == "AC") return "Accelerate TITAN RTX";
  return "other";
}

Software software(const Row& r) {
  const std::string id = r["id"].substr(0, 2);
  // BingBertSquad's PyTorch baseline (BS, 2020), the T5 runs (HF, transformers 4.2, 2021) and
  // Accelerate's (AC, 2022) ran HF-style eager modules and attention, as did the others.
  if (id == "AT" || id == "DT" || id == "BL" || id == "BS" || id == "HF" || id == "AC") {
    return {sim::KernelStyle::kEager, false};
  }
  if (id == "LC" || id == "MF") return {sim::KernelStyle::kFused, true};
  return {sim::KernelStyle::kEager, true};
}

std::string unsupported(const Row& r) {
  const std::string m = r["model"];
  if (!is_int(r["layers"]) && m != "t5-large" && m != "facebook/blenderbot-400M-distill") {
    return "encoder-decoder (" + r["layers"] + " layers)";
  }
  // FP01: NVIDIA's pre-LayerNorm BERT (DeepSpeed's bing_bert), not HF's post-LN BertModel.
  if (m.find("preln") != std::string::npos) return "pre-LN BERT (not HF's)";
  // Turing (TITAN RTX) has no bf16: a run there with unstated precision is taken as fp16.
  if (r["precision"] == "NA" && r["gpu"].find("titan") == std::string::npos) {
    return "precision not stated";
  }
  // Without ZeRO nothing is partitioned: a memory row's verdict is the same on any number of
  // GPUs, and is simulated on one (BS01, BS02: "OOM is per GPU").
  const bool per_gpu = r["stage"] == "0" && (r["metric"] == "oom" || r["metric"] == "peak_gib");
  if (!is_int(r["micro_batch"]) || (!is_int(r["gpus_per_node"]) && !per_gpu)) {
    return "batch or GPUs not stated";
  }
  // An A100 of unstated memory is taken as 80 GB for a time row (memory does not enter it).
  const bool unknown_memory = r["gpu"].find("unknown") != std::string::npos &&
                              (r["metric"] == "oom" || r["metric"] == "peak_gib");
  if (unknown_memory) return "no preset for GPU " + r["gpu"];
  return "";
}

std::string gpu_preset(const Row& r) {
  const std::string gpu = r["gpu"];
  if (gpu == "a100-80gb-sxm" || gpu == "a100-unknown") return "a100-80gb";
  // 16 V100 32GB in one node: a DGX-2 (the rows' notes say so). A V100-SXM3 is the DGX-2's
  // module (the row's source names it), so its host is the DGX-2's too.
  if (gpu == "v100-32gb" && r["gpus_per_node"] == "16") return "v100-32gb-dgx2";
  if (gpu == "v100-32gb-sxm3") return "v100-32gb-dgx2";
  return gpu;
}

// The vocabulary the run's embedding and LM head have. Megatron-LM pads it to a multiple of
// make-vocab-size-divisible-by (default 128: megatron/arguments.py, _vocab_size_with_padding);
// llm.c to padded_vocab_size = 50304 (train_gpt2.cu). Both rows' parameter counts are those of
// 50304 words. HF models keep their own (GPT-2: 50257, which no 16-byte grid divides).
std::string vocab_as_run(const Row& r) {
  const std::string id = r["id"].substr(0, 2);
  if (id != "DT" && id != "LC") return r["vocab"];
  const long v = std::stol(r["vocab"]);
  return std::to_string((v + 127) / 128 * 128);
}

// The row's sequence length: "<=128" (AC02: the blog's longest) is simulated at its bound, which
// gives an OOM verdict of "fits" its hardest case; "128/64" is an encoder-decoder's source.
std::string seq_text(const Row& r) {
  const std::string seq = r["seq_len"];
  return seq.starts_with("<=") ? seq.substr(2) : seq;
}

std::string model_json(const Row& r) {
  const std::string seq = seq_text(r);
  const long positions = std::max(1024L, std::stol(seq));
  // AC02 fine-tunes microsoft/deberta-v2-xlarge-mnli: its config.json
  // (models/hf_configs/deberta-v2-xlarge-mnli.json).
  if (r["model"] == "microsoft/deberta-v2-xlarge-mnli") {
    return R"({"model_type":"deberta-v2","architectures":["DebertaV2ForSequenceClassification"],)"
           R"("num_hidden_layers":)" +
           r["layers"] + R"(,"hidden_size":)" + r["hidden"] + R"(,"num_attention_heads":)" +
           r["heads"] + R"(,"vocab_size":)" + r["vocab"] +
           R"(,"intermediate_size":6144,"max_position_embeddings":512,"relative_attention":true,)"
           R"("position_buckets":256,"norm_rel_ebd":"layer_norm","share_att_key":true,)"
           R"("pos_att_type":"p2c|c2p","conv_kernel_size":3,"conv_act":"gelu",)"
           R"("position_biased_input":false,"type_vocab_size":0,"num_labels":3})";
  }
  // The Blenderbot rows (AC04, AC06): facebook/blenderbot-400M-distill's config.json
  // (models/hf_configs/blenderbot-400M-distill.json; the row's "2+12" layers).
  if (r["model"] == "facebook/blenderbot-400M-distill") {
    return R"({"model_type":"blenderbot","encoder_layers":2,"decoder_layers":12,"d_model":)" +
           r["hidden"] + R"(,"encoder_attention_heads":)" + r["heads"] +
           R"(,"decoder_attention_heads":)" + r["heads"] +
           R"(,"encoder_ffn_dim":5120,"decoder_ffn_dim":5120,"vocab_size":)" + r["vocab"] +
           R"(,"max_position_embeddings":128,"scale_embedding":true})";
  }
  // The BLOOM rows (BL01-BL06): bigscience/bloom-560m's config.json (models/hf_configs/).
  if (r["model"].find("bloom") != std::string::npos) {
    return R"({"model_type":"bloom","n_layer":)" + r["layers"] + R"(,"hidden_size":)" +
           r["hidden"] + R"(,"n_head":)" + r["heads"] + R"(,"vocab_size":)" + r["vocab"] + "}";
  }
  // The T5 rows (HF03-HF06) fine-tune google-t5/t5-large: its config.json.
  if (r["model"] == "t5-large") {
    return R"({"model_type":"t5","num_layers":24,"d_model":)" + r["hidden"] + R"(,"num_heads":)" +
           r["heads"] + R"(,"d_ff":4096,"d_kv":64,"vocab_size":)" + r["vocab"] + "}";
  }
  // BingBertSquad fine-tunes BERT-large on SQuAD (BS rows): google-bert/bert-large-uncased's
  // config.json with the question-answering head (qa_outputs, 2 outputs a token).
  if (r["model"] == "bert-large-uncased") {
    return R"({"model_type":"bert","architectures":["BertForQuestionAnswering"],)"
           R"("num_hidden_layers":)" +
           r["layers"] + R"(,"hidden_size":)" + r["hidden"] +
           R"(,"intermediate_size":4096,"num_attention_heads":)" + r["heads"] +
           R"(,"vocab_size":)" + r["vocab"] + R"(,"max_position_embeddings":512})";
  }
  if (r["model"].find("granite") != std::string::npos) {
    return R"({"model_type":"llama","num_hidden_layers":)" + r["layers"] + R"(,"hidden_size":)" +
           r["hidden"] + R"(,"intermediate_size":11008,"num_attention_heads":)" + r["heads"] +
           R"(,"num_key_value_heads":)" + r["heads"] + R"(,"vocab_size":)" + r["vocab"] +
           R"(,"max_position_embeddings":)" + std::to_string(positions) + "}";
  }
  // Qwen2.5-1.5B's and -3B's config.json (Qwen/Qwen2.5-1.5B, -3B on the Hugging Face hub): GQA
  // with 2 KV heads, intermediate 8960 and 11008, tied embeddings, biases on q, k, v (the qwen2
  // model type has them); transformers' Qwen2 on the meta device counts the rows' parameters.
  if (r["model"] == "Qwen/Qwen2.5-1.5B" || r["model"] == "Qwen/Qwen2.5-3B") {
    const char* intermediate = r["model"] == "Qwen/Qwen2.5-3B" ? "11008" : "8960";
    return R"({"model_type":"qwen2","num_hidden_layers":)" + r["layers"] + R"(,"hidden_size":)" +
           r["hidden"] + R"(,"intermediate_size":)" + intermediate + R"(,"num_attention_heads":)" +
           r["heads"] + R"(,"num_key_value_heads":2,"vocab_size":)" + r["vocab"] +
           R"(,"max_position_embeddings":32768,"tie_word_embeddings":true})";
  }
  // This project's own runs (DH) set dropout 0.
  const bool no_dropout = r["id"].substr(0, 2) == "DH";
  const std::string dropout = no_dropout ? R"(,"resid_pdrop":0,"attn_pdrop":0,"embd_pdrop":0)" : "";
  return R"({"model_type":"gpt2","n_layer":)" + r["layers"] + R"(,"n_embd":)" + r["hidden"] +
         R"(,"n_head":)" + r["heads"] + R"(,"vocab_size":)" + vocab_as_run(r) +
         R"(,"n_positions":)" + std::to_string(positions) + dropout + "}";
}

std::string config_json(const Row& r) {
  const std::string prec = r["precision"] == "NA" ? "fp16" : r["precision"];
  const std::string p = prec.find("fp16") != std::string::npos   ? "fp16"
                        : prec.find("bf16") != std::string::npos ? "bf16"
                                                                 : "";
  std::string zero = R"("stage": )" + r["stage"];
  if (r["overlap_comm"] == "true" || r["overlap_comm"] == "false") {
    zero += R"(, "overlap_comm": )" + r["overlap_comm"];
  }
  if (r["reduce_bucket_size"] != "default" && r["reduce_bucket_size"] != "NA") {
    zero += R"(, "reduce_bucket_size": )" + r["reduce_bucket_size"];
  }
  if (r["offload_optimizer"] == "cpu") zero += R"(, "offload_optimizer": {"device": "cpu"})";
  if (r["offload_param"] == "cpu") zero += R"(, "offload_param": {"device": "cpu"})";
  const std::string ga = is_int(r["grad_accum"]) ? r["grad_accum"] : "1";
  // A client torch.optim.AdamW (the row's notes say so) is what DeepSpeed's torch_adam builds: the
  // unfused optimizer wrappers, not FusedAdam.
  const bool torch_adam = r["notes"].find("client torch.optim.AdamW") != std::string::npos;
  const bool clipping = r["notes"].find("gradient_clipping 1.0") != std::string::npos;
  return R"({"train_micro_batch_size_per_gpu": )" + r["micro_batch"] +
         R"(, "gradient_accumulation_steps": )" + ga +
         (p.empty() ? "" : R"(, ")" + p + R"(": {"enabled": true})") +
         (clipping ? R"(, "gradient_clipping": 1.0)" : "") +
         R"(, "optimizer": {"type": "AdamW", "params": {"lr": 1e-4)" +
         (torch_adam ? R"(, "torch_adam": true)" : "") + R"(}}, "zero_optimization": {)" + zero +
         "}}";
}

std::string generation(const configs::GpuSpec& g) {
  if (g.fp8_flops_per_s.has_value()) return "hopper";
  if (g.bf16_flops_per_s.has_value()) return "ampere";
  return "volta-turing";
}

Outcome simulate_row(const Row& r, const Overrides& ov, std::string* gen) {
  Outcome o;
  o.error = unsupported(r);
  if (!o.error.empty()) return o;
  const std::string id = r["id"];
  auto model = models::load_hf_config(temp_file(id + "_model.json", model_json(r)));
  if (!model.ok()) return o.error = model.status().message(), o;
  // TITAN RTX has no preset: bench/data/titan_rtx_workstation.json describes it.
  auto cluster =
      r["gpu"].find("titan") != std::string::npos
          ? configs::load_cluster_file("bench/data/titan_rtx_workstation.json")
          : configs::make_cluster(gpu_preset(r), std::stoi(r["nodes"]),
                                  is_int(r["gpus_per_node"]) ? std::stoi(r["gpus_per_node"]) : 1);
  if (!cluster.ok()) return o.error = cluster.status().message(), o;
  sim::SimulationRequest q;
  q.config_path = temp_file(id + "_ds.json", config_json(r));
  const Software sw = software(r);
  q.flash_attention = sw.flash_attention;
  q.profile = sim::default_cost_profile(*cluster);
  q.profile->kernel_style = sw.kernels;
  const std::string g = generation(cluster->gpu);
  if (gen != nullptr) *gen = g;
  if (auto it = ov.gemm_sustained.find(g); it != ov.gemm_sustained.end()) {
    q.profile->gemm_sustained = it->second;
  }
  if (ov.host_python_slowdown > 0) q.profile->host_python_slowdown = ov.host_python_slowdown;
  if (ov.host_memory_efficiency > 0) {
    q.profile->host_memory_efficiency = ov.host_memory_efficiency;
  }
  if (ov.sync_s > 0) q.profile->sync_s = ov.sync_s;
  q.model = *model;
  q.cluster = *cluster;
  // "source/target": an encoder-decoder's two lengths.
  const std::string seq = seq_text(r);
  q.seq_len = std::stol(seq);
  if (const std::size_t slash = seq.find('/'); slash != std::string::npos) {
    q.target_len = std::stol(seq.substr(slash + 1));
  }
  q.activation_checkpointing = r["checkpointing"] == "1";
  auto result = sim::simulate(q);
  if (!result.ok()) return o.error = result.status().message(), o;
  const sim::SimulationResult& s = *result;
  o.params = s.params;
  o.regime = sim::classify_regime(s.time, s.built.layout);
  o.measured = std::stod(r["value"]);
  const std::string metric = r["metric"];
  o.time_metric = metric != "oom" && metric != "peak_gib";
  if (metric == "step_s") {
    o.predicted = s.time.step_s;
  } else if (metric == "samples_per_s") {
    o.predicted = s.time.samples_per_s;
  } else if (metric == "tokens_per_s") {
    o.predicted = s.time.tokens_per_s;
  } else if (metric == "tflops_per_gpu") {
    o.predicted = s.time.tflops_per_gpu;
  } else if (metric == "oom") {
    o.predicted = s.memory.gpu_oom ? 1 : 0;
  } else if (metric == "peak_gib") {
    // nvidia-smi shows what the caching allocator reserves, context and NCCL included.
    o.predicted = static_cast<double>(s.memory.gpu_reserved_peak_bytes) / (1 << 30);
  } else {
    o.error = "unknown metric " + metric;
  }
  return o;
}

double speed_error(const std::string& metric, double predicted, double measured) {
  if (metric == "step_s") return measured / predicted - 1;
  return predicted / measured - 1;
}

}  // namespace zs::fidelity
