#pragma once
// A sweep across MPI ranks (OpenMPI; mpirun or Slurm's srun --mpi=pmix start the ranks).
// Rank 0 owns the results file and the progress line and hands out job indices on request:
// a rank that finishes a job sends its line and gets the next index, so fast and slow ranks
// share the work. Rank 0 also runs jobs, in a thread beside the dispatcher.

#include "sweep/sweep_run.h"

namespace graspsim {

// True when an MPI launcher started this process (its environment says so); a plain run
// never initialises MPI.
bool launched_by_mpi();

// MPI_Init_thread / MPI_Finalize around a scope.
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // Ends every rank (a fault on one would leave the others waiting for it).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1;
};

// The sweep over all ranks, one job at a time per rank. Every rank must call it with the
// same sweep. Rank 0's outcome counts the whole sweep; other ranks' count their own jobs.
// An error opening the results (rank 0) is thrown on every rank.
SweepOutcome run_sweep_mpi(const Sweep& sweep, const SweepOptions& options, const MpiSession& mpi);

}  // namespace graspsim
