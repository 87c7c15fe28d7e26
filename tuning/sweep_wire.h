// A sweep's rows as bytes, for a sweep split across processes (SweepSetup::shard): each rank
// encodes the rows it simulated, rank 0 decodes every rank's. What crosses is what a row holds
// once simulated (id, axis values, status, error, metrics, rendering); the variant is not sent:
// every rank derives the same variants from the same axes, and the receiver sets it by id.
// Decoding gives back the rows exactly (doubles bit for bit), so a sweep over N processes writes
// the same files as one process.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "tuning/sweep_row.h"

namespace zs::tuning {

// Appends `rows` to `out`.
void encode_rows(std::span<const SweepRow> rows, std::string* out);

// The rows `bytes` holds, in the order encoded; kIoError naming `from` (e.g. "rank 2") when the
// bytes are cut short or malformed.
Result<std::vector<SweepRow>> decode_rows(std::string_view bytes, std::string_view from);

}  // namespace zs::tuning
