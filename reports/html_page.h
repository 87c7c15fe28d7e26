// The building blocks of the report's HTML: escaping, tables, and the page's inline style sheet
// and script. The page needs no network and reads well with JavaScript off; with it on, table
// headers sort their column and a button copies the tuned config.
#pragma once

#include <string>
#include <string_view>

#include "reports/figure.h"

namespace zs::reports::html {

// `text` with & < > " ' replaced by their character references: safe in element content and in
// quoted attribute values.
std::string escape(std::string_view text);

// <div class="table-wrap"><table class="sortable">, a <caption> when the table has one, a head
// row, and one row per table row; cells with a sort key carry it in data-v, and are
// class="num" (right-aligned) when Cell::align_right.
std::string table(const Table& t);

// The contents of <style> and of <script> for the page.
std::string_view style_sheet();
std::string_view script();

}  // namespace zs::reports::html
