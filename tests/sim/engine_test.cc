// The discrete-event engine against closed forms: hand-built plans with hand-set costs.
#include "sim/engine.h"

#include <gtest/gtest.h>

#include <cmath>

namespace zs::sim {
namespace {

using plan::Plan;

// A plan with the given streams; ops appended by add().
struct PlanMaker {
  Plan p;
  PlanMaker() { p.segments.push_back(plan::Segment{"all", 0, 0, 1}); }
  int stream(const char* name, plan::StreamKind k) { return p.add_stream(name, k); }
  int add(const char* name, int stream, plan::Work w, std::vector<int> deps = {},
          bool host_waits = false) {
    plan::Op op;
    op.name = p.add_name({name});
    op.stream = stream;
    op.work = std::move(w);
    op.host_waits = host_waits;
    const int id = p.add_op(std::move(op), deps);
    p.segments.back().end_op = id + 1;
    return id;
  }
};

constexpr double kNs = 1e-9;

TEST(Engine, LoneKernelTakesItsTimeAfterItsLaunch) {
  PlanMaker m;
  const int s = m.stream("compute", plan::StreamKind::kCompute);
  m.add("k", s, plan::ComputeWork{});
  std::vector<OpCost> c(1);
  c[0].host_s = 5e-6;
  c[0].fixed_s = 1e-3;
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{.record = true}).value();
  EXPECT_EQ(r.ops[0].start_ns, 0);
  EXPECT_EQ(r.ops[0].end_ns, 1'000'000);
  EXPECT_EQ(r.step_ns, 1'000'000);
}

TEST(Engine, HostBoundKernelsEndWhenTheHostHasIssuedThem) {
  PlanMaker m;
  const int s = m.stream("compute", plan::StreamKind::kCompute);
  for (int i = 0; i < 10; ++i) m.add("k", s, plan::ComputeWork{});
  std::vector<OpCost> c(10, OpCost{.host_s = 10e-6, .fixed_s = 2e-6});
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{}).value();
  // The host issues one every 10 us; each kernel ends 10 us after its issue at the earliest.
  EXPECT_EQ(r.step_ns, 100'000);
}

TEST(Engine, TwoStreamsOverlapAndAJoinWaitsForBoth) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int b = m.stream("comm", plan::StreamKind::kCollective);
  const int x = m.add("x", a, plan::ComputeWork{});
  const int y = m.add("y", b, plan::MemoryWork{});
  m.add("join", a, plan::MemoryWork{}, {x, y});
  std::vector<OpCost> c(3);
  c[0].fixed_s = 3e-3;
  c[1].fixed_s = 5e-3;
  c[2].fixed_s = 1e-3;
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{.record = true}).value();
  EXPECT_EQ(r.ops[1].start_ns, 0);  // overlaps x
  EXPECT_EQ(r.ops[2].start_ns, 5'000'000);
  EXPECT_EQ(r.step_ns, 6'000'000);  // max(3, 5) + 1 ms, not 3 + 5 + 1
}

