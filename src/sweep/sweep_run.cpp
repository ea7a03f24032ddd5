// Running sweep jobs, the results file, progress, and the thread pool.

#include "sweep/sweep_run.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>
#include <vector>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/json_text.h"
#include "io/run.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The field at a dotted path (object keys, or indices into arrays); null when absent.
nlohmann::json field(const nlohmann::json& root, const std::string& path) {
  const nlohmann::json* node = &root;
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (node->is_object() && node->contains(key)) {
      node = &(*node)[key];
    } else if (node->is_array() && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos &&
               key.size() < 9 && std::stoul(key) < node->size()) {
      node = &(*node)[std::stoul(key)];
    } else {
      return nullptr;
    }
    if (dot == std::string::npos) return *node;
    start = dot + 1;
  }
}

}  // namespace

bool is_timing_field(const std::string& name) {
  return name.rfind("wall", 0) == 0 || name.rfind("solve_ms", 0) == 0 || name == "steps_per_second" ||
         name == "overlap_us_mean" || name == "overlap_seconds";
}

nlohmann::json run_sweep_job(const Sweep& sweep, long index, const std::function<bool()>& stop) {
  const double start = now_s();
  const SweepJob job = sweep_job(sweep, index);
  nlohmann::json line = {{"job", index}, {"formulation", job.formulation}, {"sample", job.sample},
                         {"parameters", job.parameters}};
  nlohmann::json wall = nlohmann::json::object();
  try {
    const Scene scene = load_scene_labelled(sweep.scene, job.overrides);
    RunOptions options;
    options.record = false;
    options.stop_requested = stop;
    const RunSummary run = run_scene(scene, options);
    if (run.interrupted) return nullptr;
    nlohmann::json metrics = nlohmann::json::object();
    if (sweep.metrics.empty()) {
      for (const auto& [k, v] : run.json.items())
        if (!is_timing_field(k)) metrics[k] = v;
    } else {
      for (const std::string& m : sweep.metrics) metrics[m] = field(run.json, m);
    }
    for (const auto& [k, v] : run.json.items())
      if (is_timing_field(k)) wall[k] = v;
    line["status"] = "ok";
    line["metrics"] = metrics;
  } catch (const InputError& e) {
    line["status"] = "failed";
    line["error"] = e.what();
  } catch (const std::exception& e) {
    // A diverging simulation or a solver failure is the job's result, not the sweep's end.
    line["status"] = "failed";
    line["error"] = std::string("internal error: ") + e.what();
  }
  wall["time_s"] = now_s() - start;
  line["wall"] = wall;
  return line;
}

SweepResults::SweepResults(const Sweep& sweep, const fs::path& dir, bool resume) : dir_(dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the output directory: " + ec.message());
  const fs::path id_path = dir / "sweep.json", results = path();
  const nlohmann::json description = sweep_description(sweep);
  const bool have_results = fs::exists(results, ec) && fs::file_size(results, ec) > 0;
  if (have_results && !resume)
    throw InputError(results.string() + " already holds results: pass --resume to finish that sweep, or choose another --out");
  if (have_results) {
    std::ifstream in(id_path);
    nlohmann::json old = nlohmann::json::parse(in, nullptr, false);
    if (old.is_discarded() || !old.contains("identity") || old["identity"] != description["identity"])
      throw InputError(dir.string() + ": its results are from a different sweep (" + id_path.string() +
                       " does not match " + sweep.path + " and its scene); --resume only finishes the same sweep");
    // Keep every complete line; a last line without its newline was cut by a kill.
    const std::string text = read_whole_file(results, "results file");
    const std::size_t keep = text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1;
    if (keep < text.size()) fs::resize_file(results, keep);
    std::size_t pos = 0;
    int lineno = 0;
    while (pos < keep) {
      const std::size_t end = text.find('\n', pos);
      ++lineno;
      const nlohmann::json j = nlohmann::json::parse(text.substr(pos, end - pos), nullptr, false);
      pos = end + 1;
      if (j.is_discarded() || !j.contains("job") || !j["job"].is_number_integer())
        throw InputError(results.string() + ":" + std::to_string(lineno) + ": not a job line; --resume cannot trust this file");
      count(j);
    }
  } else {
    write_atomically(id_path, json_text(description, 2) + "\n");
  }
  file_ = std::fopen(results.c_str(), "ab");
  if (!file_) throw InputError(results.string() + ": cannot open for writing");
}

