// Internal to configs/: adds diagnostics about a loaded config at a JSON path, positioned where
// the file writes that path (or its nearest parent).
#pragma once

#include <string>

#include "configs/ds_config_reader.h"

namespace zs::configs {

class Reporter {
 public:
  explicit Reporter(LoadedConfig* lc) : lc_(lc) {}
  void add(Severity s, std::string code, const std::string& path, std::string msg,
           std::string hint = "") {
    Diagnostic d;
    d.severity = s;
    d.code = std::move(code);
    d.path = path;
    d.pos = lc_->document.position_of(path);
    d.message = std::move(msg);
    d.hint = std::move(hint);
    lc_->diagnostics.add(std::move(d));
  }
  void error(std::string code, const std::string& path, std::string msg, std::string hint = "") {
    add(Severity::kError, std::move(code), path, std::move(msg), std::move(hint));
  }
  void warning(std::string code, const std::string& path, std::string msg,
               std::string hint = "") {
    add(Severity::kWarning, std::move(code), path, std::move(msg), std::move(hint));
  }
  void lint(std::string code, const std::string& path, std::string msg, std::string hint = "") {
    add(Severity::kLint, std::move(code), path, std::move(msg), std::move(hint));
  }

 private:
  LoadedConfig* lc_;
};

}  // namespace zs::configs