// The CPU backend's execution: the host runs each op after issuing it and waits for it, so
// nothing overlaps, not even two streams or two flows on one link.
TEST(Engine, SerialRunsEveryOpAfterItsIssueOneAtATime) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int b = m.stream("comm", plan::StreamKind::kCollective);
  const int up = m.stream("h2d", plan::StreamKind::kCopyH2D);
  const int down = m.stream("d2h", plan::StreamKind::kCopyD2H);
  m.add("x", a, plan::ComputeWork{});
  m.add("y", b, plan::MemoryWork{});
  m.add("up", up, plan::CopyWork{1'000'000'000, true, true});
  m.add("down", down, plan::CopyWork{500'000'000, false, true});
  std::vector<OpCost> c(4, OpCost{.host_s = 1e-3});
  c[0].fixed_s = 3e-3;
  c[1].fixed_s = 5e-3;
  for (int i : {2, 3}) {
    c[i].fixed_s = 1e-3;
    c[i].link = 0;
    c[i].rate_cap = 25e9;
  }
  c[2].link_amount = 1e9;
  c[3].link_amount = 0.5e9;
  const std::vector<Link> links{{"pcie", 36e9}};
  const EngineResult r =
      run_engine(m.p, c, links, EngineOptions{.serial = true, .record = true}).value();
  // x: issued 0-1 ms, runs 1-4; y: 4-5, 5-10; up: 10-11, 11-12 fixed, then 1 GB at 25 GB/s
  // (40 ms) alone on the link; down: 52-53, 53-54, then 20 ms.
  EXPECT_EQ(r.ops[0].start_ns, 1'000'000);
  EXPECT_EQ(r.ops[0].end_ns, 4'000'000);
  EXPECT_EQ(r.ops[1].start_ns, 5'000'000);
  EXPECT_EQ(r.ops[1].end_ns, 10'000'000);
  EXPECT_EQ(r.ops[2].start_ns, 11'000'000);
  EXPECT_NEAR(r.ops[2].end_ns * kNs, 52e-3, 2e-9);
  EXPECT_NEAR(r.ops[3].start_ns * kNs, 53e-3, 2e-9);
  EXPECT_NEAR(r.step_ns * kNs, 74e-3, 4e-9);
  // The same plan on a device overlaps them: far shorter.
  const EngineResult d = run_engine(m.p, c, links, EngineOptions{}).value();
  EXPECT_LT(d.step_ns * kNs, 60e-3);
}

TEST(Engine, HostWaitsStopIssuing) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int h = m.stream("host", plan::StreamKind::kCpu);
  const int x = m.add("x", a, plan::ComputeWork{});
  m.add("sync", h, plan::SyncWork{}, {x}, true);
  m.add("y", a, plan::ComputeWork{});
  std::vector<OpCost> c(3);
  c[0].fixed_s = 2e-3;
  c[1].host_s = 1e-6;
  c[2].host_s = 1e-6;
  c[2].fixed_s = 1e-3;
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{.record = true}).value();
  EXPECT_EQ(r.ops[2].issue_ns, 2'000'000);  // issued only after x finished
  EXPECT_EQ(r.ops[2].start_ns, 2'000'000);  // its first kernel starts as it is launched
  EXPECT_EQ(r.step_ns, 3'000'000);
}

TEST(Engine, WaitBeforeAnOpIsARoundTripThenSleepUntilItsTarget) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int g = m.stream("allgather", plan::StreamKind::kCollective);
  const int x = m.add("gather", g, plan::MemoryWork{});
  const int y = m.add("layer", a, plan::ComputeWork{});
  m.p.ops[y].host_wait_for = x;
  const int z = m.add("next", a, plan::ComputeWork{});
  m.p.ops[z].host_wait_for = x;  // already finished by then: only the round trip
  std::vector<OpCost> c(3, OpCost{.host_s = 1e-6});
  c[0].fixed_s = 2e-3;
  c[1].fixed_s = 1e-3;
  c[1].host_wait_s = 7e-6;
  c[2].host_wait_s = 7e-6;
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{.record = true}).value();
  EXPECT_EQ(r.ops[1].wait_ns, 1'000);           // after issuing the gather
  EXPECT_EQ(r.ops[1].issue_ns, 2'000'000);      // the gather ends at 2 ms
  EXPECT_EQ(r.ops[2].wait_ns, 2'001'000);       // right after issuing `layer`
  EXPECT_EQ(r.ops[2].issue_ns, 2'008'000);      // 7 us round trip, no sleep
  EXPECT_EQ(r.step_ns, 2'000'000 + 1'000'000);  // the layer runs 2..3 ms; next takes 0
  // A wait for an op that ends before the round trip does costs the round trip alone.
  c[0].fixed_s = 1e-6;
  const EngineResult quick = run_engine(m.p, c, {}, EngineOptions{.record = true}).value();
  EXPECT_EQ(quick.ops[1].issue_ns, 1'000 + 7'000);
}

