// The page around the plots, with a fake renderer: sections, escaping, determinism.
#include "reports/html_report.h"

#include <gtest/gtest.h>

#include "reports/html_page.h"
#include "tests/reports/sweep_fixture.h"

namespace zs::reports {
namespace {

using json::Json;

// Returns a small SVG per script and counts the calls; fails when told to.
class FakeRenderer : public SvgRenderer {
 public:
  Result<std::string> render(const std::string& script) override {
    ++calls;
    if (fail) return Status::io_error("gnuplot failed (exit 1): line 3: undefined variable");
    return "<?xml version=\"1.0\"?>\n<svg width=\"10\"><defs><pattern id='gpPat1'/></defs>"
           "<text>" +
           std::to_string(script.size()) + "</text></svg>\n";
  }
  int calls = 0;
  bool fail = false;
};

ReportInputs inputs_of(const Json& j) {
  auto doc = json::parse_text(j.dump(), "out/results.json");
  ZS_CHECK(doc.ok());
  auto t = parse_sweep_table(*doc);
  ZS_CHECK(t.ok());
  ReportInputs in;
  in.results_path = "out/results.json";
  in.table = std::move(t).value();
  in.tuned_config_path = "out/best_ds_config.json";
  in.tuned_config = "{\"train_micro_batch_size_per_gpu\": 4, \"note\": \"</pre><b>x</b>\"}\n";
  return in;
}

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t pos = s.find(part); pos != std::string::npos; pos = s.find(part, pos + 1)) ++n;
  return n;
}

TEST(HtmlReport, OneSvgPerPlotAndNotesForTheOmitted) {
  FakeRenderer renderer;
  const ReportInputs in = inputs_of(testing::fixture_json());
  const auto page = render_report_html(in, renderer);
  ASSERT_TRUE(page.ok()) << page.status().message();
  // memory, throughput, two knobs, Pareto, timeline; no validation data.
  EXPECT_EQ(renderer.calls, 6);
  EXPECT_EQ(count(*page, "<svg class=\"plot\""), 6u);
  EXPECT_EQ(count(*page, "<?xml"), 0u);
  for (const char* id : {"memory", "throughput", "knob-0-micro-batch", "knob-1-overlap-comm",
                         "pareto", "timeline", "validation", "variants", "invalid"}) {
    EXPECT_NE(page->find("<section id=\"" + std::string(id) + "\">"), std::string::npos) << id;
  }
  EXPECT_NE(page->find("The validation plot is omitted"), std::string::npos);
  // Ids are unique per plot.
  EXPECT_NE(page->find("id='f0-gpPat1'"), std::string::npos);
  EXPECT_NE(page->find("id='f1-gpPat1'"), std::string::npos);
}

TEST(HtmlReport, EscapesEverythingFromTheInput) {
  Json j = testing::fixture_json();
  j["base"]["model"] = "<script>alert(1)</script>";
  FakeRenderer renderer;
  const auto page = render_report_html(inputs_of(j), renderer);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->find("<script>alert"), std::string::npos);
  EXPECT_NE(page->find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page->find("ds&lt;1&gt;.json"), std::string::npos);  // base.config
  // The invalid row's reason, escaped, in the invalid table.
  EXPECT_NE(page->find("train_batch_size &lt;mismatch&gt; &amp; more"), std::string::npos);
  // The tuned config verbatim inside <pre>, escaped.
  EXPECT_NE(page->find("<pre id=\"tuned-config\">{&quot;train_micro_batch_size_per_gpu&quot;: 4, "
                       "&quot;note&quot;: &quot;&lt;/pre&gt;&lt;b&gt;x&lt;/b&gt;&quot;}\n</pre>"),
            std::string::npos);
  EXPECT_NE(page->find("id=\"copy-config\" hidden"), std::string::npos);
}

TEST(HtmlReport, SameInputsGiveTheSameBytes) {
  FakeRenderer a, b;
  const ReportInputs in = inputs_of(testing::fixture_json());
  const auto pa = render_report_html(in, a);
  const auto pb = render_report_html(in, b);
  ASSERT_TRUE(pa.ok() && pb.ok());
  EXPECT_EQ(*pa, *pb);
}

TEST(HtmlReport, NoTunedConfigAndNoWinnerAreSaid) {
  Json j = testing::fixture_json();
  j["best"] = nullptr;
  ReportInputs in = inputs_of(j);
  in.tuned_config.reset();
  FakeRenderer renderer;
  const auto page = render_report_html(in, renderer);
  ASSERT_TRUE(page.ok());
  EXPECT_NE(page->find("No variant fits"), std::string::npos);
  EXPECT_NE(page->find("No tuned config"), std::string::npos);
  EXPECT_EQ(page->find("id=\"copy-config\""), std::string::npos);
}

TEST(HtmlReport, ARendererFailureIsReturned) {
  FakeRenderer renderer;
  renderer.fail = true;
  const auto page = render_report_html(inputs_of(testing::fixture_json()), renderer);
  ASSERT_FALSE(page.ok());
  EXPECT_NE(page.status().message().find("undefined variable"), std::string::npos);
}

TEST(HtmlPage, TablesCarrySortKeysAndEscapedText) {
  Table t;
  t.caption = "a & b";
  t.header = {"name", "value"};
  t.rows = {{text_cell("<x>"), number_cell("1.50", 1.5)}};
  EXPECT_EQ(html::table(t),
            "<div class=\"table-wrap\"><table class=\"sortable\">\n<caption>a &amp; b</caption>\n"
            "<thead><tr><th scope=\"col\">name</th><th scope=\"col\">value</th></tr></thead>\n"
            "<tbody>\n<tr><td>&lt;x&gt;</td><td class=\"num\" data-v=\"1.5\">1.50</td></tr>\n"
            "</tbody>\n</table></div>\n");
  EXPECT_EQ(html::escape("'\"&<>"), "&#39;&quot;&amp;&lt;&gt;");
  // The page is UTF-8: bytes that are not (issue 28 item 12, a file name in another encoding)
  // become U+FFFD; well-formed sequences pass unchanged.
  EXPECT_EQ(html::escape("x\xff.json"), "x\xEF\xBF\xBD.json");
  EXPECT_EQ(html::escape("\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            "\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80");
  EXPECT_EQ(html::escape("\xC0\xAF\xED\xA0\x80\xE2\x82"),  // overlong, surrogate, cut short
            "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace zs::reports
