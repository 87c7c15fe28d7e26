#include "tuning/sweep_wire.h"

#include <cstring>
#include <type_traits>

namespace zs::tuning {
namespace {

constexpr std::uint32_t kRowMagic = 0x5a535257;  // "ZSRW": each row starts with it

template <typename T>
void put(std::string* out, T v) {
  static_assert(std::is_trivially_copyable_v<T>);
  char buf[sizeof(T)];
  std::memcpy(buf, &v, sizeof(T));
  out->append(buf, sizeof(T));
}

void put_string(std::string* out, std::string_view s) {
  put<std::uint64_t>(out, s.size());
  out->append(s);
}

class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  bool done() const { return rest_.empty(); }
  bool ok() const { return ok_; }
  template <typename T>
  T get() {
    T v{};
    if (rest_.size() < sizeof(T)) {
      ok_ = false;
      rest_ = {};
      return v;
    }
    std::memcpy(&v, rest_.data(), sizeof(T));
    rest_.remove_prefix(sizeof(T));
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    if (!ok_ || n > rest_.size()) {
      ok_ = false;
      rest_ = {};
      return {};
    }
    std::string s(rest_.substr(0, n));
    rest_.remove_prefix(n);
    return s;
  }

 private:
  std::string_view rest_;
  bool ok_ = true;
};

}  // namespace

void encode_rows(std::span<const SweepRow> rows, std::string* out) {
  for (const SweepRow& r : rows) {
    put(out, kRowMagic);
    put<std::int32_t>(out, r.id);
    put<std::uint8_t>(out, r.baseline);
    put<std::uint8_t>(out, r.ok);
    put_string(out, r.error);
    put_string(out, r.rendered);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(r.values.size()));
    for (const json::Json& v : r.values) {
      put_string(out, v.dump(-1, ' ', false, json::Json::error_handler_t::replace));
    }
    const VariantMetrics& m = r.metrics;
    put(out, m.gpu_peak_bytes);
    put(out, m.gpu_capacity_bytes);
    put<std::uint8_t>(out, m.gpu_oom);
    put<std::uint8_t>(out, m.host_oom);
    for (Bytes b : m.gpu_breakdown.bytes) put(out, b);
    for (double d : {m.step_s, m.compute_s, m.exposed_comm_s, m.exposed_offload_s, m.optimizer_s,
                     m.other_s, m.samples_per_s, m.tokens_per_s, m.tflops_per_gpu, m.mfu, m.band}) {
      put(out, d);
    }
    put<std::int32_t>(out, static_cast<std::int32_t>(m.regime));
    put(out, m.micro_batch);
    put(out, m.grad_accum);
    put(out, m.train_batch_size);
  }
}

Result<std::vector<SweepRow>> decode_rows(std::string_view bytes, std::string_view from) {
  std::vector<SweepRow> rows;
  Reader in(bytes);
  const auto bad = [&](const char* what) {
    return Status::io_error("sweep rows from " + std::string(from) + ": " + what + " (row " +
                            std::to_string(rows.size()) + " of what it sent)");
  };
  while (!in.done()) {
    if (in.get<std::uint32_t>() != kRowMagic) return bad("not a row");
    SweepRow r;
    r.id = in.get<std::int32_t>();
    r.baseline = in.get<std::uint8_t>() != 0;
    r.ok = in.get<std::uint8_t>() != 0;
    r.error = in.get_string();
    r.rendered = in.get_string();
    const auto values = in.get<std::uint32_t>();
    if (!in.ok()) return bad("cut short");
    for (std::uint32_t k = 0; k < values && in.ok(); ++k) {
      const std::string text = in.get_string();
      auto v = json::Json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (v.is_discarded()) return bad("an axis value that is not JSON");
      r.values.push_back(std::move(v));
    }
    VariantMetrics& m = r.metrics;
    m.gpu_peak_bytes = in.get<Bytes>();
    m.gpu_capacity_bytes = in.get<Bytes>();
    m.gpu_oom = in.get<std::uint8_t>() != 0;
    m.host_oom = in.get<std::uint8_t>() != 0;
    for (Bytes& b : m.gpu_breakdown.bytes) b = in.get<Bytes>();
    for (double* d :
         {&m.step_s, &m.compute_s, &m.exposed_comm_s, &m.exposed_offload_s, &m.optimizer_s,
          &m.other_s, &m.samples_per_s, &m.tokens_per_s, &m.tflops_per_gpu, &m.mfu, &m.band}) {
      *d = in.get<double>();
    }
    const auto regime = in.get<std::int32_t>();
    if (regime < 0 || regime > static_cast<std::int32_t>(sim::Regime::kCpuBackend)) {
      return bad("an unknown regime");
    }
    m.regime = static_cast<sim::Regime>(regime);
    m.micro_batch = in.get<std::int64_t>();
    m.grad_accum = in.get<std::int64_t>();
    m.train_batch_size = in.get<std::int64_t>();
    if (!in.ok()) return bad("cut short");
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace zs::tuning
