#include "configs/ds_config.h"

namespace zs::configs {

Precision training_precision(const DsConfig& c) {
  if (c.bf16.enabled.value) return Precision::kBf16;
  if (c.fp16.enabled.value) return Precision::kFp16;
  return Precision::kFp32;
}

std::string_view precision_name(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kFp16:
      return "fp16";
    case Precision::kBf16:
      return "bf16";
  }
  return "?";
}

}  // namespace zs::configs