SweepResults::~SweepResults() {
  if (file_) std::fclose(file_);
}

void SweepResults::write(const nlohmann::json& line) {
  const std::string text = json_text(line) + "\n";
  std::lock_guard lock(mutex_);
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0)
    throw std::runtime_error(path().string() + ": write failed");
  count(line);
}

void SweepResults::count(const nlohmann::json& line) {
  if (!done_.insert(line["job"].get<long>()).second) return;
  if (line.value("status", "") != "ok") {
    ++failed_;
    return;
  }
  if (const auto m = line.find("metrics"); m != line.end() && m->is_object())
    for (const auto& [name, value] : m->items())
      if (!value.is_null()) found_metrics_.insert(name);
}

std::vector<std::string> SweepResults::missing_metrics(const Sweep& sweep) const {
  std::vector<std::string> out;
  if (done_.size() == static_cast<std::size_t>(failed_)) return out;  // (no job ran through: nothing to say)
  for (const auto& m : sweep.metrics)
    if (!found_metrics_.count(m)) out.push_back(m);
  return out;
}

std::vector<long> SweepResults::pending(const Sweep& sweep) const {
  std::vector<long> out;
  for (long j = 0; j < sweep.job_count(); ++j)
    if (!done_.count(j)) out.push_back(j);
  return out;
}

SweepOutcome SweepResults::outcome(const Sweep& sweep, long skipped, long ran) const {
  SweepOutcome o;
  o.total = sweep.job_count();
  o.skipped = skipped;
  o.ran = ran;
  o.failed = failed_;
  o.interrupted = static_cast<long>(done_.size()) < o.total;
  o.missing_metrics = missing_metrics(sweep);
  return o;
}

SweepProgress::SweepProgress(long total, long already_done, bool quiet)
    : total_(total), done_(already_done), start_done_(already_done), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0),
      start_(now_s()) {}

void SweepProgress::job_done(bool failed) {
  std::lock_guard lock(mutex_);
  ++done_;
  failed_ += failed;
  print(false);
}

void SweepProgress::finish() {
  std::lock_guard lock(mutex_);
  print(true);
}

void SweepProgress::print(bool final) {
  if (quiet_) return;
  const double t = now_s();
  if (!final && t - last_print_ < (tty_ ? 0.2 : 10.0)) return;
  last_print_ = t;
  const double elapsed = t - start_, rate = elapsed > 0 ? static_cast<double>(done_ - start_done_) / elapsed : 0.0;
  char left[64] = "";
  if (rate > 0 && done_ < total_) std::snprintf(left, sizeof left, ", ~%.0f s left", static_cast<double>(total_ - done_) / rate);
  std::fprintf(stderr, "%ssweep: %ld/%ld jobs done, %ld failed, %.3g jobs/s%s%s", tty_ ? "\r" : "", done_, total_, failed_,
               rate, left, tty_ && !final ? "   " : "\n");
  std::fflush(stderr);
}

SweepOutcome run_sweep(const Sweep& sweep, const SweepOptions& options) {
  SweepResults results(sweep, options.out, options.resume);
  const std::vector<long> pending = results.pending(sweep);
  const long skipped = sweep.job_count() - static_cast<long>(pending.size());
  SweepProgress progress(sweep.job_count(), skipped, options.quiet);
  const int threads = std::max(1, std::min<int>(options.threads > 0 ? options.threads : static_cast<int>(std::thread::hardware_concurrency()),
                                                static_cast<int>(std::max<std::size_t>(pending.size(), 1))));
  std::atomic<std::size_t> next{0};
  std::atomic<long> ran{0};
  std::atomic<bool> stopped{false};
  std::exception_ptr fault;
  std::mutex fault_mutex;
  const auto stop = [&] { return stopped.load() || (options.stop && options.stop()); };
  const auto worker = [&] {
    try {
      for (std::size_t i; !stop() && (i = next.fetch_add(1)) < pending.size();) {
        const nlohmann::json line = run_sweep_job(sweep, pending[i], stop);
        if (line.is_null()) break;  // stopped mid-job: not a result
        results.write(line);
        ++ran;
        progress.job_done(line["status"] != "ok");
      }
    } catch (...) {  // the results file failed: stop everyone
      std::lock_guard lock(fault_mutex);
      if (!fault) fault = std::current_exception();
      stopped = true;
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (fault) std::rethrow_exception(fault);
  progress.finish();
  return results.outcome(sweep, skipped, ran);
}

}  // namespace graspsim
