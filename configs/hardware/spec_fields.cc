#include "configs/hardware/spec_fields.h"

#include <optional>
#include <type_traits>
#include <variant>

#include "common/json_fields.h"

namespace zs::configs {
namespace {

template <class Spec>
using Member =
    std::variant<std::string Spec::*, bool Spec::*, int Spec::*, Bytes Spec::*,
                 std::optional<Bytes> Spec::*, double Spec::*, std::optional<double> Spec::*>;

enum class Need { kOptional, kRequired };

template <class Spec>
struct Field {
  std::string_view key;
  Member<Spec> member;
  json::IntRange ints = {};        // for integer members
  json::NumberRange numbers = {};  // for floating-point members
  Need need = Need::kOptional;
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

// Physical ranges. A figure outside them is a typo (a rate in GB/s where bytes/s are meant, a
// FLOP/s of 1), and the simulator would turn it into a step of centuries, so it is refused here
// with the range. Each spans several orders of magnitude past real hardware both ways.
constexpr json::NumberRange kFlopsPerS{.min = 1e9, .max = 1e18};  // H100 dense bf16: ~1e15
constexpr json::NumberRange kMemoryBw{.min = 1e9, .max = 1e15};   // H200 HBM: 4.8e12
constexpr json::NumberRange kLinkBw{.min = 1e6, .max = 1e14};     // NVLink 4: 4.5e11
constexpr json::NumberRange kLatencyS{.min = 0, .max = 1};        // NIC: ~1e-6
constexpr json::IntRange kMemoryBytes{.min = 1 << 20, .max = std::int64_t{1} << 50};
constexpr json::IntRange kNonNegativeBytes{.min = 0, .max = std::int64_t{1} << 50};
// Counts are ints; the bound keeps them there and is far above any real machine.
constexpr json::IntRange kPositiveCount{.min = 1, .max = 1 << 20};
constexpr json::IntRange kNonNegativeCount{.min = 0, .max = 1 << 20};

const std::vector<Field<GpuSpec>>& gpu_fields() {
  using G = GpuSpec;
  constexpr Need kReq = Need::kRequired;
  static const std::vector<Field<G>> kFields = {
      {"name", &G::name},
      {"backend", &G::backend},
      {"fp32_flops_per_s", &G::fp32_flops_per_s, {}, kFlopsPerS, kReq},
      {"tf32_flops_per_s", &G::tf32_flops_per_s, {}, kFlopsPerS},
      {"fp16_flops_per_s", &G::fp16_flops_per_s, {}, kFlopsPerS},
      {"bf16_flops_per_s", &G::bf16_flops_per_s, {}, kFlopsPerS},
      {"fp8_flops_per_s", &G::fp8_flops_per_s, {}, kFlopsPerS},
      {"hbm_bytes", &G::hbm_bytes, kMemoryBytes, {}, kReq},
      {"reported_hbm_bytes", &G::reported_hbm_bytes, kMemoryBytes},
      {"hbm_bw_bytes_per_s", &G::hbm_bw_bytes_per_s, {}, kMemoryBw, kReq},
      {"sm_count", &G::sm_count, kPositiveCount, {}, kReq},
      {"nvlink_bw_bytes_per_s", &G::nvlink_bw_bytes_per_s, {}, kLinkBw},
      {"nvlink_latency_s", &G::nvlink_latency_s, {}, kLatencyS},
      {"pcie_gen", &G::pcie_gen, {.min = 1, .max = 7}, {}, kReq},
      {"pcie_bw_bytes_per_s", &G::pcie_bw_bytes_per_s, {}, kLinkBw, kReq},
      {"pcie_latency_s", &G::pcie_latency_s, {}, kLatencyS},
  };
  return kFields;
}

const std::vector<Field<NodeSpec>>& node_fields() {
  using N = NodeSpec;
  constexpr Need kReq = Need::kRequired;
  static const std::vector<Field<N>> kFields = {
      {"name", &N::name},
      {"max_gpus_per_node", &N::max_gpus_per_node, kPositiveCount, {}, kReq},
      {"nvswitch", &N::nvswitch},
      {"nic_count", &N::nic_count, kNonNegativeCount, {}, kReq},
      {"nic_bw_bytes_per_s", &N::nic_bw_bytes_per_s, {}, kLinkBw, kReq},
      {"nic_latency_s", &N::nic_latency_s, {}, kLatencyS},
      {"host_memory_bytes", &N::host_memory_bytes, kMemoryBytes, {}, kReq},
      {"cpu_cores", &N::cpu_cores, kPositiveCount, {}, kReq},
      {"host_memory_bw_bytes_per_s", &N::host_memory_bw_bytes_per_s, {}, kMemoryBw},
      {"nvme_count", &N::nvme_count, kNonNegativeCount},
      {"nvme_bytes_each", &N::nvme_bytes_each, kNonNegativeBytes},
      {"nvme_read_bw_bytes_per_s", &N::nvme_read_bw_bytes_per_s, {}, kLinkBw},
      {"nvme_write_bw_bytes_per_s", &N::nvme_write_bw_bytes_per_s, {}, kLinkBw},
  };
  return kFields;
}

struct EffectiveField {
  std::string_view key;
  std::optional<Measurement> EffectiveBandwidths::*member;
};

const std::vector<EffectiveField>& effective_fields() {
  using E = EffectiveBandwidths;
  static const std::vector<EffectiveField> kFields = {
      {"nvlink_allreduce_busbw_bytes_per_s", &E::nvlink_allreduce_busbw_bytes_per_s},
      {"nvlink_ring_busbw_bytes_per_s", &E::nvlink_ring_busbw_bytes_per_s},
  };
  return kFields;
}

constexpr std::string_view kEffectiveKey = "effective";

template <class Spec>
void read_field(json::ObjectReader& r, const Field<Spec>& f, Spec* spec) {
  if (!r.has(f.key)) return;
  const bool is_null = r.raw(f.key)->is_null();
  std::visit(
      [&](auto m) {
        using T = std::remove_cvref_t<decltype(spec->*m)>;
        if constexpr (IsOptional<T>::value) {
          if (is_null) {
            (spec->*m).reset();
            return;
          }
        }
        if constexpr (std::is_same_v<T, std::string>) {
          if (auto s = r.get_string(f.key)) spec->*m = *s;
        } else if constexpr (std::is_same_v<T, bool>) {
          if (auto b = r.get_bool(f.key)) spec->*m = *b;
        } else if constexpr (std::is_same_v<T, int>) {
          if (auto i = r.get_int(f.key, f.ints)) spec->*m = static_cast<int>(*i);
        } else if constexpr (std::is_same_v<T, Bytes> || std::is_same_v<T, std::optional<Bytes>>) {
          if (auto i = r.get_int(f.key, f.ints)) spec->*m = *i;
        } else {
          if (auto d = r.get_number(f.key, f.numbers)) spec->*m = *d;
        }
      },
      f.member);
}

template <class Spec>
void read_fields(json::ObjectReader& r, const std::vector<Field<Spec>>& fields, SpecBase base,
                 Spec* spec) {
  for (const auto& f : fields) {
    if (base == SpecBase::kCustom && f.need == Need::kRequired && !r.has(f.key)) {
      r.report(f.key, Severity::kError, "missing-key",
               "\"" + std::string(f.key) + "\" is required when no \"preset\" is given");
      continue;
    }
    read_field(r, f, spec);
  }
}

void read_effective(const json::Document& doc, const json::Json& obj, const std::string& path,
                    EffectiveBandwidths* eff, Diagnostics* diags) {
  json::ObjectReader r(doc, obj, path, diags);
  std::vector<std::string_view> keys;
  for (const auto& f : effective_fields()) {
    keys.push_back(f.key);
    if (!r.has(f.key)) continue;
    if (r.raw(f.key)->is_null()) {
      (eff->*f.member).reset();
    } else if (auto v = r.get_number(f.key, kLinkBw)) {
      eff->*f.member = Measurement{*v, doc.source + " (" + r.member_path(f.key) + ")"};
    }
  }
  r.report_unknown(Severity::kError, keys,
                   "the allowed keys are the fields of EffectiveBandwidths "
                   "(configs/hardware/hardware_spec.h)");
}

template <class Spec>
json::Json fields_to_json(const Spec& spec, const std::vector<Field<Spec>>& fields) {
  json::Json out = json::Json::object();
  for (const auto& f : fields) {
    std::visit(
        [&](auto m) {
          const auto& value = spec.*m;
          using T = std::remove_cvref_t<decltype(value)>;
          if constexpr (IsOptional<T>::value) {
            out[std::string(f.key)] = value ? json::Json(*value) : json::Json(nullptr);
          } else {
            out[std::string(f.key)] = value;
          }
        },
        f.member);
  }
  return out;
}

template <class Spec>
std::vector<std::string_view> keys_of(const std::vector<Field<Spec>>& fields) {
  std::vector<std::string_view> keys;
  for (const auto& f : fields) keys.push_back(f.key);
  return keys;
}

}  // namespace

void read_gpu_spec(const json::Document& doc, const json::Json& obj, const std::string& path,
                   SpecBase base, GpuSpec* gpu, Diagnostics* diags) {
  ZS_CHECK(gpu != nullptr && diags != nullptr);
  json::ObjectReader r(doc, obj, path, diags);
  if (!r.valid()) return;
  read_fields(r, gpu_fields(), base, gpu);
  const auto keys = gpu_spec_keys();
  r.report_unknown(Severity::kError, keys,
                   "the allowed keys are the fields of GpuSpec (configs/hardware/hardware_spec.h)");
}

void read_node_spec(const json::Document& doc, const json::Json& obj, const std::string& path,
                    SpecBase base, NodeSpec* node, Diagnostics* diags) {
  ZS_CHECK(node != nullptr && diags != nullptr);
  json::ObjectReader r(doc, obj, path, diags);
  if (!r.valid()) return;
  read_fields(r, node_fields(), base, node);
  if (const json::Json* eff = r.get_object(kEffectiveKey)) {
    read_effective(doc, *eff, r.member_path(kEffectiveKey), &node->effective, diags);
  }
  const auto keys = node_spec_keys();
  r.report_unknown(
      Severity::kError, keys,
      "the allowed keys are the fields of NodeSpec (configs/hardware/hardware_spec.h)");
}

json::Json gpu_spec_to_json(const GpuSpec& gpu) { return fields_to_json(gpu, gpu_fields()); }

json::Json node_spec_to_json(const NodeSpec& node) {
  json::Json out = fields_to_json(node, node_fields());
  json::Json eff = json::Json::object();
  for (const auto& f : effective_fields()) {
    const auto& m = node.effective.*f.member;
    eff[std::string(f.key)] =
        m ? json::Json{{"value", m->value}, {"source", m->source}} : json::Json(nullptr);
  }
  out[std::string(kEffectiveKey)] = std::move(eff);
  return out;
}

std::vector<std::string_view> gpu_spec_keys() { return keys_of(gpu_fields()); }

std::vector<std::string_view> node_spec_keys() {
  auto keys = keys_of(node_fields());
  keys.push_back(kEffectiveKey);
  return keys;
}

}  // namespace zs::configs
