// The main() of the tests that run under mpirun (mpi_test_main.cc): an MpiSession, one
// communicator over MPI_COMM_WORLD for the tests, rank 0 alone printing, and an exit status
// that is non-zero on every rank when any rank failed.
#pragma once

#include "exec/communicator.h"

namespace zs::exec::testing {

// The communicator over every rank, made in main after the MpiSession, released before it ends.
Communicator& mpi_comm();

}  // namespace zs::exec::testing
