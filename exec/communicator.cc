#include "exec/communicator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

#include "kernels/cpu/dtype.h"

namespace zs::exec {
namespace {

class SelfCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  Status all_reduce(void*, std::int64_t count, plan::Dtype dtype) override {
    return check_collective("all_reduce", count, dtype, 0, 1);
  }
  Status reduce_scatter(void*, std::int64_t count, plan::Dtype dtype) override {
    return check_collective("reduce_scatter", count, dtype, 0, 1);
  }
  Status all_gather(void*, std::int64_t count, plan::Dtype dtype) override {
    return check_collective("all_gather", count, dtype, 0, 1);
  }
  Status reduce(void*, std::int64_t count, plan::Dtype dtype, int root) override {
    return check_collective("reduce", count, dtype, root, 1);
  }
  Status broadcast(void*, std::int64_t count, plan::Dtype dtype, int root) override {
    return check_collective("broadcast", count, dtype, root, 1);
  }
};

template <class T>
void accumulate_as(T* dst, const T* src, std::int64_t count) {
  namespace k = kernels::cpu;
  for (std::int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      dst[i] = dst[i] + src[i];
    } else if constexpr (std::is_same_v<T, std::uint8_t>) {
      dst[i] = std::max(dst[i], src[i]);
    } else if constexpr (std::is_same_v<T, k::Bf16>) {
      dst[i] = k::float_to_bf16(k::bf16_to_float(dst[i]) + k::bf16_to_float(src[i]));
    } else {
      dst[i] = k::float_to_fp16(k::fp16_to_float(dst[i]) + k::fp16_to_float(src[i]));
    }
  }
}

// The ring reduce-scatter of the contract over n buffers, chunk c of buffer r at
// buffers[r] + elem * chunk(c).begin: afterwards buffer c's chunk c holds chunk c's sum.
template <class ChunkOf>
void reference_ring_reduce(std::span<std::vector<std::byte>> buffers, plan::Dtype dtype,
                           ChunkOf chunk) {
  const int n = static_cast<int>(buffers.size());
  const Bytes elem = plan::dtype_size(dtype);
  for (int c = 0; c < n; ++c) {
    const Chunk ch = chunk(c);
    // acc travels c+1, c+2, ..., c; rank c+1 starts it with its own chunk.
    std::vector<std::byte> acc(buffers[(c + 1) % n].begin() + ch.begin * elem,
                               buffers[(c + 1) % n].begin() + ch.end * elem);
    for (int s = 2; s <= n; ++s) {
      const int r = (c + s) % n;
      add_into(acc.data(), buffers[r].data() + ch.begin * elem, ch.end - ch.begin, dtype);
      if (r != c) {
        // The partial sum rank r sends on replaces its chunk (NCCL reduces in place).
        copy_bytes(buffers[r].data() + ch.begin * elem, acc.data(),
                   static_cast<std::int64_t>(acc.size()));
      }
    }
    copy_bytes(buffers[c].data() + ch.begin * elem, acc.data(),
               static_cast<std::int64_t>(acc.size()));
  }
}

}  // namespace

std::unique_ptr<Communicator> make_self_communicator() {
  return std::make_unique<SelfCommunicator>();
}

Status check_collective(std::string_view what, std::int64_t count, plan::Dtype dtype, int root,
                        int size) {
  const std::string w(what);
  switch (dtype) {
    case plan::Dtype::kU8:
    case plan::Dtype::kFp16:
    case plan::Dtype::kBf16:
    case plan::Dtype::kFp32:
    case plan::Dtype::kFp64:
      break;
    default:
      return Status::invalid_argument(w + ": dtype " + std::to_string(static_cast<int>(dtype)) +
                                      " is not one a collective carries (u8, fp16, bf16, fp32, "
                                      "fp64)");
  }
  if (count < 0) {
    return Status::invalid_argument(w + ": element count " + std::to_string(count) +
                                    " is negative");
  }
  if (root < 0 || root >= size) {
    return Status::invalid_argument(w + ": root " + std::to_string(root) +
                                    " is not a rank of a group of " + std::to_string(size));
  }
  return Status::ok();
}

