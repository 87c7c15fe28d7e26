// An arena for the nodes of a node-based container (std::set, std::map) that inserts and erases
// at a high rate: nodes, all of one size, are carved from chunks of 64 and recycled through a
// free list; everything goes back to the heap with the arena. Not thread-safe: one container
// family per arena, used by one thread at a time.
//
//   NodeArena arena;  // declared before the containers that use it
//   std::set<int, std::less<>, ArenaAllocator<int>> s{std::less<>{}, ArenaAllocator<int>(&arena)};
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace zs {

class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;
  ~NodeArena() {
    for (void* chunk : chunks_) ::operator delete(chunk);
  }
  // A node of `bytes`, the size of every node this arena gives.
  // REQUIRES: bytes >= sizeof(void*); node_bytes() is 0 or `bytes`.
  void* take(std::size_t bytes) {
    if (free_ == nullptr) {
      node_bytes_ = bytes;  // a chunk of 64 nodes
      char* chunk = static_cast<char*>(::operator new(node_bytes_ * 64));
      chunks_.push_back(chunk);
      for (int k = 63; k >= 0; --k) give(chunk + node_bytes_ * static_cast<std::size_t>(k));
    }
    void* p = free_;
    free_ = *static_cast<void**>(free_);
    return p;
  }
  // Returns a node that take() gave.
  void give(void* p) {
    *static_cast<void**>(p) = free_;
    free_ = p;
  }
  // The size of its nodes; 0 before the first.
  std::size_t node_bytes() const { return node_bytes_; }

 private:
  void* free_ = nullptr;
  std::size_t node_bytes_ = 0;
  std::vector<void*> chunks_;
};

// The allocator of a container whose nodes come from a NodeArena.
template <typename T>
struct ArenaAllocator {
  using value_type = T;
  NodeArena* arena;
  explicit ArenaAllocator(NodeArena* a) : arena(a) {}
  template <typename U>
  ArenaAllocator(const ArenaAllocator<U>& o) : arena(o.arena) {}  // NOLINT: rebinding
  T* allocate(std::size_t n) {
    // Nodes come one at a time and all of one size; anything else from the heap.
    if (n == 1 && sizeof(T) >= sizeof(void*) &&
        (arena->node_bytes() == 0 || arena->node_bytes() == sizeof(T))) {
      return static_cast<T*>(arena->take(sizeof(T)));
    }
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) {
    if (n == 1 && arena->node_bytes() == sizeof(T)) {
      arena->give(p);
    } else {
      ::operator delete(p);
    }
  }
  template <typename U>
  bool operator==(const ArenaAllocator<U>& o) const {
    return arena == o.arena;
  }
};

}  // namespace zs
