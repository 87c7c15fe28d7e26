// What the process launcher says about this process's job, read from its environment without
// starting MPI: how many ranks mpirun/mpiexec (OpenMPI: OMPI_COMM_WORLD_SIZE), a PMI launcher
// such as MPICH's or srun --mpi=pmi2 (PMI_SIZE) or Slurm's srun (SLURM_STEP_NUM_TASKS: srun sets
// it for the tasks of a step; a batch script's own environment has SLURM_NTASKS, which is not
// read) started.
#pragma once

namespace zs::exec {

// The number of processes the launcher started with this one, or 1 when no launcher variable
// is set or none holds a positive integer.
int launched_world_size();

}  // namespace zs::exec
