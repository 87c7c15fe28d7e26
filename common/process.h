// Process-wide settings that only main() may apply, the process's CPU clock, and the memory
// the machine has left for it.
#pragma once

#include <cstdint>
#include <optional>

namespace zs {

// Asks the C library to keep memory it frees instead of returning it to the kernel (glibc:
// mallopt M_MMAP_THRESHOLD and M_TRIM_THRESHOLD at 1 GiB). A simulation allocates and frees
// the same multi-megabyte plan arrays over and over; returned to the kernel, each of them
// comes back as fresh zeroed pages, a page fault per 4 KiB (15% of a sweep's time on a 70B
// plan). Does nothing on other C libraries. Call it once, at the start of main().
void keep_freed_memory();

// Seconds of CPU time this process has used, all its threads (CLOCK_PROCESS_CPUTIME_ID): what
// the benchmarks divide by, since other processes on a shared machine disturb it least.
double process_cpu_seconds();

// Bytes of memory this process could still allocate without swapping or being killed: the
// kernel's MemAvailable (/proc/meminfo), or less when a cgroup v2 limit (memory.max less
// memory.current) is tighter. nullopt when neither can be read (not Linux).
std::optional<std::int64_t> available_memory_bytes();

}  // namespace zs
