#include "exec/launch.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace zs::exec {
namespace {

// The first of `names` set to an integer >= `least`, or `fallback`.
int launcher_int(std::initializer_list<const char*> names, int least, int fallback) {
  for (const char* name : names) {
    const char* v = std::getenv(name);
    if (v == nullptr) continue;
    int n = 0;
    const char* end = v + std::strlen(v);
    const auto [ptr, ec] = std::from_chars(v, end, n);
    if (ec == std::errc() && ptr == end && n >= least) return n;
  }
  return fallback;
}

}  // namespace

int launched_world_size() {
  return launcher_int({"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}, 1, 1);
}

int launched_local_rank() {
  return launcher_int({"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"}, 0, 0);
}

Result<std::unique_ptr<RankGroup>> RankGroup::start(double collective_timeout_s) {
  std::unique_ptr<RankGroup> g(new RankGroup());
  const int launched = launched_world_size();
  if (launched == 1) return g;
  auto mpi = load_mpi_library();
  if (!mpi.ok()) {
    return Status::invalid_argument("started as one of " + std::to_string(launched) +
                                    " processes by a launcher (mpirun, srun), and " +
                                    mpi.status().message() + "; or run one process");
  }
  g->mpi_ = *mpi;
  g->session_ = g->mpi_->start();
  ZS_ASSIGN_OR_RETURN(g->comm_, g->mpi_->make_communicator(collective_timeout_s));
  g->rank_ = g->comm_->rank();
  g->size_ = g->comm_->size();
  if (g->size_ != launched) {
    // Each process alone (an MPI singleton) would train the whole batch by itself.
    return Status::invalid_argument(
        "started as one of " + std::to_string(launched) +
        " processes by a launcher (mpirun, srun), but MPI sees a world of " +
        std::to_string(g->size_) +
        ": this build's MPI does not know that launcher; start the ranks with the mpirun of the "
        "MPI zerosim was built with");
  }
  return g;
}

RankGroup::~RankGroup() = default;

void RankGroup::abort(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  if (session_ != nullptr && size_ > 1) mpi_->abort(code);
  std::exit(code);
}

}  // namespace zs::exec
