#include "cli/progress.h"

#include <unistd.h>

#include <cstdio>

namespace zs::cli {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressBar::ProgressBar(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled), start_(Clock::now()), last_(start_) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void ProgressBar::update(std::int64_t done, std::int64_t total) {
  if (!enabled_ || total <= 0) return;
  const Clock::time_point now = Clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  if (elapsed_s < 1.0 || (drawn_ && now - last_ < std::chrono::milliseconds(100))) return;
  last_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const double fraction = static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kWidth);
  const std::string bar = std::string(filled, '#') + std::string(kWidth - filled, '.');
  const double eta_s = done > 0 ? elapsed_s * static_cast<double>(total - done) / done : 0;
  std::fprintf(stderr, "\r%s [%s] %lld/%lld  %.0f/s  ETA %.0f s\033[K", label_.c_str(), bar.c_str(),
               static_cast<long long>(done), static_cast<long long>(total), done / elapsed_s,
               eta_s);
  std::fflush(stderr);
}

}  // namespace zs::cli
