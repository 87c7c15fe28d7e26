// Cluster files: the JSON format documented in cluster.h.
#include <string_view>

#include "common/json_fields.h"
#include "common/text.h"
#include "configs/hardware/cluster.h"
#include "configs/hardware/cluster_checks.h"
#include "configs/hardware/presets.h"
#include "configs/hardware/spec_fields.h"

namespace zs::configs {
namespace {

constexpr std::string_view kPreset = "preset";
constexpr std::string_view kNodePreset = "node_preset";
constexpr std::string_view kNodes = "nodes";
constexpr std::string_view kGpusPerNode = "gpus_per_node";
constexpr std::string_view kOverrides = "overrides";
constexpr std::string_view kGpu = "gpu";
constexpr std::string_view kNode = "node";
constexpr json::IntRange kCountRange{.min = 1, .max = 1 << 20};

// Reads a node object on top of a preset node. The preset's NVMe bandwidths are for all of its
// data drives together: a changed drive count without new bandwidths makes them unknown.
void read_node_over_preset(const json::Document& doc, const json::Json& node,
                           const std::string& path, NodeSpec* n, Diagnostics* diags) {
  const int nvme_count_before = n->nvme_count;
  read_node_spec(doc, node, path, SpecBase::kPreset, n, diags);
  if (n->nvme_count == nvme_count_before) return;
  if (!node.contains("nvme_read_bw_bytes_per_s")) n->nvme_read_bw_bytes_per_s.reset();
  if (!node.contains("nvme_write_bw_bytes_per_s")) n->nvme_write_bw_bytes_per_s.reset();
}

// Reads "overrides": {"gpu": {...}, "node": {...}} on top of a preset.
void read_overrides(const json::Document& doc, json::ObjectReader& top, Cluster* c,
                    Diagnostics* diags) {
  const json::Json* obj = top.get_object(kOverrides);
  if (obj == nullptr) return;
  json::ObjectReader ov(doc, *obj, top.member_path(kOverrides), diags);
  if (const json::Json* gpu = ov.get_object(kGpu)) {
    const bool sets_reported = gpu->contains("reported_hbm_bytes");
    const Bytes hbm_before = c->gpu.hbm_bytes;
    read_gpu_spec(doc, *gpu, ov.member_path(kGpu), SpecBase::kPreset, &c->gpu, diags);
    // The preset's reported capacity describes the preset's memory, not an overridden one.
    if (c->gpu.hbm_bytes != hbm_before && !sets_reported) c->gpu.reported_hbm_bytes.reset();
  }
  if (const json::Json* node = ov.get_object(kNode)) {
    read_node_over_preset(doc, *node, ov.member_path(kNode), &c->node, diags);
  }
  const std::string_view known[] = {kGpu, kNode};
  ov.report_unknown(Severity::kError, known, "overrides holds \"gpu\" and \"node\" objects");
}

// Reads the top-level "gpu" and "node" of a cluster without a GPU preset.
void read_custom(const json::Document& doc, json::ObjectReader& top, bool has_node_preset,
                 Cluster* c, Diagnostics* diags) {
  c->preset = "custom";
  if (top.has(kOverrides)) {
    top.raw(kOverrides);
    top.report(kOverrides, Severity::kError, "overrides-without-preset",
               "\"overrides\" changes a preset, and no \"preset\" is given",
               "name a \"preset\", or give the whole machine as \"gpu\" and \"node\"");
  }
  if (!top.has(kGpu)) {
    // Neither a preset nor a custom GPU: one error says it all.
    top.report(kGpu, Severity::kError, "missing-key",
               "a cluster needs \"preset\" (a GPU preset: " + join(hardware_preset_names(), ", ") +
                   ") or a custom \"gpu\" object");
    if (top.has(kNode)) top.raw(kNode);  // known, just not usable alone
    return;
  }
  if (const json::Json* gpu = top.get_object(kGpu)) {
    read_gpu_spec(doc, *gpu, top.member_path(kGpu), SpecBase::kCustom, &c->gpu, diags);
  }
  if (const json::Json* node = top.get_object(kNode)) {
    if (has_node_preset) {
      read_node_over_preset(doc, *node, top.member_path(kNode), &c->node, diags);
    } else {
      read_node_spec(doc, *node, top.member_path(kNode), SpecBase::kCustom, &c->node, diags);
    }
  } else if (!top.has(kNode) && !has_node_preset) {
    top.report(kNode, Severity::kError, "missing-key",
               "a custom cluster needs a \"node\" object or a \"node_preset\"");
  }
  if (c->gpu.name.empty()) c->gpu.name = "custom GPU";
  if (c->node.name.empty()) c->node.name = "custom node";
}

// With a preset, top-level "gpu"/"node" are a misplaced override: say where they belong.
void reject_misplaced(json::ObjectReader& top, std::string_view key) {
  if (!top.has(key)) return;
  top.raw(key);
  top.report(key, Severity::kError, "misplaced-key",
             "with \"preset\", changes to the " + std::string(key) + " go under \"overrides\"",
             "move it to \"overrides\": {\"" + std::string(key) + "\": {...}}");
}

// The JSON path where the user can fix `field` (a ClusterProblem field).
std::string path_of(const std::string& field, bool from_preset) {
  const bool spec_field = field.rfind("gpu.", 0) == 0 || field.rfind("node.", 0) == 0;
  return spec_field && from_preset ? "overrides." + field : field;
}

void add_problems(const json::Document& doc, const Cluster& c, bool from_preset,
                  Diagnostics* diags) {
  for (const ClusterProblem& p : cluster_problems(c)) {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = "invalid-cluster";
    d.path = path_of(p.field, from_preset);
    d.pos = doc.position_of(d.path);
    d.message = p.message;
    diags->add(std::move(d));
  }
}


}  // namespace

Result<Cluster> parse_cluster(const json::Document& doc, Diagnostics* diags_out) {
  Diagnostics diags;
  json::ObjectReader top(doc, doc.root, "", &diags);
  Cluster c;
  const bool from_preset = top.has(kPreset);
  if (top.valid()) {
    const auto preset = top.get_string(kPreset);
    const auto node_preset = top.get_string(kNodePreset);
    if (preset) {
      auto found = find_hardware_preset(*preset);
      if (found.ok()) {
        c.preset = found->name;
        c.gpu = found->gpu;
        c.node = found->node;
      } else {
        const bool ambiguous = found.status().code() == StatusCode::kInvalidArgument;
        top.report(kPreset, Severity::kError, ambiguous ? "ambiguous-preset" : "unknown-preset",
                   found.status().message());
      }
    }
    if (node_preset) {
      auto node = find_node_preset(*node_preset);
      if (node.ok()) {
        c.node = *node;
      } else {
        top.report(kNodePreset, Severity::kError, "unknown-preset", node.status().message());
      }
    }
    if (from_preset) {
      reject_misplaced(top, kGpu);
      reject_misplaced(top, kNode);
      read_overrides(doc, top, &c, &diags);
    } else {
      read_custom(doc, top, top.has(kNodePreset), &c, &diags);
    }
    c.nodes = static_cast<int>(top.get_int(kNodes, kCountRange).value_or(1));
    c.gpus_per_node =
        static_cast<int>(top.get_int(kGpusPerNode, kCountRange).value_or(c.node.max_gpus_per_node));
    const std::string_view known[] = {kPreset,    kNodePreset, kNodes, kGpusPerNode,
                                      kOverrides, kGpu,        kNode};
    top.report_unknown(Severity::kError, known, "see configs/hardware/cluster.h for the format");
  }
  if (!diags.has_errors()) add_problems(doc, c, from_preset, &diags);
  if (diags_out != nullptr) {
    for (const Diagnostic& d : diags.items()) diags_out->add(d);
  }
  if (diags.has_errors()) return errors_to_status(diags, doc.source);
  return c;
}

Result<Cluster> load_cluster_file(const std::string& path, Diagnostics* diags) {
  ZS_ASSIGN_OR_RETURN(json::Document doc, json::parse_file(path));
  return parse_cluster(doc, diags);
}

}  // namespace zs::configs
