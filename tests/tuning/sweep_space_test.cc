// Parsing --vary specs into axes, checking them against a config, and applying variants.
#include "tuning/sweep_space.h"

#include <gtest/gtest.h>

namespace zs::tuning {
namespace {

using json::Json;

Axis parse_ok(const std::string& spec) {
  auto a = parse_vary(spec);
  EXPECT_TRUE(a.ok()) << (a.ok() ? "" : a.status().message());
  return a.ok() ? *a : Axis{};
}

std::string parse_error(const std::string& spec) {
  auto a = parse_vary(spec);
  EXPECT_FALSE(a.ok()) << spec;
  return a.ok() ? "" : a.status().message();
}

json::Document doc_of(const std::string& text) {
  auto d = json::parse_text(text, "base.json");
  EXPECT_TRUE(d.ok());
  return d.ok() ? *d : json::Document{};
}

TEST(SweepSpace, ConfigPathValuesAreJsonWithIntegralExponentsAsIntegers) {
  const Axis a = parse_ok("zero_optimization.reduce_bucket_size=5e7,2.5e8,500000000");
  EXPECT_EQ(a.shorthand, Shorthand::kNone);
  ASSERT_EQ(a.path.size(), 2u);
  EXPECT_EQ(a.path[1].key, "reduce_bucket_size");
  ASSERT_EQ(a.values.size(), 3u);
  EXPECT_TRUE(a.values[0].is_number_integer());
  EXPECT_EQ(a.values[0], 50000000);
  EXPECT_EQ(a.values[1], 250000000);
  EXPECT_TRUE(a.values[1].is_number_integer());
  EXPECT_EQ(a.values[2], 500000000);
  const Axis b = parse_ok("gradient_clipping=1.0,0.5");
  EXPECT_TRUE(b.values[0].is_number_float());
  const Axis c = parse_ok("optimizer.params.betas=[0.9,0.95],[0.9,0.999]");
  ASSERT_EQ(c.values.size(), 2u);
  EXPECT_TRUE(c.values[0].is_array());
  const Axis d = parse_ok("zero_optimization.offload_optimizer.device=cpu,\"none\"");
  EXPECT_EQ(d.values[0], "cpu");
  EXPECT_EQ(d.values[1], "none");
}

TEST(SweepSpace, ShorthandsAndTheirValues) {
  EXPECT_EQ(parse_ok("stage=0,1,2,3").shorthand, Shorthand::kStage);
  const Axis o = parse_ok("offload=none,optimizer,optimizer+param");
  EXPECT_EQ(o.shorthand, Shorthand::kOffload);
  EXPECT_EQ(o.values[2], "optimizer+param");
  EXPECT_EQ(parse_ok("overlap_comm=true,false").values[1], false);
  EXPECT_EQ(parse_ok("precision=bf16,fp32").shorthand, Shorthand::kPrecision);
  EXPECT_EQ(parse_ok("checkpointing=false,true").shorthand, Shorthand::kCheckpointing);
  EXPECT_EQ(parse_ok("grad_accum=1,4").shorthand, Shorthand::kGradAccum);
}

TEST(SweepSpace, Ranges) {
  const Axis m = parse_ok("micro_batch=1..32:x2");
  ASSERT_EQ(m.values.size(), 6u);
  EXPECT_EQ(m.values[5], 32);
  const Axis s = parse_ok("micro_batch=1..8:+1");
  ASSERT_EQ(s.values.size(), 8u);
  EXPECT_EQ(s.values[7], 8);
  EXPECT_EQ(parse_ok("grad_accum=2..6").values.size(), 5u);
  const Axis b = parse_ok("zero_optimization.reduce_bucket_size=5e7..4e8:x2");
  ASSERT_EQ(b.values.size(), 4u);
  EXPECT_EQ(b.values[3], 400000000);
  const Axis c = parse_ok("zero_optimization.reduce_bucket_size=1e6..2.5e6:+5e5");
  ASSERT_EQ(c.values.size(), 4u);
  EXPECT_TRUE(c.values[3].is_number_integer());
  EXPECT_EQ(c.values[3], 2500000);
  const Axis f = parse_ok("gradient_clipping=0.5..2:+0.5");
  ASSERT_EQ(f.values.size(), 4u);
  EXPECT_TRUE(f.values[0].is_number_float());
  // A range and single values together.
  EXPECT_EQ(parse_ok("micro_batch=1..4:x2,3").values.size(), 4u);
}

TEST(SweepSpace, BadSpecsNameTheFlagValueAndWhatIsAllowed) {
  EXPECT_NE(parse_error("stage=4").find("--vary stage=4: 4 is not allowed; expected a ZeRO stage"),
            std::string::npos);
  EXPECT_NE(parse_error("offload=gpu").find("none, optimizer or optimizer+param"),
            std::string::npos);
  EXPECT_NE(parse_error("overlap_comm=yes").find("true or false"), std::string::npos);
  EXPECT_NE(parse_error("micro_batch=0").find("an integer from 1"), std::string::npos);
  EXPECT_NE(parse_error("micro_batch=8..1").find("the start is above the end"), std::string::npos);
  EXPECT_NE(parse_error("micro_batch=1..8:x1").find("factor must be above 1"), std::string::npos);
  EXPECT_NE(parse_error("micro_batch=1..8:-1").find("neither +S nor xF"), std::string::npos);
  EXPECT_NE(parse_error("micro_batch=a..b").find("not numbers"), std::string::npos);
  EXPECT_NE(parse_error("micro_batch=1..1e9").find("more than 10000 values"), std::string::npos);
  EXPECT_NE(parse_error("stage").find("expected KEY=V1,V2"), std::string::npos);
  EXPECT_NE(parse_error("stage=1,,2").find("an empty value"), std::string::npos);
  EXPECT_NE(parse_error("stage=1,1").find("given twice"), std::string::npos);
  EXPECT_NE(parse_error("zero_optimization..stage=1").find("is not a JSON path"),
            std::string::npos);
}

TEST(SweepSpace, DeepOrLongKeysAreRefusedBeforeParsing) {
  // A 50,000-component path took minutes; DeepSpeed's deepest keys have 3.
  std::string deep = "a";
  for (int i = 0; i < 50'000; ++i) deep += ".a";
  const std::string msg = parse_error(deep + "=1,2");
  EXPECT_NE(msg.find("a config path of at most 16 components and 256 characters"),
            std::string::npos)
      << msg.substr(0, 300);
  EXPECT_LT(msg.size(), 400u);  // the key is cut in the message
  parse_ok("zero_optimization.offload_optimizer.device=cpu,none");
  EXPECT_FALSE(parse_vary(std::string(300, 'k') + "=1").ok());
}

TEST(SweepSpace, ManyValuesOnOneAxisStillCatchRepeats) {
  // Two ranges of 10,000: repeats are found through a set, not by comparing every pair.
  const Axis a = parse_ok("zero_optimization.reduce_bucket_size=1..10000:+1,10001..20000:+1");
  EXPECT_EQ(a.values.size(), 20'000u);
  EXPECT_NE(parse_error("zero_optimization.reduce_bucket_size=1..10000:+1,5e3")
                .find("the value 5000 is given twice"),
            std::string::npos);
}

TEST(SweepSpace, CheckAxesRejectsWrongTypesUnknownKeysAndRepeats) {
  const json::Document base = doc_of(R"({"train_micro_batch_size_per_gpu": 4,
                                         "zero_optimization": {"stage": 2}})");
  const auto check = [&](std::vector<std::string> specs) {
    std::vector<Axis> axes;
    for (const std::string& s : specs) axes.push_back(parse_ok(s));
    return check_axes(axes, base, configs::kLatestDsVersion);
  };
  EXPECT_TRUE(check({"zero_optimization.reduce_bucket_size=5e7,2e8", "stage=1,2"}).is_ok());
  const Status wrong = check({"zero_optimization.reduce_bucket_size=5e7,abc"});
  ASSERT_FALSE(wrong.is_ok());
  EXPECT_NE(wrong.message().find("--vary zero_optimization.reduce_bucket_size=abc: "
                                 "zero_optimization.reduce_bucket_size:"),
            std::string::npos)
      << wrong.message();
  const Status typo = check({"zero_optimization.reduce_bucket_sise=5e7"});
  ASSERT_FALSE(typo.is_ok());
  EXPECT_NE(typo.message().find("reduce_bucket_size"), std::string::npos) << typo.message();
  const Status shorthand = check({"stagee=1"});
  ASSERT_FALSE(shorthand.is_ok());
  EXPECT_NE(shorthand.message().find("did you mean \"stage\"?"), std::string::npos)
      << shorthand.message();
  EXPECT_FALSE(check({"stage=1", "stage=2"}).is_ok());
  const Status same = check({"stage=1", "zero_optimization.stage=2"});
  ASSERT_FALSE(same.is_ok());
  EXPECT_NE(same.message().find("set the same key"), std::string::npos) << same.message();
}

TEST(SweepSpace, CartesianOrderVariesTheLastAxisFastest) {
  const std::vector<Axis> axes = {parse_ok("stage=1,2"), parse_ok("micro_batch=1,2,4")};
  EXPECT_EQ(variant_count(axes), 6);
  const std::vector<Variant> v = cartesian_variants(axes);
  ASSERT_EQ(v.size(), 6u);
  EXPECT_EQ(*v[1].values[0], 1);
  EXPECT_EQ(*v[1].values[1], 2);
  EXPECT_EQ(*v[3].values[0], 2);
  EXPECT_EQ(*v[3].values[1], 1);
}

TEST(SweepSpace, ApplyEditsTheConfigAndTheRequest) {
  const std::vector<Axis> axes = {parse_ok("stage=3"),
                                  parse_ok("offload=optimizer+param"),
                                  parse_ok("precision=bf16"),
                                  parse_ok("micro_batch=8"),
                                  parse_ok("checkpointing=true"),
                                  parse_ok("zero_optimization.stage3_prefetch_bucket_size=1e7")};
  Json root = Json::parse(R"({"fp16": {"enabled": "auto", "loss_scale": 0},
                              "zero_optimization": {"stage": 2,
                                "offload_param": {"device": "none", "pin_memory": true}}})");
  sim::SimulationRequest request;
  const auto edited = apply_variant(axes, cartesian_variants(axes)[0], &root, &request);
  ASSERT_TRUE(edited.ok()) << edited.status().message();
  EXPECT_EQ(root["zero_optimization"]["stage"], 3);
  EXPECT_EQ(root["zero_optimization"]["offload_optimizer"]["device"], "cpu");
  EXPECT_EQ(root["zero_optimization"]["offload_param"]["device"], "cpu");
  EXPECT_EQ(root["zero_optimization"]["offload_param"]["pin_memory"], true);
  EXPECT_EQ(root["zero_optimization"]["stage3_prefetch_bucket_size"], 10000000);
  EXPECT_EQ(root["fp16"]["enabled"], false);
  EXPECT_EQ(root["fp16"]["loss_scale"], 0);
  EXPECT_EQ(root["bf16"]["enabled"], true);
  EXPECT_EQ(request.check.micro_batch, 8);
  EXPECT_TRUE(request.activation_checkpointing);

  // offload=none switches a block off and keeps its other keys.
  const std::vector<Axis> off = {parse_ok("offload=none")};
  ASSERT_TRUE(apply_variant(off, cartesian_variants(off)[0], &root, &request).ok());
  EXPECT_EQ(root["zero_optimization"]["offload_optimizer"]["device"], "none");
  EXPECT_EQ(root["zero_optimization"]["offload_param"]["pin_memory"], true);

  // A parent that is not an object cannot take a key: a reason, not a crash.
  Json legacy = Json::parse(R"({"zero_optimization": true})");
  const std::vector<Axis> stage = {parse_ok("stage=2")};
  const auto bad = apply_variant(stage, cartesian_variants(stage)[0], &legacy, &request);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("zero_optimization is boolean true, not an object"),
            std::string::npos)
      << bad.status().message();
}

}  // namespace
}  // namespace zs::tuning
