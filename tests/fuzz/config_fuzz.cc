// libFuzzer target: any bytes through the whole `zerosim check` pipeline (JSON reader, section
// readers, auto resolution, validation, lints, both renderings). It must never crash, hang,
// trip a ZS_CHECK or a sanitizer; bad input is only ever a Status or a diagnostic.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "configs/check.h"
#include "configs/check_render.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  zs::configs::CheckOptions options;
  // Vary the context with the input so that world-size, model and version paths are reached.
  options.world_size = 1 + static_cast<std::int64_t>(size % 16);
  if (size % 3 == 0) {
    options.model = zs::configs::ModelFacts{"fuzz", 124'439'808, 768, 12, 38'597'376};
  }
  if (size % 5 == 0) options.version = zs::configs::DsVersion{0, 16, 4};
  if (size % 7 == 0) options.micro_batch = 4;
  auto lc = zs::configs::run_check_text(text, "fuzz.json", options);
  if (!lc.ok()) return 0;
  const std::string report = zs::configs::render_check_text(*lc, options);
  const std::string json = zs::configs::render_check_json(*lc, options)
                               .dump(-1, ' ', false, zs::json::Json::error_handler_t::strict);
  return report.empty() || json.empty() ? 0 : 0;
}
