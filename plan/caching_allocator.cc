#include "plan/caching_allocator.h"

#include <algorithm>

#include "common/check.h"

namespace zs::plan {
namespace {

// c10/cuda/CUDACachingAllocator.cpp.
constexpr Bytes kMinBlockSize = 512;        // all sizes are rounded to at least 512 bytes
constexpr Bytes kSmallSize = 1 << 20;       // largest "small" allocation is 1 MiB
constexpr Bytes kSmallBuffer = 2 << 20;     // "small" allocations are packed in 2 MiB blocks
constexpr Bytes kLargeBuffer = 20 << 20;    // "large" ones under 10 MiB in 20 MiB blocks
constexpr Bytes kMinLargeAlloc = 10 << 20;  // ... allocations between 1 and 10 MiB
constexpr Bytes kRoundLarge = 2 << 20;      // round up large allocations to 2 MiB

}  // namespace

Bytes CachingAllocator::round_size(Bytes bytes) {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return kMinBlockSize * ((bytes + kMinBlockSize - 1) / kMinBlockSize);
}

Bytes CachingAllocator::segment_size(Bytes rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge);
}

int CachingAllocator::new_block(const Block& b) {
  if (!spare_.empty()) {
    const int id = spare_.back();
    spare_.pop_back();
    blocks_[id] = b;
    return id;
  }
  blocks_.push_back(b);
  return static_cast<int>(blocks_.size()) - 1;
}

void CachingAllocator::insert_free(int id) {
  const Block& b = blocks_[id];
  std::vector<FreeEntry>& pool = b.small ? free_small_ : free_large_;
  blocks_[id].pool_pos = static_cast<int>(pool.size());
  pool.push_back(FreeEntry{b.size, b.segment, b.offset, id});
}

void CachingAllocator::erase_free(int id) {
  std::vector<FreeEntry>& pool = blocks_[id].small ? free_small_ : free_large_;
  const int pos = blocks_[id].pool_pos;
  ZS_CHECK(pos >= 0 && pool[pos].id == id);
  pool[pos] = pool.back();
  blocks_[pool[pos].id].pool_pos = pos;
  pool.pop_back();
  blocks_[id].pool_pos = -1;
}

// The smallest free block that holds `rounded`; ties to the lowest (segment, offset), as
// PyTorch's BlockComparatorSize orders its pool.
int CachingAllocator::best_fit(const std::vector<FreeEntry>& pool, Bytes rounded) {
  const FreeEntry* best = nullptr;
  for (const FreeEntry& e : pool) {
    if (e.size < rounded) continue;
    if (best == nullptr || e.size < best->size ||
        (e.size == best->size &&
         (e.segment < best->segment || (e.segment == best->segment && e.offset < best->offset)))) {
      best = &e;
    }
  }
  return best == nullptr ? -1 : best->id;
}

bool CachingAllocator::reserve_segment(Bytes size, bool small) {
  if (reserved_ + size > limit_) release_cached();
  if (reserved_ + size > limit_) return false;
  const int seg = static_cast<int>(segments_.size());
  Block b;
  b.size = size;
  b.segment = seg;
  b.small = small;
  const int id = new_block(b);
  segments_.push_back(Segment{size, id, true});
  insert_free(id);
  reserved_ += size;
  peak_reserved_ = std::max(peak_reserved_, reserved_);
  return true;
}

// release_cached_blocks: every segment with no block in use goes back to the device.
void CachingAllocator::release_cached() {
  for (Segment& s : segments_) {
    if (!s.live) continue;
    const Block& b = blocks_[s.first];
    if (b.next >= 0 || b.pool_pos < 0) continue;  // split, or its one block in use
    erase_free(s.first);
    spare_.push_back(s.first);
    s.live = false;
    reserved_ -= s.size;
  }
}

// Gives `rounded` bytes of free block `id` to a request, splitting off the rest when
// shouldSplit says so.
int CachingAllocator::take(int id, Bytes rounded) {
  erase_free(id);
  const Bytes remaining = blocks_[id].size - rounded;
  const bool split = blocks_[id].small ? remaining >= kMinBlockSize : remaining > kSmallSize;
  if (split) {
    Block tail = blocks_[id];
    tail.offset += rounded;
    tail.size = remaining;
    tail.prev = id;
    tail.pool_pos = -1;
    const int rest = new_block(tail);
    if (blocks_[rest].next >= 0) blocks_[blocks_[rest].next].prev = rest;
    blocks_[id].next = rest;
    blocks_[id].size = rounded;
    insert_free(rest);
  }
  allocated_ += blocks_[id].size;
  peak_allocated_ = std::max(peak_allocated_, allocated_);
  return id;
}

int CachingAllocator::malloc(Bytes bytes) {
  ZS_CHECK(bytes > 0);
  const Bytes rounded = round_size(bytes);
  const bool small = rounded <= kSmallSize;
  const std::vector<FreeEntry>& pool = small ? free_small_ : free_large_;
  int id = best_fit(pool, rounded);
  if (id < 0) {
    if (!reserve_segment(segment_size(rounded), small)) {
      ++failures_;
      failed_bytes_ = std::max(failed_bytes_, rounded);
      return -1;
    }
    id = best_fit(pool, rounded);
    ZS_CHECK(id >= 0);
  }
  return take(id, rounded);
}

void CachingAllocator::absorb(int left, int right) {
  Block& l = blocks_[left];
  l.size += blocks_[right].size;
  l.next = blocks_[right].next;
  if (l.next >= 0) blocks_[l.next].prev = left;
  spare_.push_back(right);
}

void CachingAllocator::free(int id) {
  ZS_CHECK(id >= 0 && id < static_cast<int>(blocks_.size()) && blocks_[id].pool_pos < 0);
  allocated_ -= blocks_[id].size;
  // Merge with the free neighbours in the segment (try_merge_blocks).
  const int prev = blocks_[id].prev;
  if (prev >= 0 && blocks_[prev].pool_pos >= 0) {
    erase_free(prev);
    absorb(prev, id);
    id = prev;
  }
  const int next = blocks_[id].next;
  if (next >= 0 && blocks_[next].pool_pos >= 0) {
    erase_free(next);
    absorb(id, next);
  }
  insert_free(id);
}

}  // namespace zs::plan
