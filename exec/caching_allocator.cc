#include "exec/caching_allocator.h"

#include <cstdlib>
#include <iterator>
#include <string>
#include <vector>

namespace zs::exec {
namespace {

constexpr std::size_t kHostAlignment = 512;

std::string bytes_text(Bytes bytes) {
  return format_grouped(bytes) + " bytes (" + format_bytes(bytes) + ")";
}

}  // namespace

Result<void*> HostMemory::allocate(std::int64_t bytes) {
  ZS_CHECK(bytes > 0);
  // aligned_alloc wants a multiple of the alignment.
  const auto size = static_cast<std::size_t>(round_block_bytes(bytes));
  void* p = std::aligned_alloc(kHostAlignment, size);
  if (p == nullptr) {
    return Status::invalid_argument("out of memory: aligned_alloc of " + bytes_text(bytes) +
                                    " failed");
  }
  return p;
}

void HostMemory::release(void* p, std::int64_t /*bytes*/) { std::free(p); }

std::int64_t round_block_bytes(std::int64_t bytes) {
  ZS_CHECK(bytes >= 0);
  if (bytes < kMinBlockBytes) return kMinBlockBytes;
  return kMinBlockBytes * ((bytes + kMinBlockBytes - 1) / kMinBlockBytes);
}

std::int64_t segment_bytes_for(std::int64_t rounded_bytes) {
  if (rounded_bytes <= kSmallBytes) return kSmallSegmentBytes;
  if (rounded_bytes < kMinLargeAllocBytes) return kLargeSegmentBytes;
  return kRoundLargeBytes * ((rounded_bytes + kRoundLargeBytes - 1) / kRoundLargeBytes);
}

CachingAllocator::CachingAllocator(RawMemory& raw) : raw_(raw) {}

CachingAllocator::~CachingAllocator() {
  for (const auto& [base, segment] : segments_) {
    raw_.release(reinterpret_cast<void*>(base), segment.bytes);
  }
}

Result<Block> CachingAllocator::allocate(std::int64_t bytes) {
  if (bytes < 0) {
    return Status::invalid_argument("caching allocator: cannot allocate " + std::to_string(bytes) +
                                    " bytes; expected a size >= 0");
  }
  if (bytes == 0) return Block{};
  const std::int64_t rounded = round_block_bytes(bytes);
  const bool small = rounded <= kSmallBytes;
  FreePool& free_pool = pool(small);

  // Best fit (get_free_block): the smallest cached block of this pool that holds `rounded`.
  Address addr = 0;
  auto fit = free_pool.lower_bound({rounded, Address{0}});
  if (fit != free_pool.end()) {
    addr = fit->second;
    free_pool.erase(fit);
  } else {
    ZS_ASSIGN_OR_RETURN(addr, new_segment(rounded, small, bytes));
  }

  BlockInfo& block = blocks_.at(addr);
  ZS_CHECK(!block.allocated && block.small == small && block.bytes >= rounded);
  // should_split: keep the front, cache the rest when it is worth a block of its own.
  const std::int64_t remaining = block.bytes - rounded;
  if (small ? remaining >= kMinBlockBytes : remaining > kSmallBytes) {
    const Address rest = addr + static_cast<Address>(rounded);
    blocks_.emplace(rest, BlockInfo{remaining, block.segment, small, false});
    free_pool.insert({remaining, rest});
    block.bytes = rounded;  // std::map references survive the insertion
  }
  block.allocated = true;
  add_allocated(block.bytes);
  return Block{reinterpret_cast<void*>(addr), block.bytes};
}

void CachingAllocator::free(Block handle) {
  if (handle.ptr == nullptr) {
    ZS_CHECK(handle.bytes == 0);
    return;
  }
  auto it = blocks_.find(reinterpret_cast<Address>(handle.ptr));
  ZS_CHECK_MSG(it != blocks_.end() && it->second.allocated,
               "free() of a block this allocator did not hand out, or freed twice");
  ZS_CHECK(it->second.bytes == handle.bytes);
  stats_.allocated_bytes -= handle.bytes;
  it->second.allocated = false;
  FreePool& free_pool = pool(it->second.small);

  // try_merge_blocks with the next and the previous block of the same segment.
  auto next = std::next(it);
  if (next != blocks_.end() && next->second.segment == it->second.segment &&
      !next->second.allocated) {
    ZS_CHECK(next->first == it->first + static_cast<Address>(it->second.bytes));
    free_pool.erase({next->second.bytes, next->first});
    it->second.bytes += next->second.bytes;
    blocks_.erase(next);
  }
  if (it != blocks_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.segment == it->second.segment && !prev->second.allocated) {
      ZS_CHECK(it->first == prev->first + static_cast<Address>(prev->second.bytes));
      free_pool.erase({prev->second.bytes, prev->first});
      prev->second.bytes += it->second.bytes;
      blocks_.erase(it);
      it = prev;
    }
  }
  free_pool.insert({it->second.bytes, it->first});
}

