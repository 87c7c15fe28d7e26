#include "common/json_reader.h"

#include <gtest/gtest.h>

#include <cmath>

namespace zs::json {
namespace {

Document parse_ok(std::string_view text) {
  auto r = parse_text(text, "t.json");
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.status().message());
  return r.ok() ? std::move(r).value() : Document{};
}

std::string parse_err(std::string_view text) {
  auto r = parse_text(text, "t.json");
  EXPECT_FALSE(r.ok()) << "accepted: " << text;
  return r.ok() ? std::string() : r.status().message();
}

TEST(JsonReader, ReadsStrictJson) {
  const Document d = parse_ok(R"({"a": 1, "b": [true, null, "x"], "c": {"d": -2.5}})");
  EXPECT_EQ(d.root["a"].get<int>(), 1);
  EXPECT_TRUE(d.root["b"][1].is_null());
  EXPECT_EQ(d.root["c"]["d"].get<double>(), -2.5);
  EXPECT_TRUE(d.relaxations.comments.empty());
}

TEST(JsonReader, KeepsIntegerAndFloatLiteralsApartAsPythonDoes) {
  const Document d =
      parse_ok(R"({"i": 500000000, "e": 5e8, "f": 0.5, "big": 18446744073709551615})");
  EXPECT_TRUE(d.root["i"].is_number_integer());
  EXPECT_TRUE(d.root["e"].is_number_float());
  EXPECT_EQ(d.root["e"].get<double>(), 5e8);
  EXPECT_TRUE(d.root["big"].is_number_unsigned());
}

// A number that is not finite prints as null; messages name it as it was written (issue 28
// item 17).
TEST(JsonReader, NamesNonFiniteNumbersAsWritten) {
  const Document d = parse_ok(
      R"({"n": NaN, "i": Infinity, "m": -Infinity, "big": 1e999, "neg": -1e999, "tiny": 1e-999,
          "ok": 2.5, "a": [NaN]})");
  EXPECT_EQ(d.value_text("n", d.root["n"]), "NaN");
  EXPECT_EQ(d.value_text("i", d.root["i"]), "Infinity");
  EXPECT_EQ(d.value_text("m", d.root["m"]), "-Infinity");
  EXPECT_EQ(d.value_text("big", d.root["big"]), "1e999");
  EXPECT_EQ(d.value_text("neg", d.root["neg"]), "-1e999");
  EXPECT_EQ(d.root["tiny"].get<double>(), 0.0);  // underflow is 0, as Python reads it
  EXPECT_EQ(d.value_text("tiny", d.root["tiny"]), "0.0");
  EXPECT_EQ(d.value_text("ok", d.root["ok"]), "2.5");
  EXPECT_EQ(d.value_text("a[0]", d.root["a"][0]), "NaN");
}

TEST(JsonReader, AcceptsCommentsAndRecordsThem) {
  const Document d =
      parse_ok("{\n  // line comment\n  \"a\": 1, /* block\n comment */ \"b\": 2\n}");
  EXPECT_EQ(d.root["b"].get<int>(), 2);
  ASSERT_EQ(d.relaxations.comments.size(), 2u);
  EXPECT_EQ(d.relaxations.comments[0].line, 2);
  EXPECT_EQ(d.relaxations.comments[1].line, 3);
}

TEST(JsonReader, AcceptsTrailingCommasAndRecordsThem) {
  const Document d = parse_ok("{\"a\": [1, 2,], \"b\": 3,}");
  EXPECT_EQ(d.root["a"].size(), 2u);
  EXPECT_EQ(d.relaxations.trailing_commas.size(), 2u);
}

TEST(JsonReader, HandlesBomCrlfAndTabs) {
  const Document d = parse_ok("\xEF\xBB\xBF{\r\n\t\"a\": 1,\r\n\t\"b\": 2\r\n}");
  EXPECT_TRUE(d.relaxations.byte_order_mark);
  EXPECT_EQ(d.positions.at("b").line, 3);
  EXPECT_EQ(d.positions.at("b").column, 2);
}

TEST(JsonReader, RecordsPositionsByPath) {
  const Document d = parse_ok("{\n \"z\": {\n  \"stage\": 3,\n  \"l\": [7, 8]\n }\n}");
  EXPECT_EQ(d.positions.at("z.stage").line, 3);
  EXPECT_EQ(d.positions.at("z.stage").column, 3);
  EXPECT_EQ(d.positions.at("z.l[1]").column, 12);
  EXPECT_EQ(d.position_of("z.missing").line, 2);  // falls back to the parent
  EXPECT_EQ(d.position_of("z.l[1].deeper").column, 12);
}

