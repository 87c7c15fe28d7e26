// libFuzzer target: any bytes as a Hugging Face config.json (models/hf_config.h), and every model
// it accepts simulated with short sequences. Must never crash, hang, trip a ZS_CHECK or a
// sanitizer: bad input is only ever a Status.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "configs/hardware/cluster.h"
#include "models/hf_config.h"
#include "tests/fuzz/fuzz_simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = zs::json::parse_text(text, "fuzz_config.json");
  if (!doc.ok()) return 0;
  zs::Diagnostics warnings;
  auto model = zs::models::hf_config_from_document(*doc, &warnings);
  if (!model.ok()) return 0;
  zs::sim::SimulationRequest r;
  r.model = *model;
  r.cluster = zs::configs::make_cluster("h100", 1, 8).value();
  r.seq_len = 1 + static_cast<std::int64_t>(size % 64);
  zs::fuzz::simulate_quietly(r, static_cast<int>(size % 4));
  return 0;
}
