#include "reports/html_page.h"

#include <cstdio>

namespace zs::reports::html {
namespace {

constexpr std::string_view kStyle = R"css(
body { font: 15px/1.45 system-ui, "Segoe UI", "DejaVu Sans", sans-serif; color: #111;
       background: #fff; max-width: 1120px; margin: 0 auto; padding: 1.2em 1.5em 3em; }
h1 { font-size: 1.6em; margin: 0.2em 0; }
h2 { font-size: 1.25em; border-bottom: 2px solid #222; padding-bottom: 0.15em; margin-top: 2.2em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
p.meta, p.note { color: #333; }
p.omitted { font-style: italic; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 0.15em 1.2em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; }
figure { margin: 0.6em 0; }
svg.plot { display: block; max-width: 100%; height: auto; border: 1px solid #ccc; }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; margin: 0.6em 0 1.4em; font-size: 0.88em; }
caption { text-align: left; font-weight: 600; padding: 0.3em 0; }
th, td { border: 1px solid #bbb; padding: 0.22em 0.55em; text-align: left; vertical-align: top; }
thead th { background: #e8e8e8; }
tbody tr:nth-child(even) { background: #f5f5f5; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
html.js table.sortable thead th { cursor: pointer; }
th[aria-sort="ascending"]::after { content: " \25B2"; }
th[aria-sort="descending"]::after { content: " \25BC"; }
pre { background: #f4f4f4; border: 1px solid #ccc; padding: 0.8em; overflow-x: auto;
      font-size: 0.85em; }
button { font: inherit; padding: 0.15em 0.9em; cursor: pointer; }
nav ul { columns: 2; }
@media print {
  button { display: none; }
  h2, h3 { break-after: avoid; }
  figure, table { break-inside: avoid; }
  .table-wrap { overflow: visible; }
}
)css";

// Sorting: a click (or Enter) on a header sorts by that column, numbers by data-v, text
// otherwise; again reverses. Copying: the button is hidden until this script shows it.
constexpr std::string_view kScript = R"js(
(function () {
  document.documentElement.classList.add('js');
  function key(cell) {
    var v = cell.getAttribute('data-v');
    return v === null ? null : parseFloat(v);
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.tabIndex = 0;
      function sort() {
        var asc = th.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col], kx = key(x), ky = key(y), c;
          if (kx !== null && ky !== null) c = kx - ky;
          else if (kx !== null) c = -1;
          else if (ky !== null) c = 1;
          else c = x.textContent.localeCompare(y.textContent);
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); }
      });
    });
  });
  var button = document.getElementById('copy-config');
  var pre = document.getElementById('tuned-config');
  if (!button || !pre) return;
  button.hidden = false;
  function done() {
    button.textContent = 'Copied';
    setTimeout(function () { button.textContent = 'Copy'; }, 1500);
  }
  function select_and_copy() {
    var range = document.createRange();
    range.selectNodeContents(pre);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
    try { if (document.execCommand('copy')) done(); } catch (e) {}
  }
  button.addEventListener('click', function () {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(pre.textContent).then(done, select_and_copy);
    } else {
      select_and_copy();
    }
  });
})();
)js";

std::string sort_value(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// The length of the well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
// surrogates, nothing past U+10FFFF), or 0 when the bytes there are not one.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
    if (b == 0xE0) lo = 0xA0;
    if (b == 0xED) hi = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
    if (b == 0xF0) lo = 0x90;
    if (b == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    // The page is declared UTF-8: a byte that is not (a file name from another encoding)
    // becomes U+FFFD.
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    const char c = text[i++];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string table(const Table& t) {
  std::string out = "<div class=\"table-wrap\"><table class=\"sortable\">\n";
  if (!t.caption.empty()) out += "<caption>" + escape(t.caption) + "</caption>\n";
  out += "<thead><tr>";
  for (const std::string& h : t.header) out += "<th scope=\"col\">" + escape(h) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const std::vector<Cell>& row : t.rows) {
    out += "<tr>";
    for (const Cell& c : row) {
      if (c.sort_key) {
        out += std::string(c.align_right ? "<td class=\"num\"" : "<td") + " data-v=\"" +
               sort_value(*c.sort_key) + "\">" + escape(c.text) + "</td>";
      } else {
        out += "<td>" + escape(c.text) + "</td>";
      }
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n";
}

std::string_view style_sheet() { return kStyle; }
std::string_view script() { return kScript; }

}  // namespace zs::reports::html
