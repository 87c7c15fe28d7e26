// A small PNG decoder for tests that look at screenshots: 8-bit RGB or RGBA, not interlaced (what
// Chromium's --screenshot writes). zlib inflates the image data; the five scanline filters are
// undone here (PNG specification, section 9).
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace zs::testing {

struct PngImage {
  int width = 0;
  int height = 0;
  int channels = 0;                  // 3 (RGB) or 4 (RGBA)
  std::vector<std::uint8_t> pixels;  // (height, width, channels), rows top to bottom
};

namespace png_detail {

inline std::uint32_t be32(const std::string& s, std::size_t at) {
  return (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at])) << 24) |
         (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 1])) << 16) |
         (static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 2])) << 8) |
         static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[at + 3]));
}

inline int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

}  // namespace png_detail

// The image in `bytes`, or nullopt with the reason in *error.
inline std::optional<PngImage> decode_png(const std::string& bytes, std::string* error) {
  using png_detail::be32;
  static const std::string kSignature = "\x89PNG\r\n\x1a\n";
  if (bytes.compare(0, kSignature.size(), kSignature) != 0) {
    *error = "not a PNG file (bad signature)";
    return std::nullopt;
  }
  PngImage img;
  std::string idat;
  std::size_t pos = kSignature.size();
  bool header = false;
  while (pos + 12 <= bytes.size()) {
    const std::uint32_t length = be32(bytes, pos);
    const std::string type = bytes.substr(pos + 4, 4);
    if (pos + 12 + length > bytes.size()) break;
    const std::size_t data = pos + 8;
    if (type == "IHDR" && length >= 13) {
      img.width = static_cast<int>(be32(bytes, data));
      img.height = static_cast<int>(be32(bytes, data + 4));
      const int depth = static_cast<std::uint8_t>(bytes[data + 8]);
      const int color = static_cast<std::uint8_t>(bytes[data + 9]);
      const int interlace = static_cast<std::uint8_t>(bytes[data + 12]);
      if (depth != 8 || (color != 2 && color != 6) || interlace != 0) {
        *error = "unsupported PNG: bit depth " + std::to_string(depth) + ", colour type " +
                 std::to_string(color) + ", interlace " + std::to_string(interlace);
        return std::nullopt;
      }
      img.channels = color == 6 ? 4 : 3;
      header = true;
    } else if (type == "IDAT") {
      idat.append(bytes, data, length);
    } else if (type == "IEND") {
      break;
    }
    pos += 12 + length;
  }
  if (!header || img.width <= 0 || img.height <= 0) {
    *error = "PNG without a usable IHDR";
    return std::nullopt;
  }
  const std::size_t stride = static_cast<std::size_t>(img.width) * img.channels;
  std::vector<std::uint8_t> raw((stride + 1) * static_cast<std::size_t>(img.height));
  uLongf raw_size = raw.size();
  if (uncompress(raw.data(), &raw_size, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) !=
          Z_OK ||
      raw_size != raw.size()) {
    *error = "PNG image data does not inflate to " + std::to_string(raw.size()) + " bytes";
    return std::nullopt;
  }
  img.pixels.resize(stride * static_cast<std::size_t>(img.height));
  const int bpp = img.channels;
  for (int y = 0; y < img.height; ++y) {
    const std::uint8_t filter = raw[static_cast<std::size_t>(y) * (stride + 1)];
    const std::uint8_t* in = &raw[static_cast<std::size_t>(y) * (stride + 1) + 1];
    std::uint8_t* out = &img.pixels[static_cast<std::size_t>(y) * stride];
    const std::uint8_t* up = y > 0 ? out - stride : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= static_cast<std::size_t>(bpp) ? out[x - bpp] : 0;
      const int b = up != nullptr ? up[x] : 0;
      const int c = up != nullptr && x >= static_cast<std::size_t>(bpp) ? up[x - bpp] : 0;
      int predictor = 0;
      switch (filter) {
        case 0:
          predictor = 0;
          break;
        case 1:
          predictor = a;
          break;
        case 2:
          predictor = b;
          break;
        case 3:
          predictor = (a + b) / 2;
          break;
        case 4:
          predictor = png_detail::paeth(a, b, c);
          break;
        default:
          *error = "bad PNG filter type " + std::to_string(filter) + " on row " + std::to_string(y);
          return std::nullopt;
      }
      out[x] = static_cast<std::uint8_t>(in[x] + predictor);
    }
  }
  return img;
}

}  // namespace zs::testing
