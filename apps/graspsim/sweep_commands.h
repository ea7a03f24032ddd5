#pragma once
// The sweep subcommands of the graspsim CLI: sweep (threads, or MPI ranks under mpirun/srun)
// and sweep-report.

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

struct SweepArgs {
  std::string file, out = "sweep";
  int jobs = 0;  // 0: the cores (one per rank under MPI)
  bool resume = false, report = false, quiet = false;
};

struct SweepReportArgs {
  std::string dir, out;
};

void add_sweep_commands(CLI::App& app, SweepArgs& sweep, SweepReportArgs& report);
// Exit codes as the CLI's: 0 every job ran (failed jobs are results), 2 bad input,
// 1 internal failure, kSweepStopped when `stop` ended it (the jobs done are kept; --resume
// finishes it).
constexpr int kSweepStopped = -1;
int cmd_sweep(const SweepArgs& args, const std::function<bool()>& stop);
int cmd_sweep_report(const SweepReportArgs& args);
