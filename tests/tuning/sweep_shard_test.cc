// A sweep split across ranks (SweepSetup::shard), with the ranks as threads of this process and
// an in-memory gather: the same rows, sink order, ranking and winner as one process; rank 0's
// sink failure stops every rank; a gather that fails ends the sweep with its Status. Also the
// rows' bytes (tuning/sweep_wire.h) round trip exactly and malformed bytes are named.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/tuning/sweep_test_util.h"
#include "tuning/sweep.h"
#include "tuning/sweep_wire.h"

namespace zs::tuning {
namespace {

// An all-gather among `ranks` threads: each call blocks until every rank has called, then
// returns every rank's bytes in rank order.
class ThreadGather {
 public:
  explicit ThreadGather(int ranks) : ranks_(ranks), slots_(static_cast<std::size_t>(ranks)) {}
  std::vector<std::string> gather(int rank, const std::string& mine) {
    std::unique_lock<std::mutex> lock(mu_);
    const long round = round_;
    slots_[static_cast<std::size_t>(rank)] = mine;
    if (++arrived_ == ranks_) {
      done_ = slots_;
      arrived_ = 0;
      ++round_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return round_ != round; });
    }
    return done_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int ranks_;
  int arrived_ = 0;
  long round_ = 0;
  std::vector<std::string> slots_, done_;
};

struct RankRun {
  Result<SweepOutcome> out = Status::io_error("not run");
  std::vector<int> sunk;                 // ids the sink saw
  std::vector<std::string> sunk_render;  // and their renderings (dropped from the rows after)
};

std::vector<RankRun> run_ranks(const SweepSetup& base, int ranks, int stop_after = -1) {
  ThreadGather exchange(ranks);
  std::vector<RankRun> runs(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      SweepSetup s = base;
      RankRun& run = runs[static_cast<std::size_t>(r)];
      s.shard.rank = r;
      s.shard.ranks = ranks;
      s.shard.gather = [&exchange, r](const std::string& mine) -> Result<std::vector<std::string>> {
        return exchange.gather(r, mine);
      };
      if (r == 0) {
        s.row_sink = [&run, stop_after](const SweepRow& row) {
          run.sunk.push_back(row.id);
          run.sunk_render.push_back(row.rendered);
          if (stop_after >= 0 && static_cast<int>(run.sunk.size()) >= stop_after) {
            return Status::io_error("disk full");
          }
          return Status::ok();
        };
      }
      run.out = run_sweep(s);
    });
  }
  for (std::thread& t : threads) t.join();
  return runs;
}

TEST(SweepShard, RanksGiveTheRowsAndWinnerOfOneProcess) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("stage=1,2,3"), axis("micro_batch=1..8:+1"), axis("overlap_comm=true,false")};
  auto one = run_sweep(s);
  ASSERT_TRUE(one.ok()) << one.status().message();
  for (int ranks : {2, 3}) {
    std::vector<RankRun> runs = run_ranks(s, ranks);
    ASSERT_TRUE(runs[0].out.ok()) << runs[0].out.status().message();
    const SweepOutcome& root = *runs[0].out;
    EXPECT_TRUE(root.root);
    ASSERT_EQ(root.rows.size(), one->rows.size());
    for (std::size_t i = 0; i < root.rows.size(); ++i) {
      const SweepRow& a = root.rows[i];
      const SweepRow& b = one->rows[i];
      EXPECT_EQ(a.id, b.id);
      EXPECT_EQ(a.ok, b.ok);
      EXPECT_EQ(a.error, b.error);
      EXPECT_EQ(a.baseline, b.baseline);
      EXPECT_EQ(a.values, b.values);
      EXPECT_EQ(a.variant.values, b.variant.values);
      ASSERT_LT(i, runs[0].sunk_render.size());
      EXPECT_EQ(runs[0].sunk_render[i], b.rendered);
      EXPECT_EQ(a.metrics.step_s, b.metrics.step_s);
      EXPECT_EQ(a.metrics.gpu_peak_bytes, b.metrics.gpu_peak_bytes);
    }
    EXPECT_EQ(root.ranking, one->ranking);
    EXPECT_EQ(root.best, one->best);
    EXPECT_EQ(root.why, one->why);
    for (int r = 1; r < ranks; ++r) {
      ASSERT_TRUE(runs[static_cast<std::size_t>(r)].out.ok());
      EXPECT_FALSE(runs[static_cast<std::size_t>(r)].out->root);
      EXPECT_TRUE(runs[static_cast<std::size_t>(r)].out->rows.empty());
    }
  }
}

