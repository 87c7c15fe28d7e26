#include "common/json_fields.h"

#include <gtest/gtest.h>

namespace zs::json {
namespace {

struct Fixture {
  explicit Fixture(std::string_view text) : doc(parse_text(text, "f.json").value()) {}
  Document doc;
  Diagnostics diags;
};

TEST(ObjectReader, ReadsTypedMembers) {
  Fixture f(R"({"b": true, "i": 7, "e": 1e9, "n": 0.5, "s": "x", "o": {}, "a": []})");
  ObjectReader r(f.doc, f.doc.root, "", &f.diags);
  EXPECT_EQ(r.get_bool("b"), true);
  EXPECT_EQ(r.get_int("i"), 7);
  EXPECT_EQ(r.get_int("e"), 1000000000);
  EXPECT_EQ(r.get_number("n"), 0.5);
  EXPECT_EQ(r.get_string("s"), "x");
  EXPECT_NE(r.get_object("o"), nullptr);
  EXPECT_NE(r.get_array("a"), nullptr);
  EXPECT_FALSE(r.get_int("absent").has_value());
  r.report_unknown(Severity::kError, {}, "");
  EXPECT_TRUE(f.diags.items().empty());
}

TEST(ObjectReader, RejectsFractionalIntegersLikePydantic) {
  Fixture f("{\"z\": {\n  \"stage3_prefetch_bucket_size\": 14745.6}}");
  ObjectReader r(f.doc, f.doc.root["z"], "z", &f.diags);
  EXPECT_FALSE(r.get_int("stage3_prefetch_bucket_size").has_value());
  ASSERT_EQ(f.diags.items().size(), 1u);
  const Diagnostic& d = f.diags.items()[0];
  EXPECT_EQ(d.path, "z.stage3_prefetch_bucket_size");
  EXPECT_EQ(d.pos.line, 2);
  EXPECT_NE(d.message.find("14745.6"), std::string::npos);
  EXPECT_NE(d.message.find("fractional"), std::string::npos);
}

TEST(ObjectReader, EnforcesRanges) {
  Fixture f(R"({"d": -1, "s": 4, "lr": -0.1})");
  ObjectReader r(f.doc, f.doc.root, "", &f.diags);
  EXPECT_FALSE(r.get_int("d", {.min = 0}).has_value());
  EXPECT_FALSE(r.get_int("s", {.min = 0, .max = 3}).has_value());
  EXPECT_FALSE(r.get_number("lr", {.min = 0}).has_value());
  ASSERT_EQ(f.diags.items().size(), 3u);
  EXPECT_NE(f.diags.items()[0].message.find(">= 0"), std::string::npos);
  EXPECT_NE(f.diags.items()[1].message.find("[0, 3]"), std::string::npos);
  EXPECT_EQ(f.diags.items()[2].code, "out-of-range");
}

TEST(ObjectReader, NumericStringsAreTakenWithAWarning) {
  Fixture f(R"({"i": "500", "bad": "5e8x"})");
  ObjectReader r(f.doc, f.doc.root, "", &f.diags);
  EXPECT_EQ(r.get_int("i"), 500);
  EXPECT_FALSE(r.get_int("bad").has_value());
  ASSERT_EQ(f.diags.items().size(), 2u);
  EXPECT_EQ(f.diags.items()[0].severity, Severity::kWarning);
  EXPECT_EQ(f.diags.items()[1].severity, Severity::kError);
}

TEST(ObjectReader, BooleansAreNotNumbers) {
  Fixture f(R"({"stage": true, "flag": 1})");
  ObjectReader r(f.doc, f.doc.root, "", &f.diags);
  EXPECT_FALSE(r.get_int("stage").has_value());
  EXPECT_FALSE(r.get_bool("flag").has_value());
  EXPECT_EQ(f.diags.count(Severity::kError), 2);
}

TEST(ObjectReader, EnumsListAllowedValuesAndSuggest) {
  Fixture f(R"({"t": "bfp16", "d": "CPU"})");
  ObjectReader r(f.doc, f.doc.root, "", &f.diags);
  const std::string_view allowed[] = {"fp16", "bf16", "fp32"};
  EXPECT_FALSE(r.get_enum("t", allowed).has_value());
  const std::string_view devices[] = {"none", "cpu", "nvme"};
  EXPECT_EQ(r.get_enum("d", devices, /*case_insensitive=*/true), "cpu");
  ASSERT_EQ(f.diags.items().size(), 1u);
  const Diagnostic& d = f.diags.items()[0];
  EXPECT_NE(d.message.find("\"bfp16\""), std::string::npos);
  EXPECT_NE(d.message.find("\"fp16\", \"bf16\", \"fp32\""), std::string::npos);
  EXPECT_NE(d.hint.find("did you mean"), std::string::npos);
}

TEST(ObjectReader, ReportsUnknownKeysWithSuggestions) {
  Fixture f(R"({"overlap_comm": true, "overlap_com": false, "zzz": 1})");
  ObjectReader r(f.doc, f.doc.root, "zero_optimization", &f.diags);
  r.get_bool("overlap_comm");
  const std::string_view known[] = {"overlap_comm", "stage"};
  r.report_unknown(Severity::kError, known, "DeepSpeed rejects unknown keys here");
  ASSERT_EQ(f.diags.items().size(), 2u);
  EXPECT_EQ(f.diags.items()[0].path, "zero_optimization.overlap_com");
  EXPECT_EQ(f.diags.items()[0].hint, "did you mean \"overlap_comm\"?");
  EXPECT_TRUE(f.diags.items()[1].hint.empty());
}

TEST(ObjectReader, NonObjectIsATypeError) {
  Fixture f(R"({"zero_optimization": 3})");
  ObjectReader r(f.doc, f.doc.root["zero_optimization"], "zero_optimization", &f.diags);
  EXPECT_FALSE(r.valid());
  EXPECT_FALSE(r.get_int("stage").has_value());
  ASSERT_EQ(f.diags.items().size(), 1u);
  EXPECT_NE(f.diags.items()[0].message.find("expected an object, got integer 3"),
            std::string::npos);
}

TEST(Diagnostics, FormatsWithPositionPathAndHint) {
  Diagnostic d{Severity::kError, "bad-enum", "a.b", SourcePos{3, 7}, "msg", "hint"};
  EXPECT_EQ(format_diagnostic(d, "x.json"), "x.json:3:7: error[bad-enum]: a.b: msg (hint)");
  Diagnostic w{Severity::kLint, "", "", SourcePos{}, "m", ""};
  EXPECT_EQ(format_diagnostic(w, "x.json"), "x.json: lint: m");
}

}  // namespace
}  // namespace zs::json
