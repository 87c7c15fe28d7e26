#include "configs/ds_version.h"

#include <charconv>

namespace zs::configs {

std::string DsVersion::str() const {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

Result<DsVersion> parse_ds_version(std::string_view text) {
  DsVersion v;
  int* parts[3] = {&v.major, &v.minor, &v.patch};
  std::size_t pos = 0;
  int count = 0;
  while (count < 3 && pos <= text.size()) {
    const std::size_t dot = text.find('.', pos);
    const std::string_view piece =
        text.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    const auto r = std::from_chars(piece.data(), piece.data() + piece.size(), *parts[count]);
    if (piece.empty() || r.ec != std::errc() || r.ptr != piece.data() + piece.size()) break;
    ++count;
    if (dot == std::string_view::npos) {
      pos = text.size() + 1;
      break;
    }
    pos = dot + 1;
  }
  const std::string allowed =
      "a DeepSpeed release from " + kOldestDsVersion.str() + " to " + kLatestDsVersion.str();
  if (count < 2 || pos <= text.size()) {
    return Status::invalid_argument("--ds-version: \"" + std::string(text) +
                                    "\" is not a version; expected " + allowed +
                                    ", e.g. 0.16.4");
  }
  const DsVersion latest_minor{kLatestDsVersion.major, kLatestDsVersion.minor, 999};
  if (v < kOldestDsVersion || v > latest_minor) {
    return Status::invalid_argument("--ds-version: " + v.str() +
                                    " is outside what zerosim reproduces; expected " + allowed);
  }
  return v;
}

}  // namespace zs::configs
