#include "common/diagnostics.h"

#include "common/check.h"
#include "common/status.h"

namespace zs {

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kLint:
      return "lint";
    case Severity::kNote:
      return "note";
  }
  return "?";
}

std::string format_diagnostic(const Diagnostic& d, std::string_view source) {
  std::string out(source);
  if (d.pos.known()) {
    out += ':' + std::to_string(d.pos.line) + ':' + std::to_string(d.pos.column);
  }
  out += ": ";
  out += severity_name(d.severity);
  if (!d.code.empty()) out += "[" + d.code + "]";
  out += ": ";
  if (!d.path.empty()) out += d.path + ": ";
  out += d.message;
  if (!d.hint.empty()) out += " (" + d.hint + ")";
  return out;
}

bool Diagnostics::has_errors() const { return count(Severity::kError) > 0; }

int Diagnostics::count(Severity s) const {
  int n = 0;
  for (const auto& d : items_) n += d.severity == s ? 1 : 0;
  return n;
}

const Diagnostic* Diagnostics::find(std::string_view code) const {
  for (const auto& d : items_) {
    if (d.code == code) return &d;
  }
  return nullptr;
}

const Diagnostic* Diagnostics::find_at(std::string_view path, Severity s) const {
  for (const auto& d : items_) {
    if (d.path == path && d.severity == s) return &d;
  }
  return nullptr;
}

Status errors_to_status(const Diagnostics& diags, std::string_view source) {
  ZS_CHECK(diags.has_errors());
  std::string message;
  for (const Diagnostic& d : diags.items()) {
    if (d.severity != Severity::kError) continue;
    if (!message.empty()) message += "\n";
    message += format_diagnostic(d, source);
  }
  return Status::invalid_argument(message);
}

}  // namespace zs
