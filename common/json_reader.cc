#include "common/json_reader.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "common/file.h"
#include "common/json_path.h"

namespace zs::json {
namespace {

// Returns the byte offset of the first invalid UTF-8 sequence, or npos.
std::size_t find_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    std::uint32_t min_cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      extra = 1;
      min_cp = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      extra = 2;
      min_cp = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      extra = 3;
      min_cp = 0x10000;
    } else {
      return i;
    }
    if (i + extra >= s.size()) return i;
    std::uint32_t cp = c & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += extra + 1;
  }
  return std::string_view::npos;
}

void append_utf8(std::uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    *out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    *out += static_cast<char>(0xC0 | (cp >> 6));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *out += static_cast<char>(0xE0 | (cp >> 12));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    *out += static_cast<char>(0xF0 | (cp >> 18));
    *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    *out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$' || c == '.' || c == '+' || c == '-';
}

// Shows at most 40 bytes of user text inside a message.
std::string excerpt(std::string_view s) {
  if (s.size() <= 40) return std::string(s);
  return std::string(s.substr(0, 37)) + "...";
}

class Parser {
 public:
  Parser(std::string_view text, Document* doc) : t_(text), doc_(doc) {}

  Status run() {
    if (t_.substr(0, 3) == "\xEF\xBB\xBF") {
      doc_->relaxations.byte_order_mark = true;
      i_ = 3;
      line_start_ = 3;
    }
    if (const std::size_t bad = find_invalid_utf8(t_); bad != std::string_view::npos) {
      seek(bad);
      return error(pos(), "", "the file is not valid UTF-8 (byte 0x" + hex(t_[bad]) + ")",
                   "Python's open() decodes config files as UTF-8");
    }
    ZS_RETURN_IF_ERROR(skip_ws(""));
    if (i_ >= t_.size()) {
      return error(pos(), "", "the file is empty or holds only comments; expected a JSON object");
    }
    doc_->positions[""] = pos();
    ZS_RETURN_IF_ERROR(parse_value("", 0, &doc_->root));
    ZS_RETURN_IF_ERROR(skip_ws(""));
    if (i_ < t_.size()) {
      return error(pos(), "",
                   "unexpected text after the end of the JSON document: '" +
                       excerpt(t_.substr(i_, 20)) + "'",
                   "a file holds exactly one JSON value");
    }
    return Status::ok();
  }

 private:
  static std::string hex(char c) {
    static const char* kDigits = "0123456789ABCDEF";
    const auto u = static_cast<unsigned char>(c);
    return {kDigits[u >> 4], kDigits[u & 15]};
  }

  SourcePos pos() const { return SourcePos{line_, static_cast<int>(i_ - line_start_) + 1}; }

  // Moves the cursor to byte `target` (forward only), keeping line/column right.
  void seek(std::size_t target) {
    while (i_ < target && i_ < t_.size()) advance();
  }

  void advance() {
    if (t_[i_] == '\n') {
      ++line_;
      line_start_ = i_ + 1;
    }
    ++i_;
  }

  bool at(char c) const { return i_ < t_.size() && t_[i_] == c; }

  Status error(SourcePos at_pos, std::string_view path, std::string msg,
               std::string hint = "") const {
    Diagnostic d;
    d.severity = Severity::kError;
    d.code = "json-syntax";
    d.path = std::string(path);
    d.pos = at_pos;
    d.message = std::move(msg);
    d.hint = std::move(hint);
    return Status::parse_error(format_diagnostic(d, doc_->source));
  }

