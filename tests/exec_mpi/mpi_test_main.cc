#include "tests/exec_mpi/mpi_test_main.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <memory>

#include "common/check.h"
#include "exec/mpi/mpi_communicator.h"

namespace zs::exec::testing {
namespace {
Communicator* the_comm = nullptr;
}  // namespace

Communicator& mpi_comm() {
  ZS_CHECK(the_comm != nullptr);
  return *the_comm;
}

}  // namespace zs::exec::testing

int main(int argc, char** argv) {
  zs::exec::MpiSession session(&argc, &argv);
  auto made = zs::exec::make_mpi_communicator();
  ZS_CHECK_MSG(made.ok(), "make_mpi_communicator");
  std::unique_ptr<zs::exec::Communicator> comm = std::move(*made);
  zs::exec::testing::the_comm = comm.get();
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (any != 0 && failed != 0 && rank != 0) std::fprintf(stderr, "rank %d failed\n", rank);
  zs::exec::testing::the_comm = nullptr;
  comm.reset();
  return any;
}
