// libFuzzer target: any bytes as a cluster file (configs/hardware/cluster.h parse_cluster), and
// every cluster it accepts simulated with a small model. Must never crash, hang, trip a ZS_CHECK
// or a sanitizer: bad input is only ever a Status.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "configs/hardware/cluster.h"
#include "models/zoo.h"
#include "tests/fuzz/fuzz_simulate.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto doc = zs::json::parse_text(text, "fuzz_cluster.json");
  if (!doc.ok()) return 0;
  auto cluster = zs::configs::parse_cluster(*doc);
  if (!cluster.ok()) return 0;
  zs::sim::SimulationRequest r;
  r.model = zs::models::zoo_model("tiny-gpt").value();
  r.cluster = *cluster;
  zs::fuzz::simulate_quietly(r, static_cast<int>(size % 4));
  return 0;
}
