// Diagnostics: what `zerosim check` and every loader report about an input file.
//
// Each diagnostic names the JSON path, carries the value and what is allowed in its message,
// and knows where in the file it points, so that the printed form is
//   FILE:LINE:COL: error[code]: PATH: MESSAGE (HINT)
// Errors make a file unusable (exit 1); warnings describe what DeepSpeed silently ignores or
// rewrites; lints are expert advice that never blocks; notes explain resolved "auto" values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zs {

struct SourcePos {
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based, in bytes
  bool known() const { return line > 0; }
};

enum class Severity { kError, kWarning, kLint, kNote };

std::string_view severity_name(Severity s);

struct Diagnostic {
  Severity severity = Severity::kError;
  std::string code;     // stable identifier, e.g. "unknown-key", "batch-mismatch"
  std::string path;     // JSON path; empty = the file as a whole
  SourcePos pos;        // where in the file; unknown for derived findings
  std::string message;  // what is wrong: states the value and what is allowed
  std::string hint;     // optional: "did you mean ...", how to fix it
};

// "FILE:LINE:COL: error[code]: PATH: MESSAGE (HINT)"; position and path are omitted when
// unknown or empty.
std::string format_diagnostic(const Diagnostic& d, std::string_view source);

class Status;

// An ordered collection; order is the order findings were made, which is deterministic.
class Diagnostics {
 public:
  void add(Diagnostic d) { items_.push_back(std::move(d)); }
  const std::vector<Diagnostic>& items() const { return items_; }
  bool has_errors() const;
  int count(Severity s) const;
  // Returns the first diagnostic with `code`, or nullptr.
  const Diagnostic* find(std::string_view code) const;
  // Returns the first diagnostic at `path` with severity `s`, or nullptr.
  const Diagnostic* find_at(std::string_view path, Severity s) const;

 private:
  std::vector<Diagnostic> items_;
};

// kInvalidArgument whose message holds every error of `diags`, one formatted diagnostic per
// line (format_diagnostic with `source`). REQUIRES: diags.has_errors()
Status errors_to_status(const Diagnostics& diags, std::string_view source);

}  // namespace zs
