// Process-wide settings that only main() may apply.
#pragma once

namespace zs {

// Asks the C library to keep memory it frees instead of returning it to the kernel (glibc:
// mallopt M_MMAP_THRESHOLD and M_TRIM_THRESHOLD at 1 GiB). A simulation allocates and frees
// the same multi-megabyte plan arrays over and over; returned to the kernel, each of them
// comes back as fresh zeroed pages, a page fault per 4 KiB (15% of a sweep's time on a 70B
// plan). Does nothing on other C libraries. Call it once, at the start of main().
void keep_freed_memory();

}  // namespace zs