  Status skip_ws(std::string_view path) {
    while (i_ < t_.size()) {
      const char c = t_[i_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        advance();
      } else if (c == '/' && i_ + 1 < t_.size() && t_[i_ + 1] == '/') {
        doc_->relaxations.comments.push_back(pos());
        while (i_ < t_.size() && t_[i_] != '\n') advance();
      } else if (c == '/' && i_ + 1 < t_.size() && t_[i_ + 1] == '*') {
        const SourcePos start = pos();
        doc_->relaxations.comments.push_back(start);
        const std::size_t end = t_.find("*/", i_ + 2);
        if (end == std::string_view::npos) {
          return error(start, path, "unterminated /* comment", "close it with */");
        }
        seek(end + 2);
      } else if (c == '#') {
        return error(pos(), path, "'#' comments are not accepted",
                     "hjson takes them but json.load does not; use // or remove the line");
      } else {
        break;
      }
    }
    return Status::ok();
  }

  Status parse_value(const std::string& path, int depth, Json* out) {
    if (depth > kMaxDepth) {
      return error(pos(), path, "nesting deeper than " + std::to_string(kMaxDepth) + " levels",
                   "no DeepSpeed config nests this deep");
    }
    if (i_ >= t_.size()) return error(pos(), path, "unexpected end of file; expected a value");
    const char c = t_[i_];
    if (c == '{') return parse_object(path, depth, out);
    if (c == '[') return parse_array(path, depth, out);
    if (c == '"') {
      std::string s;
      ZS_RETURN_IF_ERROR(parse_string(path, &s));
      *out = std::move(s);
      return Status::ok();
    }
    if (c == '\'') {
      return error(pos(), path, "single-quoted string", "JSON strings use double quotes");
    }
    if (c == '-' || (c >= '0' && c <= '9') || c == '.' || c == '+') {
      if (t_.substr(i_, 9) == "-Infinity") {
        seek(i_ + 9);
        *out = -std::numeric_limits<double>::infinity();
        doc_->nonfinite_literals[path] = "-Infinity";
        return Status::ok();
      }
      return parse_number(path, out);
    }
    return parse_word(path, out);
  }

  Status parse_word(const std::string& path, Json* out) {
    const SourcePos start = pos();
    std::size_t end = i_;
    while (end < t_.size() && is_word_char(t_[end])) ++end;
    const std::string_view word = t_.substr(i_, end - i_);
    if (word.empty()) {
      const std::string shown = t_[i_] == '}' || t_[i_] == ']' || t_[i_] == ','
                                    ? std::string(1, t_[i_])
                                    : excerpt(t_.substr(i_, 1));
      return error(start, path, "expected a value, found '" + shown + "'");
    }
    if (word == "true" || word == "false") {
      *out = word == "true";
    } else if (word == "null") {
      *out = nullptr;
    } else if (word == "NaN") {
      *out = std::numeric_limits<double>::quiet_NaN();
      doc_->nonfinite_literals[path] = "NaN";
    } else if (word == "Infinity") {
      *out = std::numeric_limits<double>::infinity();
      doc_->nonfinite_literals[path] = "Infinity";
    } else if (word == "True" || word == "False" || word == "None") {
      const char* json_word = word == "True" ? "true" : word == "False" ? "false" : "null";
      return error(start, path, "'" + std::string(word) + "' is Python, not JSON",
                   std::string("write ") + json_word);
    } else {
      return error(start, path, "unquoted text '" + excerpt(word) + "' is not a JSON value",
                   "strings need double quotes; an unfilled template placeholder?");
    }
    seek(end);
    return Status::ok();
  }