TEST(SweepShard, RankZerosSinkInIdOrderAndItsFailureStopsEveryRank) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("micro_batch=1..200:+1")};
  std::vector<RankRun> all = run_ranks(s, 2);
  ASSERT_TRUE(all[0].out.ok());
  ASSERT_EQ(all[0].sunk.size(), 201u);
  for (std::size_t i = 0; i < all[0].sunk.size(); ++i)
    EXPECT_EQ(all[0].sunk[i], static_cast<int>(i));
  std::vector<RankRun> stopped = run_ranks(s, 2, /*stop_after=*/3);
  ASSERT_FALSE(stopped[0].out.ok());
  EXPECT_EQ(stopped[0].out.status().message(), "disk full");
  EXPECT_EQ(stopped[0].sunk.size(), 3u);
  ASSERT_TRUE(stopped[1].out.ok());
  EXPECT_TRUE(stopped[1].out->stopped);
}

TEST(SweepShard, AFailedGatherEndsTheSweepWithItsStatus) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("micro_batch=1,2")};
  s.shard.ranks = 2;
  s.shard.gather = [](const std::string&) -> Result<std::vector<std::string>> {
    return Status::io_error("all_gather on rank 0 of 2: nothing from rank 1 in 3 s");
  };
  auto out = run_sweep(s);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "all_gather on rank 0 of 2: nothing from rank 1 in 3 s");
}

// Rank 0 writes nothing it has not seen: a batch short of a rank's rows (here the last row, the
// only one rank 1 holds) is an error, not a shorter sweep.
TEST(SweepShard, ABatchMissingARanksRowsIsAnError) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("micro_batch=1")};  // rows 0 (rank 0) and 1 (rank 1)
  s.shard.ranks = 2;
  s.shard.gather = [](const std::string& mine) -> Result<std::vector<std::string>> {
    return std::vector<std::string>{mine, "g"};  // rank 1 sent its header and no row
  };
  auto out = run_sweep(s);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "sweep: the ranks' rows of batch 0..1 are not one each");
}

TEST(SweepWire, RowsRoundTripExactly) {
  SweepSetup s = sweep_setup(kZero2);
  s.axes = {axis("stage=1,3"), axis("micro_batch=1,3")};
  auto one = run_sweep(s);
  ASSERT_TRUE(one.ok());
  std::vector<SweepRow> rows = one->rows;
  rows[1].rendered = std::string("bytes\0with nul", 14);
  rows[2].metrics.mfu = 0.1 + 0.2;
  std::string bytes;
  encode_rows(rows, &bytes);
  auto back = decode_rows(bytes, "rank 1");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const SweepRow& a = (*back)[i];
    EXPECT_EQ(a.id, rows[i].id);
    EXPECT_EQ(a.ok, rows[i].ok);
    EXPECT_EQ(a.error, rows[i].error);
    EXPECT_EQ(a.rendered, rows[i].rendered);
    EXPECT_EQ(a.values, rows[i].values);
    EXPECT_EQ(std::memcmp(&a.metrics.mfu, &rows[i].metrics.mfu, sizeof(double)), 0);
    EXPECT_EQ(a.metrics.gpu_breakdown.bytes, rows[i].metrics.gpu_breakdown.bytes);
    EXPECT_EQ(a.metrics.regime, rows[i].metrics.regime);
    EXPECT_EQ(a.metrics.train_batch_size, rows[i].metrics.train_batch_size);
  }
  auto cut = decode_rows(std::string_view(bytes).substr(0, bytes.size() - 3), "rank 1");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("sweep rows from rank 1: cut short"), std::string::npos);
  auto junk = decode_rows("not rows at all", "rank 2");
  ASSERT_FALSE(junk.ok());
  EXPECT_NE(junk.status().message().find("rank 2: not a row"), std::string::npos);
}

}  // namespace
}  // namespace zs::tuning
