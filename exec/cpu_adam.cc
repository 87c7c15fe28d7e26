#include "exec/cpu_adam.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "common/check.h"

namespace zs::exec {

void cpu_adam(float* params, const float* grads, float* exp_avg, float* exp_avg_sq, std::int64_t n,
              const kernels::cpu::AdamConfig& config, std::int64_t step, int threads) {
  ZS_CHECK(threads >= 0 && n >= 0);
  constexpr std::int64_t kMinElemsPerThread = 1 << 16;
  const std::int64_t hardware =
      std::max<std::int64_t>(1, static_cast<std::int64_t>(std::thread::hardware_concurrency()));
  const std::int64_t want = threads == 0 ? hardware : threads;
  const std::int64_t parts = std::clamp<std::int64_t>(n / kMinElemsPerThread, 1, want);
  const auto part = [&](std::int64_t t) {
    const std::int64_t b = n * t / parts, e = n * (t + 1) / parts;
    kernels::cpu::adam_step(params + b, grads + b, exp_avg + b, exp_avg_sq + b, e - b, config,
                            step);
  };
  std::vector<std::thread> pool;
  for (std::int64_t t = 1; t < parts; ++t) pool.emplace_back(part, t);
  part(0);
  for (std::thread& th : pool) th.join();
}

}  // namespace zs::exec