  Status parse_number(const std::string& path, Json* out) {
    const SourcePos start = pos();
    std::size_t j = i_;
    if (t_[j] == '+') return error(start, path, "a JSON number cannot start with '+'");
    if (t_[j] == '-') ++j;
    const std::size_t int_start = j;
    while (j < t_.size() && t_[j] >= '0' && t_[j] <= '9') ++j;
    const std::size_t int_digits = j - int_start;
    if (int_digits == 0) {
      return error(start, path, "malformed number '" + excerpt(token_at(i_)) + "'",
                   "JSON numbers need a digit before the decimal point");
    }
    if (int_digits > 1 && t_[int_start] == '0') {
      return error(start, path, "number with a leading zero '" + excerpt(token_at(i_)) + "'");
    }
    bool is_float = false;
    if (j < t_.size() && t_[j] == '.') {
      is_float = true;
      ++j;
      const std::size_t frac_start = j;
      while (j < t_.size() && t_[j] >= '0' && t_[j] <= '9') ++j;
      if (j == frac_start) {
        return error(start, path, "malformed number '" + excerpt(token_at(i_)) + "'",
                     "JSON numbers need a digit after the decimal point");
      }
    }
    if (j < t_.size() && (t_[j] == 'e' || t_[j] == 'E')) {
      is_float = true;
      ++j;
      if (j < t_.size() && (t_[j] == '+' || t_[j] == '-')) ++j;
      const std::size_t exp_start = j;
      while (j < t_.size() && t_[j] >= '0' && t_[j] <= '9') ++j;
      if (j == exp_start) {
        return error(start, path, "malformed number '" + excerpt(token_at(i_)) + "'",
                     "the exponent needs digits");
      }
    }
    if (j < t_.size() && is_word_char(t_[j])) {
      return error(start, path, "malformed number '" + excerpt(token_at(i_)) + "'");
    }
    const char* first = t_.data() + i_;
    const char* last = t_.data() + j;
    if (!is_float) {
      std::int64_t v = 0;
      if (auto r = std::from_chars(first, last, v); r.ec == std::errc() && r.ptr == last) {
        *out = v;
        seek(j);
        return Status::ok();
      }
      std::uint64_t u = 0;
      if (auto r = std::from_chars(first, last, u); r.ec == std::errc() && r.ptr == last) {
        *out = u;
        seek(j);
        return Status::ok();
      }
      // Larger than 64 bits: keep it as a double; validation rejects it where it matters.
    }
    double d = 0;
    const auto r = std::from_chars(first, last, d);
    if (r.ec == std::errc::result_out_of_range) {
      d = (t_[i_] == '-' ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
      if (std::string_view(first, last - first).find_first_of("eE") != std::string_view::npos &&
          std::string_view(first, last - first).find("e-") != std::string_view::npos) {
        d = 0.0;  // underflow, as Python's float() gives
      } else {
        doc_->nonfinite_literals[path] = std::string(first, last - first);
      }
    } else if (r.ec != std::errc() || r.ptr != last) {
      return error(start, path, "malformed number '" + excerpt(token_at(i_)) + "'");
    }
    *out = d;
    seek(j);
    return Status::ok();
  }

  std::string_view token_at(std::size_t k) const {
    std::size_t e = k;
    while (e < t_.size() && is_word_char(t_[e])) ++e;
    if (e == k) e = std::min(t_.size(), k + 1);
    return t_.substr(k, e - k);
  }

  Status parse_hex4(const std::string& path, std::uint32_t* cp) {
    if (i_ + 4 > t_.size()) return error(pos(), path, "truncated \\u escape");
    std::uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char h = t_[i_ + k];
      v <<= 4;
      if (h >= '0' && h <= '9') {
        v |= static_cast<std::uint32_t>(h - '0');
      } else if (h >= 'a' && h <= 'f') {
        v |= static_cast<std::uint32_t>(h - 'a' + 10);
      } else if (h >= 'A' && h <= 'F') {
        v |= static_cast<std::uint32_t>(h - 'A' + 10);
      } else {
        return error(pos(), path, "invalid \\u escape: expected 4 hex digits");
      }
    }
    seek(i_ + 4);
    *cp = v;
    return Status::ok();
  }

