// The MPI job dispatcher. Only rank 0's main thread calls MPI after MPI_Init
// (MPI_THREAD_FUNNELED); its job thread shares the pending list under a mutex.
//
// Every call goes through the profiling names (PMPI_*), which only the real libmpi defines:
// Debian's sequential MUMPS (libdmumps_seq, linked through Ipopt for the quasistatic MIQP)
// exports stub MPI_Init / MPI_Comm_rank / MPI_Finalize, and whichever library comes first
// in the link wins the plain names (every rank then reported rank 0).

#include "sweep/sweep_mpi.h"

#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

#include "core/error.h"
#include "io/json_text.h"

namespace graspsim {
namespace {

constexpr int kTagResult = 1;  // worker -> 0: the last job's line ("" on the first request)
constexpr int kTagJob = 2;     // 0 -> worker: the next job index, -1 when there is none

std::string line_text(const nlohmann::json& line) {
  return line.is_null() ? std::string() : json_text(line);
}

// Rank 0 opens the results; every rank learns whether that worked, and with what message.
void open_results(const Sweep& sweep, const SweepOptions& options, const MpiSession& mpi, std::optional<SweepResults>& results) {
  std::string error;
  if (mpi.rank() == 0) {
    try {
      results.emplace(sweep, options.out, options.resume);
    } catch (const std::exception& e) {
      error = e.what();
      if (error.empty()) error = "cannot open the results";
    }
  }
  int n = static_cast<int>(error.size());
  PMPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  error.resize(static_cast<std::size_t>(n));
  PMPI_Bcast(error.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (n > 0) throw InputError(error);
}

SweepOutcome dispatch(const Sweep& sweep, const SweepOptions& options, const MpiSession& mpi, SweepResults& results) {
  const std::vector<long> pending = results.pending(sweep);
  const long skipped = sweep.job_count() - static_cast<long>(pending.size());
  SweepProgress progress(sweep.job_count(), skipped, options.quiet);
  std::mutex mutex;
  std::size_t next = 0;
  long ran = 0;
  const auto stop = [&] { return options.stop && options.stop(); };
  const auto take = [&]() -> long {
    std::lock_guard lock(mutex);
    return !stop() && next < pending.size() ? pending[next++] : -1;
  };
  const auto record = [&](const nlohmann::json& line) {
    results.write(line);
    progress.job_done(line["status"] != "ok");
    std::lock_guard lock(mutex);
    ++ran;
  };
  std::exception_ptr fault;
  std::thread local([&] {
    try {
      for (long j; (j = take()) >= 0;) {
        const nlohmann::json line = run_sweep_job(sweep, j, stop);
        if (line.is_null()) break;
        record(line);
      }
    } catch (...) {
      fault = std::current_exception();
    }
  });
  try {
    std::vector<char> buffer;
    for (int active = mpi.size() - 1; active > 0;) {
      int flag = 0;
      MPI_Status status;
      PMPI_Iprobe(MPI_ANY_SOURCE, kTagResult, MPI_COMM_WORLD, &flag, &status);
      if (!flag) {  // (a blocking receive would spin a core that rank 0's own jobs need)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        continue;
      }
      int n = 0;
      PMPI_Get_count(&status, MPI_CHAR, &n);
      buffer.resize(static_cast<std::size_t>(n));
      PMPI_Recv(buffer.data(), n, MPI_CHAR, status.MPI_SOURCE, kTagResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (n > 0) record(nlohmann::json::parse(buffer.begin(), buffer.end()));
      long job = take();
      PMPI_Send(&job, 1, MPI_LONG, status.MPI_SOURCE, kTagJob, MPI_COMM_WORLD);
      if (job < 0) --active;
    }
  } catch (...) {
    local.join();
    throw;
  }
  local.join();
  if (fault) std::rethrow_exception(fault);
  progress.finish();
  return results.outcome(sweep, skipped, ran);
}

SweepOutcome work(const Sweep& sweep, const SweepOptions& options) {
  SweepOutcome out;
  out.total = sweep.job_count();
  std::string message;  // the last job's line
  for (;;) {
    PMPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, kTagResult, MPI_COMM_WORLD);
    long job = -1;
    PMPI_Recv(&job, 1, MPI_LONG, 0, kTagJob, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (job < 0) return out;
    const nlohmann::json line = run_sweep_job(sweep, job, options.stop);
    message = line_text(line);
    if (!line.is_null()) {
      ++out.ran;
      out.failed += line["status"] != "ok";
    }
  }
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

MpiSession::MpiSession() {
  int provided = 0;
  PMPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  PMPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { PMPI_Finalize(); }

void MpiSession::abort(int code) const {
  PMPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

SweepOutcome run_sweep_mpi(const Sweep& sweep, const SweepOptions& options, const MpiSession& mpi) {
  if (mpi.size() == 1) return run_sweep(sweep, options);
  if (options.threads > 1)
    throw InputError("--jobs " + std::to_string(options.threads) +
                     ": under MPI each rank runs one job at a time; start one rank per core instead");
  std::optional<SweepResults> results;
  open_results(sweep, options, mpi, results);
  return mpi.rank() == 0 ? dispatch(sweep, options, mpi, *results) : work(sweep, options);
}

}  // namespace graspsim
