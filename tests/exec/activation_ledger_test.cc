// The order rules both model runners keep (exec/activation_ledger.h), on a small graph.
#include "exec/activation_ledger.h"

#include <gtest/gtest.h>

namespace zs::exec {
namespace {

// 0 <- 1 <- 2, and 3 reads 1 and 2: op 1 has two readers, its last is 3.
std::vector<models::Op> graph() {
  std::vector<models::Op> ops(4);
  const char* names[] = {"embed", "a", "b", "c"};
  for (int i = 0; i < 4; ++i) ops[i].name = names[i];
  ops[0].inputs = {models::kTokenIdsInput};
  ops[1].inputs = {0};
  ops[2].inputs = {1};
  ops[3].inputs = {1, 2, models::kTargetsInput};
  return ops;
}

TEST(ActivationLedger, CountsReadersAndGivesTheFirstGradientToOverwrite) {
  ActivationLedger l(graph());
  EXPECT_EQ(l.readers(0), 1);
  EXPECT_EQ(l.readers(1), 2);
  EXPECT_EQ(l.readers(3), 0);
  for (int i = 0; i < 4; ++i) {
    l.check_forward(i);
    l.forwarded(i, false);
  }
  l.check_backward(3);
  EXPECT_TRUE(l.take_gradient(2));
  EXPECT_TRUE(l.take_gradient(1));  // op 3, the first of op 1's readers
  l.check_backward(2);
  EXPECT_FALSE(l.take_gradient(1));  // op 2 adds
  l.check_backward(1);
  EXPECT_TRUE(l.take_gradient(0));
  l.check_backward(0);
}

TEST(ActivationLedger, DropKeepsOutputsReadPastTheCheckpointAndRecomputeRestores) {
  ActivationLedger l(graph());
  for (int i = 0; i < 4; ++i) l.forwarded(i, false);
  // The checkpoint [1, 2]: op 1's output is read by op 3, after it, so it stays.
  EXPECT_FALSE(l.drop(1, 2));
  EXPECT_TRUE(l.out_live(1));
  EXPECT_FALSE(l.saved_live(1));
  EXPECT_TRUE(l.drop(2, 3));
  EXPECT_FALSE(l.out_live(2));
  // Recomputation restores them without restarting the readers' account.
  EXPECT_TRUE(l.take_gradient(2));  // op 3's backward
  l.forwarded(1, true);
  l.forwarded(2, true);
  l.check_backward(2);
  l.release(2);
  EXPECT_FALSE(l.out_live(2));
}

TEST(ActivationLedgerDeathTest, OrderBreachesAbortNamingTheOp) {
  ActivationLedger l(graph());
  EXPECT_DEATH(l.check_forward(2), "out_live: b");  // op 1 has not run
  for (int i = 0; i < 4; ++i) l.forwarded(i, false);
  EXPECT_DEATH(l.check_backward(1), "pending == 0: a");  // its readers have not
  l.drop(2, 2);
  EXPECT_DEATH(l.check_backward(2), "saved_live: b");  // dropped, not recomputed
  EXPECT_TRUE(l.take_gradient(0));
  EXPECT_DEATH(l.take_gradient(0), "backward twice");
}

}  // namespace
}  // namespace zs::exec