  // REQUIRES: at('"').
  Status parse_string(const std::string& path, std::string* out) {
    const SourcePos start = pos();
    advance();  // opening quote
    while (true) {
      if (i_ >= t_.size()) {
        return error(start, path, "unterminated string", "close it with a double quote");
      }
      const char c = t_[i_];
      if (c == '"') {
        advance();
        return Status::ok();
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return error(pos(), path,
                     c == '\n' ? "line break inside a string" : "control character in a string",
                     c == '\n' ? "a string must close on the line it opens; a missing quote?"
                               : "escape it, e.g. \\t");
      }
      if (c != '\\') {
        *out += c;
        advance();
        continue;
      }
      advance();
      if (i_ >= t_.size()) return error(start, path, "unterminated string");
      const char e = t_[i_];
      advance();
      switch (e) {
        case '"':
        case '\\':
        case '/':
          *out += e;
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
          break;
        case 'u': {
          std::uint32_t cp = 0;
          ZS_RETURN_IF_ERROR(parse_hex4(path, &cp));
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (t_.substr(i_, 2) != "\\u") {
              return error(pos(), path, "lone UTF-16 surrogate in \\u escape");
            }
            seek(i_ + 2);
            std::uint32_t low = 0;
            ZS_RETURN_IF_ERROR(parse_hex4(path, &low));
            if (low < 0xDC00 || low > 0xDFFF) {
              return error(pos(), path, "lone UTF-16 surrogate in \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return error(pos(), path, "lone UTF-16 surrogate in \\u escape");
          }
          append_utf8(cp, out);
          break;
        }
        default:
          return error(pos(), path, std::string("invalid escape '\\") + e + "' in a string");
      }
    }
  }

  // REQUIRES: at('{').
  Status parse_object(const std::string& path, int depth, Json* out) {
    const SourcePos open = pos();
    advance();
    *out = Json::object();
    std::map<std::string, SourcePos> seen;
    ZS_RETURN_IF_ERROR(skip_ws(path));
    if (at('}')) {
      advance();
      return Status::ok();
    }
    while (true) {
      if (i_ >= t_.size()) {
        return error(open, path, "unterminated object", "a closing } is missing");
      }
      if (!at('"')) {
        const SourcePos kp = pos();
        if (at('\'')) {
          return error(kp, path, "single-quoted key", "JSON keys use double quotes");
        }
        return error(kp, path,
                     "expected a key in double quotes, found '" + excerpt(token_at(i_)) + "'",
                     at(',') ? "two commas in a row?" : "keys must be quoted strings");
      }
      const SourcePos key_pos = pos();
      std::string key;
      ZS_RETURN_IF_ERROR(parse_string(path, &key));
      const std::string member_path = child_path(path, key);
      if (auto it = seen.find(key); it != seen.end()) {
        return error(
            key_pos, member_path,
            "duplicate key '" + key + "' (first at line " + std::to_string(it->second.line) + ")",
            "DeepSpeed rejects duplicate keys: 'Duplicate keys in DeepSpeed config'");
      }
      seen.emplace(key, key_pos);
      ZS_RETURN_IF_ERROR(skip_ws(member_path));
      if (!at(':')) {
        return error(pos(), member_path, "expected ':' after the key",
                     at('=') ? "JSON uses ':' between a key and its value, not '='" : "");
      }
      advance();
      ZS_RETURN_IF_ERROR(skip_ws(member_path));
      doc_->positions[member_path] = key_pos;
      Json value;
      ZS_RETURN_IF_ERROR(parse_value(member_path, depth + 1, &value));
      // Appended to the object's vector directly: the key is known to be new (`seen`), and
      // ordered_json's operator[] would search the members first, which is quadratic in a
      // large object.
      auto& members = out->get_ref<Json::object_t&>();
      members.Json::object_t::Container::emplace_back(std::move(key), std::move(value));
      ZS_RETURN_IF_ERROR(skip_ws(member_path));
      if (at(',')) {
        const SourcePos comma = pos();
        advance();
        ZS_RETURN_IF_ERROR(skip_ws(path));
        if (at('}')) {
          doc_->relaxations.trailing_commas.push_back(comma);
          advance();
          return Status::ok();
        }
        continue;
      }
      if (at('}')) {
        advance();
        return Status::ok();
      }
      if (i_ >= t_.size()) {
        return error(open, path, "unterminated object", "a closing } is missing");
      }
      return error(pos(), member_path, "expected ',' or '}' after the value",
                   at('"') ? "a comma is missing between two members" : "");
    }
  }

  // REQUIRES: at('[').
  Status parse_array(const std::string& path, int depth, Json* out) {
    const SourcePos open = pos();
    advance();
    *out = Json::array();
    ZS_RETURN_IF_ERROR(skip_ws(path));
    if (at(']')) {
      advance();
      return Status::ok();
    }
    for (std::size_t index = 0;; ++index) {
      const std::string elem_path = index_path(path, index);
      doc_->positions[elem_path] = pos();
      Json value;
      ZS_RETURN_IF_ERROR(parse_value(elem_path, depth + 1, &value));
      out->push_back(std::move(value));
      ZS_RETURN_IF_ERROR(skip_ws(path));
      if (at(',')) {
        const SourcePos comma = pos();
        advance();
        ZS_RETURN_IF_ERROR(skip_ws(path));
        if (at(']')) {
          doc_->relaxations.trailing_commas.push_back(comma);
          advance();
          return Status::ok();
        }
        continue;
      }
      if (at(']')) {
        advance();
        return Status::ok();
      }
      if (i_ >= t_.size()) {
        return error(open, path, "unterminated array", "a closing ] is missing");
      }
      return error(
          pos(), elem_path, "expected ',' or ']' after an array element",
          at('|') ? "a documentation placeholder such as [true|false]? pick one value" : "");
    }
  }

  std::string_view t_;
  Document* doc_;
  std::size_t i_ = 0;
  int line_ = 1;
  std::size_t line_start_ = 0;
};

}  // namespace