void copy_bytes(void* dst, const void* src, std::int64_t n) {
  if (n > 0) std::memcpy(dst, src, static_cast<std::size_t>(n));
}

Chunk ring_chunk(std::int64_t count, int n, int c) { return {count * c / n, count * (c + 1) / n}; }

void add_into(void* dst, const void* src, std::int64_t count, plan::Dtype dtype) {
  namespace k = kernels::cpu;
  switch (dtype) {
    case plan::Dtype::kFp32:
      accumulate_as(static_cast<float*>(dst), static_cast<const float*>(src), count);
      return;
    case plan::Dtype::kBf16:
      accumulate_as(static_cast<k::Bf16*>(dst), static_cast<const k::Bf16*>(src), count);
      return;
    case plan::Dtype::kFp16:
      accumulate_as(static_cast<k::Fp16*>(dst), static_cast<const k::Fp16*>(src), count);
      return;
    case plan::Dtype::kFp64:
      accumulate_as(static_cast<double*>(dst), static_cast<const double*>(src), count);
      return;
    case plan::Dtype::kU8:
      accumulate_as(static_cast<std::uint8_t*>(dst), static_cast<const std::uint8_t*>(src), count);
      return;
  }
}

void reference_all_reduce(std::span<std::vector<std::byte>> buffers, std::int64_t count,
                          plan::Dtype dtype) {
  const int n = static_cast<int>(buffers.size());
  if (n <= 1) return;
  reference_ring_reduce(buffers, dtype, [&](int c) { return ring_chunk(count, n, c); });
  // The all-gather: every rank copies each finished chunk from its owner.
  const Bytes elem = plan::dtype_size(dtype);
  for (int c = 0; c < n; ++c) {
    const Chunk ch = ring_chunk(count, n, c);
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      copy_bytes(buffers[r].data() + ch.begin * elem, buffers[c].data() + ch.begin * elem,
                 (ch.end - ch.begin) * elem);
    }
  }
}

void reference_reduce_scatter(std::span<std::vector<std::byte>> buffers, std::int64_t count,
                              plan::Dtype dtype) {
  const int n = static_cast<int>(buffers.size());
  if (n <= 1) return;
  reference_ring_reduce(buffers, dtype, [&](int c) { return Chunk{c * count, (c + 1) * count}; });
}

void reference_all_gather(std::span<std::vector<std::byte>> buffers, std::int64_t count,
                          plan::Dtype dtype) {
  const int n = static_cast<int>(buffers.size());
  const Bytes elem = plan::dtype_size(dtype);
  for (int c = 0; c < n; ++c) {
    for (int r = 0; r < n; ++r) {
      if (r == c) continue;
      copy_bytes(buffers[r].data() + c * count * elem, buffers[c].data() + c * count * elem,
                 count * elem);
    }
  }
}

Result<std::vector<std::string>> all_gather_bytes(Communicator& c, std::string_view mine) {
  const auto n = static_cast<std::size_t>(c.size());
  const auto rank = static_cast<std::size_t>(c.rank());
  std::vector<std::int64_t> lengths(n, 0);
  lengths[rank] = static_cast<std::int64_t>(mine.size());
  ZS_RETURN_IF_ERROR(c.all_gather(lengths.data(), sizeof(std::int64_t), plan::Dtype::kU8));
  const std::int64_t longest = *std::max_element(lengths.begin(), lengths.end());
  std::vector<std::string> out(n);
  if (longest == 0) return out;
  std::string all(n * static_cast<std::size_t>(longest), '\0');
  copy_bytes(all.data() + rank * static_cast<std::size_t>(longest), mine.data(),
             static_cast<std::int64_t>(mine.size()));
  ZS_RETURN_IF_ERROR(c.all_gather(all.data(), longest, plan::Dtype::kU8));
  for (std::size_t r = 0; r < n; ++r) {
    if (lengths[r] < 0 || lengths[r] > longest) {
      return Status::io_error("all_gather_bytes: rank " + std::to_string(r) + " sent a length of " +
                              std::to_string(lengths[r]) + " bytes");
    }
    out[r] =
        all.substr(r * static_cast<std::size_t>(longest), static_cast<std::size_t>(lengths[r]));
  }
  return out;
}

}  // namespace zs::exec
