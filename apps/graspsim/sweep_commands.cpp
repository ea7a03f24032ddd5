#include "sweep_commands.h"

#include <cstdio>
#include <iostream>
#include <optional>

#include "core/error.h"
#include "sweep/sweep_file.h"
#include "sweep/sweep_mpi.h"
#include "sweep/sweep_report.h"
#include "sweep/sweep_run.h"

namespace gs = graspsim;

void add_sweep_commands(CLI::App& app, SweepArgs& sweep, SweepReportArgs& report) {
  CLI::App* s = app.add_subcommand(
      "sweep", "Run a parameter sweep (docs/sweeps.md): threads on this machine, or MPI ranks under mpirun / srun");
  s->add_option("file", sweep.file, "Sweep file (YAML)")->required();
  s->add_option("--out", sweep.out, "Output directory: results.jsonl (a line per job), sweep.json")->capture_default_str();
  s->add_option("--jobs", sweep.jobs, "Jobs at a time on this machine (default: its cores; under MPI one per rank)")
      ->check(CLI::Range(1, 4096));
  s->add_flag("--resume", sweep.resume, "Finish the sweep in --out: skip the jobs already in results.jsonl");
  s->add_flag("--report", sweep.report, "Write --out/report.html when the sweep ends");
  s->add_flag("--quiet", sweep.quiet, "No progress line");
  CLI::App* r = app.add_subcommand("sweep-report", "Write an HTML report of a sweep's results (figures per parameter)");
  r->add_option("dir", report.dir, "The sweep's --out directory")->required();
  r->add_option("--out", report.out, "The page to write (default DIR/report.html)");
}

int cmd_sweep(const SweepArgs& args, const std::function<bool()>& stop) {
  std::optional<gs::MpiSession> mpi;
  if (gs::launched_by_mpi()) mpi.emplace();
  const bool root = !mpi || mpi->rank() == 0;
  const bool ranks = mpi && mpi->size() > 1;
  try {
    const gs::Sweep sweep = gs::load_sweep(args.file);
    gs::SweepOptions options;
    options.out = args.out;
    options.threads = args.jobs;
    options.resume = args.resume;
    options.quiet = args.quiet || !root;
    options.stop = stop;
    const gs::SweepOutcome o = mpi ? gs::run_sweep_mpi(sweep, options, *mpi) : gs::run_sweep(sweep, options);
    if (!root) return o.interrupted ? kSweepStopped : 0;
    std::printf("%s: %ld jobs: %ld ran here%s, %ld already done, %ld failed in all; results in %s/results.jsonl\n",
                args.file.c_str(), o.total, o.ran, ranks ? " (all ranks)" : "", o.skipped, o.failed, args.out.c_str());
    for (const auto& m : o.missing_metrics)
      std::fprintf(stderr, "warning: %s: metric '%s' is in no job's summary (its value is null in every line)\n", args.file.c_str(),
                   m.c_str());
    if (o.interrupted) {
      std::fprintf(stderr, "%s: stopped with %ld of %ld jobs done; finish it with --resume\n", args.file.c_str(),
                   o.skipped + o.ran, o.total);
      return kSweepStopped;
    }
    if (args.report) std::printf("report: %s\n", gs::write_sweep_report(args.out).c_str());
    return 0;
  } catch (const gs::InputError& e) {
    if (root) std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "internal error: " << e.what() << "\n";
    if (ranks) mpi->abort(1);  // (the other ranks would wait for this one)
    return 1;
  }
}

int cmd_sweep_report(const SweepReportArgs& args) {
  std::printf("report: %s\n", gs::write_sweep_report(args.dir, args.out).c_str());
  return 0;
}
