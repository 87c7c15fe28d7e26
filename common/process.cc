#include "common/process.h"

#include <algorithm>
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <ctime>
#include <string>
#include <string_view>

#include "common/file.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace zs {

void keep_freed_memory() {
#if defined(__GLIBC__)
  constexpr int kThresholdBytes = 1 << 30;
  mallopt(M_MMAP_THRESHOLD, kThresholdBytes);
  mallopt(M_TRIM_THRESHOLD, kThresholdBytes);
#endif
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

namespace {

// The first integer after `key` in `text`, or nullopt.
std::optional<std::int64_t> number_after(const std::string& text, std::string_view key) {
  const std::size_t at = text.find(key);
  if (at == std::string::npos) return std::nullopt;
  const char* p = text.c_str() + at + key.size();
  while (*p == ' ' || *p == '\t') ++p;
  char* end = nullptr;
  const long long v = std::strtoll(p, &end, 10);
  if (end == p) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

std::optional<std::int64_t> file_number(const char* path, std::string_view key = "") {
  auto text = read_file(path, "system file", 1 << 20);
  if (!text.ok()) return std::nullopt;
  return number_after(*text, key);
}

}  // namespace

std::optional<std::int64_t> available_memory_bytes() {
  std::optional<std::int64_t> available;
  if (const auto kib = file_number("/proc/meminfo", "MemAvailable:")) available = *kib * 1024;
  // cgroup v2: memory.max is "max" (no limit; not a number) or bytes.
  const auto limit = file_number("/sys/fs/cgroup/memory.max");
  const auto used = file_number("/sys/fs/cgroup/memory.current");
  if (limit && used) {
    const std::int64_t left = std::max<std::int64_t>(0, *limit - *used);
    available = available ? std::min(*available, left) : left;
  }
  return available;
}

}  // namespace zs
