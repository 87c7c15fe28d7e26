// json::JsonWriter against what it promises: nlohmann's compact dump with invalid UTF-8
// replaced, for the same values in the same order.
#include "common/json_writer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "common/json_reader.h"

namespace zs::json {
namespace {

std::string dumped(const Json& j) { return j.dump(-1, ' ', false, Json::error_handler_t::replace); }

TEST(JsonWriter, NestedObjectsAsNlohmannDumpsThem) {
  JsonWriter w;
  w.begin_object().key("a").value(1).key("b").begin_object().key("c").value(true);
  w.key("d").begin_object().end_object().end_object().key("e").value("x").end_object();
  EXPECT_TRUE(w.complete());
  Json j = Json::object();
  j["a"] = 1;
  j["b"] = {{"c", true}, {"d", Json::object()}};
  j["e"] = "x";
  EXPECT_EQ(w.text(), dumped(j));
  EXPECT_EQ(w.text(), R"({"a":1,"b":{"c":true,"d":{}},"e":"x"})");
}

TEST(JsonWriter, NumbersAsNlohmannPrintsThem) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const std::uint64_t bits = rng();
    double d;
    std::memcpy(&d, &bits, sizeof d);
    const double decimal = static_cast<double>(rng() % 100000) * std::pow(10.0, (i % 50) - 25);
    const auto integer = static_cast<std::int64_t>(bits);
    JsonWriter w;
    w.begin_object().key("d").value(d).key("decimal").value(decimal).key("i").value(integer);
    w.key("u").value(bits).key("small").value(static_cast<int>(bits % 1000) - 500).end_object();
    Json j = Json::object();
    j["d"] = d;
    j["decimal"] = decimal;
    j["i"] = integer;
    j["u"] = bits;
    j["small"] = static_cast<int>(bits % 1000) - 500;
    ASSERT_EQ(w.text(), dumped(j)) << bits;
  }
  for (double d : {0.0, -0.0, 1.0, 4.0, 1e20, 1e-7, 0.1, std::numeric_limits<double>::infinity(),
                   std::nan(""), std::numeric_limits<double>::denorm_min()}) {
    JsonWriter w;
    w.begin_object().key("d").value(d).end_object();
    Json j = Json::object();
    j["d"] = d;
    EXPECT_EQ(w.text(), dumped(j)) << d;
  }
}

TEST(JsonWriter, StringsAsNlohmannEscapesThem) {
  std::mt19937 rng(5);
  const std::string pieces[] = {"plain", "quo\"te", "back\\slash", "tab\t", "nl\n",
                                "\x01",  "\x7f",    "±19%",        "日本",  "\xff",
                                "\xc3",  "é",       "/path/a b"};
  for (int i = 0; i < 2000; ++i) {
    std::string s, k;
    for (int n = 0; n < 4; ++n) s += pieces[rng() % std::size(pieces)];
    k = pieces[rng() % std::size(pieces)];
    JsonWriter w;
    w.begin_object().key(k).value(s).end_object();
    Json j = Json::object();
    j[k] = s;
    ASSERT_EQ(w.text(), dumped(j)) << s;
  }
}

TEST(JsonWriter, MisuseIsABug) {
  EXPECT_DEATH(
      {
        JsonWriter w;
        w.begin_object().value(1);
      },
      "");
  EXPECT_DEATH(
      {
        JsonWriter w;
        w.end_object();
      },
      "");
}

}  // namespace
}  // namespace zs::json
