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

// shouldSplit: what remains of a block after a request becomes a block of its own when it is at
// least 512 bytes (small pool) or more than 1 MiB (large pool).
bool CachingAllocator::splits(bool small, Bytes remaining) {
  return small ? remaining >= kMinBlockSize : remaining > kSmallSize;
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
  Block& b = blocks_[id];
  FreePool& pool = b.small ? free_small_ : free_large_;
  b.where = pool.insert(FreeKey{b.size, b.segment, b.offset, id}).first;
  b.free = true;
  if (whole_segment(b)) ++free_segments_;
}

void CachingAllocator::erase_free(int id) {
  Block& b = blocks_[id];
  ZS_CHECK(b.free && b.where->id == id);
  (b.small ? free_small_ : free_large_).erase(b.where);
  b.free = false;
  if (whole_segment(b)) --free_segments_;
}

// The smallest free block that holds `rounded`; ties to the lowest (segment, offset).
int CachingAllocator::best_fit(const FreePool& pool, Bytes rounded) {
  const auto it = pool.lower_bound(FreeKey{rounded, -1, -1, -1});
  return it == pool.end() ? -1 : it->id;
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
// Scans the segments only when one is wholly free; each scan then releases at least one.
void CachingAllocator::release_cached() {
  if (free_segments_ == 0) return;
  for (Segment& s : segments_) {
    if (!s.live) continue;
    const Block& b = blocks_[s.first];
    if (b.next >= 0 || !b.free) continue;  // split, or its one block in use
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
  if (splits(blocks_[id].small, remaining)) {
    Block tail = blocks_[id];
    tail.offset += rounded;
    tail.size = remaining;
    tail.prev = id;
    tail.free = false;
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
  const FreePool& pool = small ? free_small_ : free_large_;
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

void CachingAllocator::malloc_and_free(Bytes bytes) {
  ZS_CHECK(bytes > 0);
  const Bytes rounded = round_size(bytes);
  const bool small = rounded <= kSmallSize;
  const int id = best_fit(small ? free_small_ : free_large_, rounded);
  if (id >= 0) {
    // take() would split off the tail as it decides here, and free() merge it back: no two free
    // blocks neighbour each other, so the block's other neighbour is in use.
    const bool split = splits(small, blocks_[id].size - rounded);
    peak_allocated_ = std::max(peak_allocated_, allocated_ + (split ? rounded : blocks_[id].size));
    return;
  }
  const int h = malloc(bytes);
  if (h >= 0) free(h);
}

void CachingAllocator::absorb(int left, int right) {
  Block& l = blocks_[left];
  l.size += blocks_[right].size;
  l.next = blocks_[right].next;
  if (l.next >= 0) blocks_[l.next].prev = left;
  spare_.push_back(right);
}

void CachingAllocator::free(int id) {
  ZS_CHECK(id >= 0 && id < static_cast<int>(blocks_.size()) && !blocks_[id].free);
  allocated_ -= blocks_[id].size;
  // Merge with the free neighbours in the segment (try_merge_blocks).
  const int prev = blocks_[id].prev;
  if (prev >= 0 && blocks_[prev].free) {
    erase_free(prev);
    absorb(prev, id);
    id = prev;
  }
  const int next = blocks_[id].next;
  if (next >= 0 && blocks_[next].free) {
    erase_free(next);
    absorb(id, next);
  }
  insert_free(id);
}

}  // namespace zs::plan
