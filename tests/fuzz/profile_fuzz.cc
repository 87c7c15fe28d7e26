// libFuzzer target: any bytes as a calibration profile (sim/cost_profile.h), and every profile it
// accepts simulated on two nodes (NICs, NVLink, PCIe and CPU Adam all priced). Must never crash,
// hang, trip a ZS_CHECK or a sanitizer: bad input is only ever a Status.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "configs/hardware/cluster.h"
#include "models/zoo.h"
#include "sim/cost_profile.h"
#include "tests/fuzz/fuzz_simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = zs::json::parse_text(text, "fuzz_profile.json");
  if (!doc.ok()) return 0;
  zs::sim::SimulationRequest r;
  r.model = zs::models::zoo_model("tiny-gpt").value();
  r.cluster = zs::configs::make_cluster(size % 2 ? "h100" : "a100-40gb", 2, 8).value();
  auto profile = zs::sim::cost_profile_from_document(*doc, zs::sim::default_cost_profile(r.cluster));
  if (!profile.ok()) return 0;
  r.profile = *profile;
  zs::fuzz::simulate_quietly(r, static_cast<int>(size % 4));
  return 0;
}