void CachingAllocator::empty_cache() {
  // release_cached_blocks: only blocks with no neighbours (a whole segment) go back.
  std::vector<Address> whole;
  for (const auto& [base, segment] : segments_) {
    const BlockInfo& first = blocks_.at(base);
    if (!first.allocated && first.bytes == segment.bytes) whole.push_back(base);
  }
  for (Address base : whole) release_segment(base);
}

Result<CachingAllocator::Address> CachingAllocator::new_segment(std::int64_t rounded_bytes,
                                                                bool small,
                                                                std::int64_t requested) {
  const std::int64_t segment_bytes = segment_bytes_for(rounded_bytes);
  Result<void*> raw = raw_.allocate(segment_bytes);
  if (!raw.ok()) {
    // DeviceCachingAllocator::malloc: free every cached whole segment, then retry once.
    empty_cache();
    raw = raw_.allocate(segment_bytes);
  }
  if (!raw.ok()) {
    return Status::invalid_argument(
        "out of memory: tried to allocate " + bytes_text(requested) + " (a new segment of " +
        bytes_text(segment_bytes) + "); this allocator has " + bytes_text(stats_.reserved_bytes) +
        " reserved, of which " + bytes_text(stats_.allocated_bytes) +
        " allocated, after emptying its cache; raw allocation failed: " + raw.status().message());
  }
  const auto base = reinterpret_cast<Address>(raw.value());
  ZS_CHECK_MSG(base != 0 && base % kMinBlockBytes == 0,
               "RawMemory::allocate returned a null or under-aligned pointer");
  ++stats_.num_raw_allocs;
  add_reserved(segment_bytes);
  segments_.emplace(base, Segment{segment_bytes, small});
  blocks_.emplace(base, BlockInfo{segment_bytes, base, small, false});
  return base;
}

void CachingAllocator::release_segment(Address base) {
  auto seg = segments_.find(base);
  ZS_CHECK(seg != segments_.end());
  const std::int64_t bytes = seg->second.bytes;
  pool(seg->second.small).erase({bytes, base});
  blocks_.erase(base);
  segments_.erase(seg);
  raw_.release(reinterpret_cast<void*>(base), bytes);
  ++stats_.num_raw_frees;
  stats_.reserved_bytes -= bytes;
}

void CachingAllocator::add_allocated(std::int64_t bytes) {
  stats_.allocated_bytes += bytes;
  if (stats_.allocated_bytes > stats_.peak_allocated_bytes) {
    stats_.peak_allocated_bytes = stats_.allocated_bytes;
  }
}

void CachingAllocator::add_reserved(std::int64_t bytes) {
  stats_.reserved_bytes += bytes;
  if (stats_.reserved_bytes > stats_.peak_reserved_bytes) {
    stats_.peak_reserved_bytes = stats_.reserved_bytes;
  }
}

}  // namespace zs::exec
