#include "exec/weight_init.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string_view>

#include "common/check.h"

namespace zs::exec {
namespace {

// Standard normal draws from mt19937_64 by Box-Muller, in double.
class NormalStream {
 public:
  explicit NormalStream(std::uint64_t seed) : bits_(seed) {}

  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    // u1 in (0, 1] (so the log is finite), u2 in [0, 1): 53 random bits each.
    const double u1 = static_cast<double>((bits_() >> 11) + 1) * 0x1p-53;
    const double u2 = static_cast<double>(bits_() >> 11) * 0x1p-53;
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(angle);
    has_spare_ = true;
    return r * std::cos(angle);
  }

 private:
  std::mt19937_64 bits_;
  double spare_ = 0;
  bool has_spare_ = false;
};

enum class Init { kNormal, kResidual, kOne, kZero };

bool is_residual_projection(std::string_view op_name) {
  return op_name.ends_with(".attn.out_proj") || op_name.ends_with(".mlp.down");
}

// How each parameter id starts, from the ops that read it.
std::vector<Init> init_kinds(const std::vector<models::Op>& ops,
                             const std::vector<models::ParamTensor>& params) {
  std::vector<Init> kinds(params.size(), Init::kNormal);
  for (const models::Op& op : ops) {
    for (int id : op.param_ids) {
      const models::ParamTensor& p = params[static_cast<std::size_t>(id)];
      Init& kind = kinds[static_cast<std::size_t>(id)];
      if (p.is_bias) {
        kind = Init::kZero;
      } else if (op.kind == models::OpKind::kNorm) {
        kind = Init::kOne;
      } else if (is_residual_projection(op.name)) {
        kind = Init::kResidual;
      }
    }
  }
  return kinds;
}

}  // namespace

void init_gpt2_weights(const std::vector<models::Op>& ops,
                       const std::vector<models::ParamTensor>& params,
                       const std::vector<std::int64_t>& offsets, std::int64_t num_layers,
                       std::uint64_t seed, std::span<float> flat) {
  ZS_CHECK(offsets.size() == params.size());
  ZS_CHECK(num_layers >= 1);
  const std::vector<Init> kinds = init_kinds(ops, params);
  const double residual_std = kGpt2InitStd / std::sqrt(2.0 * static_cast<double>(num_layers));
  NormalStream normal(seed);
  for (const models::ParamTensor& p : params) {
    if (p.tied) continue;
    const std::int64_t offset = offsets[static_cast<std::size_t>(p.id)];
    ZS_CHECK(offset >= 0 && offset + p.numel <= static_cast<std::int64_t>(flat.size()));
    const std::span<float> values =
        flat.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(p.numel));
    switch (kinds[static_cast<std::size_t>(p.id)]) {
      case Init::kZero:
        std::fill(values.begin(), values.end(), 0.0f);
        break;
      case Init::kOne:
        std::fill(values.begin(), values.end(), 1.0f);
        break;
      case Init::kNormal:
      case Init::kResidual: {
        const bool residual = kinds[static_cast<std::size_t>(p.id)] == Init::kResidual;
        const double stddev = residual ? residual_std : kGpt2InitStd;
        for (float& v : values) v = static_cast<float>(stddev * normal.next());
        break;
      }
    }
  }
}

}  // namespace zs::exec