TEST(JsonReader, DecodesEscapes) {
  const Document d = parse_ok(R"({"s": "a\"b\\c\/\n\u00e9\ud83d\ude00"})");
  EXPECT_EQ(d.root["s"].get<std::string>(), "a\"b\\c/\n\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(JsonReader, AcceptsPythonNonFiniteNumbers) {
  const Document d = parse_ok(R"({"a": NaN, "b": Infinity, "c": -Infinity})");
  EXPECT_TRUE(std::isnan(d.root["a"].get<double>()));
  EXPECT_TRUE(std::isinf(d.root["c"].get<double>()));
}

TEST(JsonReader, RejectsDuplicateKeysLikeDeepSpeed) {
  const std::string m = parse_err("{\"a\": 1,\n \"a\": 2}");
  EXPECT_NE(m.find("t.json:2:2"), std::string::npos) << m;
  EXPECT_NE(m.find("duplicate key 'a' (first at line 1)"), std::string::npos) << m;
}

TEST(JsonReader, ExplainsUnquotedTemplatePlaceholders) {
  const std::string m = parse_err("{\n  \"train_batch_size\": CONFIG_BATCH_SIZE,\n}");
  EXPECT_NE(m.find("t.json:2:23: error[json-syntax]: train_batch_size:"), std::string::npos) << m;
  EXPECT_NE(m.find("CONFIG_BATCH_SIZE"), std::string::npos) << m;
}

TEST(JsonReader, ExplainsPythonLiterals) {
  const std::string m = parse_err(R"({"bf16": {"enabled": True}})");
  EXPECT_NE(m.find("bf16.enabled"), std::string::npos) << m;
  EXPECT_NE(m.find("write true"), std::string::npos) << m;
  EXPECT_NE(parse_err(R"({"a": None})").find("write null"), std::string::npos);
}

TEST(JsonReader, ExplainsEqualsInsteadOfColon) {
  const std::string m = parse_err(R"({"checkpoint": {"tag_validation"="Warn"}})");
  EXPECT_NE(m.find("checkpoint.tag_validation"), std::string::npos) << m;
  EXPECT_NE(m.find("not '='"), std::string::npos) << m;
}

TEST(JsonReader, RejectsMalformedInputWithPositions) {
  EXPECT_NE(parse_err("").find("empty"), std::string::npos);
  EXPECT_NE(parse_err("// only a comment\n").find("empty"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1").find("unterminated object"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": [1, 2").find("unterminated array"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": \"x}").find("unterminated string"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": \"x\ny\"}").find("line break"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 01}").find("leading zero"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": .5}").find("digit before"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1.}").find("digit after"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1e}").find("exponent"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": +1}").find("'+'"), std::string::npos);
  EXPECT_NE(parse_err("{'a': 1}").find("single-quoted key"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 'x'}").find("single-quoted string"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1 \"b\": 2}").find("comma is missing"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1,, \"b\": 2}").find("two commas"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1} {").find("after the end"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1 /* open").find("unterminated /*"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": 1 # hash\n}").find("'#'"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": \"\\x\"}").find("invalid escape"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": \"\\ud800\"}").find("surrogate"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": \"\xff\"}").find("UTF-8"), std::string::npos);
  EXPECT_NE(parse_err("{\"a\": ]").find("expected a value"), std::string::npos);
}

TEST(JsonReader, BoundsNestingDepth) {
  std::string deep(kMaxDepth + 5, '[');
  deep += std::string(kMaxDepth + 5, ']');
  EXPECT_NE(parse_err(deep).find("nesting deeper"), std::string::npos);
  std::string ok(50, '[');
  ok += std::string(50, ']');
  parse_ok(ok);
}

TEST(JsonReader, ALargeObjectKeepsEveryMemberInOrderAndItsDuplicates) {
  // 400,000 keys once took over a minute (each member was a search of the ones before it).
  std::string text = "{";
  constexpr int kKeys = 100'000;
  for (int i = 0; i < kKeys; ++i)
    text += (i ? ",\"k" : "\"k") + std::to_string(i) + "\": " + std::to_string(i);
  const Document doc = parse_ok(text + "}");
  ASSERT_EQ(doc.root.size(), static_cast<std::size_t>(kKeys));
  EXPECT_EQ(doc.root.begin().key(), "k0");
  EXPECT_EQ(doc.root["k99999"], 99999);
  EXPECT_NE(parse_err(text + ", \"k5\": 1}").find("duplicate key 'k5'"), std::string::npos);
}

TEST(JsonReader, ReportsMissingFile) {
  auto r = parse_file("/nonexistent/zerosim/ds.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("/nonexistent/zerosim/ds.json"), std::string::npos);
  auto dir = parse_file("/tmp");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("directory"), std::string::npos);
}

}  // namespace
}  // namespace zs::json
