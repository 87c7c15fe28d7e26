#include "plan/model_load.h"

#include "common/check.h"

namespace zs::plan {

std::optional<LoadDtype> parse_load_dtype(std::string_view text) {
  if (text == "auto") return LoadDtype::kAuto;
  if (text == "fp32") return LoadDtype::kFp32;
  if (text == "bf16") return LoadDtype::kBf16;
  if (text == "fp16") return LoadDtype::kFp16;
  return std::nullopt;
}

std::string_view load_dtype_name(LoadDtype d) {
  switch (d) {
    case LoadDtype::kAuto:
      return "auto";
    case LoadDtype::kFp32:
      return "fp32";
    case LoadDtype::kBf16:
      return "bf16";
    case LoadDtype::kFp16:
      return "fp16";
  }
  return "?";
}

int dtype_bytes(LoadDtype d) { return d == LoadDtype::kAuto || d == LoadDtype::kFp32 ? 4 : 2; }

ModelLoad model_load(LoadDtype load, LoadDtype checkpoint, std::int64_t params, int stage) {
  ZS_CHECK(params >= 0);
  ZS_CHECK(stage >= 0 && stage <= 3);
  ModelLoad m;
  m.stored = checkpoint == LoadDtype::kAuto ? LoadDtype::kFp32 : checkpoint;
  m.loaded = load == LoadDtype::kAuto ? m.stored : load;
  m.cast = m.loaded != m.stored;
  m.page_cache_bytes = params * dtype_bytes(m.stored);
  if (m.cast && stage < 3) m.per_rank_bytes = params * dtype_bytes(m.loaded);
  return m;
}

}  // namespace zs::plan