std::string Document::value_text(std::string_view path, const Json& v) const {
  if (v.is_number_float() && !std::isfinite(v.get<double>())) {
    if (auto it = nonfinite_literals.find(path); it != nonfinite_literals.end()) {
      return it->second;
    }
    const double d = v.get<double>();
    return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
  }
  return v.dump(-1, ' ', false, Json::error_handler_t::replace);
}

SourcePos Document::position_of(std::string_view path) const {
  std::string p(path);
  while (true) {
    if (auto it = positions.find(p); it != positions.end()) return it->second;
    if (p.empty()) return SourcePos{};
    // Strip the last component: ".key", "[n]" or "[\"key\"]".
    const std::size_t dot = p.find_last_of('.');
    const std::size_t bracket = p.find_last_of('[');
    std::size_t cut = std::string::npos;
    if (dot != std::string::npos && (bracket == std::string::npos || dot > bracket)) {
      cut = dot;
    } else if (bracket != std::string::npos) {
      cut = bracket;
    }
    p = cut == std::string::npos ? std::string() : p.substr(0, cut);
  }
}

Result<Document> parse_text(std::string_view text, std::string source_name) {
  Document doc;
  doc.source = std::move(source_name);
  Parser parser(text, &doc);
  ZS_RETURN_IF_ERROR(parser.run());
  return doc;
}

Result<Document> parse_file(const std::string& path, std::int64_t max_bytes) {
  ZS_ASSIGN_OR_RETURN(const std::string text, read_file(path, "JSON file", max_bytes));
  return parse_text(text, path);
}

const Json* find_path(const Json& root, const std::vector<PathStep>& path) {
  const Json* cur = &root;
  for (const PathStep& s : path) {
    if (s.is_index) {
      if (!cur->is_array() || s.index >= cur->size()) return nullptr;
      cur = &(*cur)[s.index];
    } else {
      if (!cur->is_object()) return nullptr;
      const auto it = cur->find(s.key);
      if (it == cur->end()) return nullptr;
      cur = &*it;
    }
  }
  return cur;
}

}  // namespace zs::json
