// Helpers for configs/ tests: read a config from text and look at its diagnostics.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "configs/check.h"

namespace zs::configs {

inline LoadedConfig load(const std::string& text, DsVersion version = kLatestDsVersion) {
  auto r = load_ds_config_text(text, "t.json", LoadOptions{version});
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return r.ok() ? std::move(r).value() : LoadedConfig{};
}

inline LoadedConfig check(const std::string& text, const CheckOptions& options = {}) {
  auto r = run_check_text(text, "t.json", options);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return r.ok() ? std::move(r).value() : LoadedConfig{};
}

// The first diagnostic with `code`, or nullptr.
inline const Diagnostic* find(const LoadedConfig& lc, std::string_view code) {
  return lc.diagnostics.find(code);
}

inline std::string dump(const LoadedConfig& lc) {
  std::string out;
  for (const Diagnostic& d : lc.diagnostics.items()) out += format_diagnostic(d, "t.json") + "\n";
  return out;
}

}  // namespace zs::configs