TEST(Engine, EventsDuringARoundTripHappenBeforeTheOpAfterIt) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int g = m.stream("allgather", plan::StreamKind::kCollective);
  const int x = m.add("gather", g, plan::MemoryWork{});
  const int p = m.add("layer", a, plan::ComputeWork{});
  const int q = m.add("next", a, plan::ComputeWork{});
  m.p.ops[q].host_wait_for = x;  // finished before the wait begins
  std::vector<OpCost> c(3, OpCost{.host_s = 1e-6});
  c[0].fixed_s = 1e-6;   // the gather: 0..1 us
  c[1].fixed_s = 10e-6;  // the layer: issued at 1 us, runs 1..11 us
  c[2].fixed_s = 1e-6;
  c[2].host_wait_s = 20e-6;  // the host syncs from 2 us to 22 us; the layer ends meanwhile
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{.record = true}).value();
  EXPECT_EQ(r.ops[p].end_ns, 11'000);
  EXPECT_EQ(r.ops[q].wait_ns, 2'000);
  EXPECT_EQ(r.ops[q].issue_ns, 22'000);
  EXPECT_EQ(r.ops[q].start_ns, 22'000);  // not when the layer freed the stream, before its issue
  EXPECT_EQ(r.ops[q].end_ns, 23'000);
  for (std::size_t k = 1; k < r.transitions.size(); ++k) {
    EXPECT_LE(r.transitions[k - 1].t_ns, r.transitions[k].t_ns) << k;
  }
}

TEST(Engine, PcieLinkSharedByH2dAndD2h) {
  PlanMaker m;
  const int up = m.stream("h2d", plan::StreamKind::kCopyH2D);
  const int down = m.stream("d2h", plan::StreamKind::kCopyD2H);
  m.add("up", up, plan::CopyWork{1'000'000'000, true, true});
  m.add("down", down, plan::CopyWork{500'000'000, false, true});
  const double duplex = 36e9, pinned = 25e9;
  std::vector<OpCost> c(2, OpCost{.link = 0, .rate_cap = pinned});
  c[0].link_amount = 1e9;
  c[1].link_amount = 0.5e9;
  const std::vector<Link> links{{"pcie", duplex}};
  const EngineResult r = run_engine(m.p, c, links, EngineOptions{.record = true}).value();
  // Both run at 18 GB/s until the D2H copy ends (0.5 GB / 18 GB/s); the H2D copy then has the
  // link to itself up to its 25 GB/s cap for the 0.5 GB it has left.
  const double t_down = 0.5e9 / (duplex / 2);
  const double t_up = t_down + (1e9 - t_down * duplex / 2) / pinned;
  EXPECT_NEAR(r.ops[1].end_ns * kNs, t_down, 2e-9);
  EXPECT_NEAR(r.ops[0].end_ns * kNs, t_up, 2e-9);
  // Alone, the same H2D copy runs at the pinned rate.
  PlanMaker alone;
  alone.add("up", alone.stream("h2d", plan::StreamKind::kCopyH2D),
            plan::CopyWork{1'000'000'000, true, true});
  const EngineResult a = run_engine(alone.p, {c[0]}, links, EngineOptions{}).value();
  EXPECT_NEAR(a.step_ns * kNs, 1e9 / pinned, 2e-9);
}

TEST(Engine, RepeatedSegmentBetweenSyncsCostsRepeatTimesOne) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int h = m.stream("host", plan::StreamKind::kCpu);
  const int x = m.add("x", a, plan::ComputeWork{});
  m.add("sync", h, plan::SyncWork{}, {x}, true);
  m.p.segments.back().repeat = 5;
  m.p.segments.push_back(plan::Segment{"tail", 2, 2, 1});
  m.add("y", a, plan::ComputeWork{});
  std::vector<OpCost> c(3);
  c[0].fixed_s = 1e-3;
  c[2].fixed_s = 2e-3;
  const EngineResult r = run_engine(m.p, c, {}, EngineOptions{}).value();
  EXPECT_EQ(r.step_ns, 5 * 1'000'000 + 2'000'000);
  EXPECT_EQ(r.drained_repeats, 0);
}

TEST(Engine, OverflowSkipsMarkedOps) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  m.add("check", a, plan::ComputeWork{});
  const int opt = m.add("optimizer", a, plan::OptimizerWork{});
  m.p.ops[opt].skipped_on_overflow = true;
  std::vector<OpCost> c(2, OpCost{.fixed_s = 1e-3});
  EXPECT_EQ(run_engine(m.p, c, {}, EngineOptions{}).value().step_ns, 2'000'000);
  EXPECT_EQ(run_engine(m.p, c, {}, EngineOptions{.overflow = true}).value().step_ns, 1'000'000);
}

// DeepSpeed returns from step() after the overflow check: the skipped ops' Python, launches and
// syncs are skipped with their kernels, so a host-bound step shortens too.
TEST(Engine, OverflowSkipsTheMarkedOpsHostWorkAndSyncs) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  m.add("check", a, plan::ComputeWork{});
  const int norm = m.add("norm", a, plan::ComputeWork{}, {}, /*host_waits=*/true);
  const int opt = m.add("optimizer", a, plan::OptimizerWork{});
  m.p.ops[norm].skipped_on_overflow = true;
  m.p.ops[opt].skipped_on_overflow = true;
  std::vector<OpCost> c(3, OpCost{.host_before_s = 1e-3, .host_s = 1e-3, .fixed_s = 1e-6});
  // 2 ms of host per op (each kernel runs while its launch is issued, and the host's wait for
  // the norm's finds it done): the host's 6 ms.
  EXPECT_EQ(run_engine(m.p, c, {}, EngineOptions{}).value().step_ns, 6'000'000);
  // Only the check is left, with its 2 ms of host.
  EXPECT_EQ(run_engine(m.p, c, {}, EngineOptions{.overflow = true}).value().step_ns, 2'000'000);
}

TEST(Engine, IdenticalInputsGiveIdenticalTimes) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  const int b = m.stream("comm", plan::StreamKind::kCollective);
  std::vector<OpCost> c;
  for (int i = 0; i < 50; ++i) {
    m.add("k", i % 2 ? a : b, plan::CollectiveWork{});
    c.push_back(OpCost{.host_s = 1e-6 * (i % 3),
                       .fixed_s = 1e-6 * i,
                       .link = 0,
                       .link_amount = 1e-4 * (i % 7 + 1)});
  }
  const std::vector<Link> links{{"nccl", 1.0}};
  const EngineResult x = run_engine(m.p, c, links, EngineOptions{.record = true}).value();
  const EngineResult y = run_engine(m.p, c, links, EngineOptions{.record = true}).value();
  ASSERT_EQ(x.ops.size(), y.ops.size());
  for (std::size_t i = 0; i < x.ops.size(); ++i) EXPECT_EQ(x.ops[i].end_ns, y.ops[i].end_ns);
}

// Bad rates reach the engine as huge, NaN or negative costs: each is an error, never a hang, a
// wrapped clock or a check failure.
TEST(Engine, AFlowTooSlowForTheHorizonIsAnErrorNotAHang) {
  PlanMaker m;
  const int up = m.stream("h2d", plan::StreamKind::kCopyH2D);
  m.add("up", up, plan::CopyWork{1'000'000'000, true, true});
  std::vector<OpCost> c(1, OpCost{.link = 0, .link_amount = 1e9});
  // 1e9 bytes at 1e-7 bytes/s: 3e8 years (the repro of a NIC bandwidth of 1e-7 bytes/s).
  const auto r = run_engine(m.p, c, {{"pcie", 1e-7}}, EngineOptions{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("longer than 73 years"), std::string::npos)
      << r.status().message();
}

TEST(Engine, ASlowFlowJustInsideTheHorizonFinishes) {
  PlanMaker m;
  const int up = m.stream("h2d", plan::StreamKind::kCopyH2D);
  m.add("up", up, plan::CopyWork{1'000'000'000'000'000, true, true});
  // 1e15 bytes at 1e6 bytes/s: 1e9 s, where a nanosecond of flow (1e-3 bytes) is below the
  // rounding residue of the amount; the finish test's relative slack ends it at once.
  std::vector<OpCost> c(1, OpCost{.link = 0, .link_amount = 1e15});
  const auto r = run_engine(m.p, c, {{"pcie", 1e6}}, EngineOptions{});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NEAR(static_cast<double>(r->step_ns) * kNs, 1e9, 1e-3);
}

TEST(Engine, HostTimesPastTheHorizonAreAnError) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  for (int i = 0; i < 8; ++i) m.add("k", a, plan::ComputeWork{});
  // Each launch saturates at kMaxDurationNs; eight of them would wrap a 64-bit clock.
  std::vector<OpCost> c(8, OpCost{.host_s = 1e300});
  const auto r = run_engine(m.p, c, {}, EngineOptions{});
  EXPECT_FALSE(r.ok());
}

TEST(Engine, RepetitionsPastTheHorizonAreAnError) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  m.add("k", a, plan::ComputeWork{});
  m.p.segments.back().repeat = 1'000'000;
  std::vector<OpCost> c(1, OpCost{.fixed_s = 1e4});  // 1e10 s over the repetitions
  const auto r = run_engine(m.p, c, {}, EngineOptions{});
  EXPECT_FALSE(r.ok());
}

TEST(Engine, NanOrNegativeCostsAndEmptyLinksAreErrors) {
  PlanMaker m;
  const int a = m.stream("compute", plan::StreamKind::kCompute);
  m.add("k", a, plan::ComputeWork{});
  EXPECT_FALSE(run_engine(m.p, {OpCost{.fixed_s = std::nan("")}}, {}, EngineOptions{}).ok());
  EXPECT_FALSE(run_engine(m.p, {OpCost{.fixed_s = -1}}, {}, EngineOptions{}).ok());
  EXPECT_FALSE(run_engine(m.p, {OpCost{.fixed_s = 1}}, {{"nccl", 0.0}}, EngineOptions{}).ok());
}

}  // namespace
}  // namespace zs::sim
