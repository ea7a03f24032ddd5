#pragma once
// Running a sweep: one job (load the scene with the job's overrides, run it without
// recordings, keep the metrics), the results file, and a pool of threads.

#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep_file.h"

namespace graspsim {

// Runs job `index`; never throws for the job's own failures: a bad value, a diverging
// simulation or any other exception gives a line with "status": "failed" and the error.
// `stop` (may be empty) is polled every step; a stopped job returns a null json (it is not
// a result: a resumed sweep runs it again).
nlohmann::json run_sweep_job(const Sweep& sweep, long index, const std::function<bool()>& stop = {});

// The summary fields that measure time (wall_*, steps_per_second, solve_ms_*): kept under a
// job line's "wall" object, out of the metrics, so results compare bit for bit.
bool is_timing_field(const std::string& name);

struct SweepOutcome {
  long total = 0, ran = 0, skipped = 0, failed = 0;
  bool interrupted = false;
  std::vector<std::string> missing_metrics;  // listed metrics no finished job's summary had (a typo?)
};

// DIR/results.jsonl: one line per finished job, appended and flushed as each finishes.
// Opening it checks DIR/sweep.json against the sweep (a different sweep's results are never
// mixed in) and, with resume, reads the jobs already done; a line cut short by a kill is
// dropped. Without resume an existing non-empty results file is an error.
class SweepResults {
 public:
  SweepResults(const Sweep& sweep, const std::filesystem::path& dir, bool resume);
  ~SweepResults();
  SweepResults(const SweepResults&) = delete;
  SweepResults& operator=(const SweepResults&) = delete;

  const std::set<long>& done() const { return done_; }
  long failed() const { return failed_; }
  // The jobs of `sweep` not in the file yet, in order.
  std::vector<long> pending(const Sweep& sweep) const;
  // The sweep's outcome after `ran` jobs ran here and `skipped` were in the file before.
  SweepOutcome outcome(const Sweep& sweep, long skipped, long ran) const;
  // The sweep's listed metrics that are null in every job that ran through.
  std::vector<std::string> missing_metrics(const Sweep& sweep) const;
  // Appends one job line (thread-safe) and flushes it.
  void write(const nlohmann::json& line);
  std::filesystem::path path() const { return dir_ / "results.jsonl"; }

 private:
  void count(const nlohmann::json& line);

  std::filesystem::path dir_;
  std::FILE* file_ = nullptr;
  std::set<long> done_;
  std::set<std::string> found_metrics_;
  long failed_ = 0;
  std::mutex mutex_;
};

// Progress on stderr (rank 0): jobs done/total, failures, rate and time left; a line every
// few seconds when stderr is not a terminal, in place when it is.
class SweepProgress {
 public:
  SweepProgress(long total, long already_done, bool quiet);
  void job_done(bool failed);
  void finish();

 private:
  void print(bool final);
  long total_, done_, start_done_, failed_ = 0;
  bool quiet_, tty_;
  double start_, last_print_ = -1e9;
  std::mutex mutex_;
};

struct SweepOptions {
  std::filesystem::path out = "sweep";
  int threads = 0;        // 0: the machine's cores
  bool resume = false;
  bool quiet = false;     // no progress line
  std::function<bool()> stop;  // e.g. SIGINT: no new jobs, jobs in flight dropped
};

// The whole sweep on this machine, `threads` jobs at a time.
SweepOutcome run_sweep(const Sweep& sweep, const SweepOptions& options);

}  // namespace graspsim
