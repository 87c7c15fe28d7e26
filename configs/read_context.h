// Internal to configs/: what every section reader needs while reading one file.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "configs/ds_version.h"
#include "configs/section_io.h"

namespace zs::configs {

struct ReadContext {
  const json::Document& doc;
  Diagnostics* diags;
  std::vector<AutoLine>* autos;
  DsVersion version;

  // Adds a diagnostic at `path`, positioned where the file writes it (or its nearest parent).
  void report(const std::string& path, Severity severity, std::string code, std::string message,
              std::string hint = "") const {
    Diagnostic d;
    d.severity = severity;
    d.code = std::move(code);
    d.path = path;
    d.pos = doc.position_of(path);
    d.message = std::move(message);
    d.hint = std::move(hint);
    diags->add(std::move(d));
  }

  SectionReader section(const Json& obj, std::string path, SectionKind kind) const {
    return SectionReader(doc, obj, std::move(path), kind, diags, autos);
  }
};

// Section readers implemented in their own files; each reads root[key] when present.
struct DsConfig;
void read_optimizer(const ReadContext& ctx, const Json& root, DsConfig* cfg);
void read_scheduler(const ReadContext& ctx, const Json& root, DsConfig* cfg);
void read_sparse_attention(const ReadContext& ctx, const Json& root, DsConfig* cfg);
void read_compression(const ReadContext& ctx, const Json& root, DsConfig* cfg);
void read_monitors(const ReadContext& ctx, const Json& root, DsConfig* cfg);
void read_timers(const ReadContext& ctx, const Json& root, DsConfig* cfg);
// Recognised sections zerosim does not model; returns their keys.
void read_unmodelled(const ReadContext& ctx, const Json& root, DsConfig* cfg);
std::span<const std::string_view> unmodelled_section_keys();

}  // namespace zs::configs
