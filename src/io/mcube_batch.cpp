// Validation runs over many MCube recordings: summary statistics and friction calibration.

#include "io/mcube_batch.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numbers>

#include <unistd.h>

#include "core/error.h"
#include "core/parallel.h"

namespace graspsim::mcube {
namespace {

constexpr double kMinWork = 0.01;  // J

double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Golden-section search of a unimodal cost on [lo, hi] to a bracket narrower than `tol`.
template <class F>
double golden_section(F&& f, double lo, double hi, double tol) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  while (b - a > tol) {
    if (fc < fd) b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    else a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
  }
  return fc < fd ? c : d;
}

}  // namespace

nlohmann::json summarize(const std::vector<nlohmann::json>& rows) {
  std::map<std::string, std::vector<const nlohmann::json*>> groups;
  nlohmann::json failures = nlohmann::json::array(), unusable = nlohmann::json::array();
  nlohmann::json penetrating = nlohmann::json::array();
  for (const auto& r : rows) {
    if (r["status"] != "ok") {
      failures.push_back({{"file", r["file"]}, {"error", r["error"]}});
      continue;
    }
    if (r.value("start_penetrates", false)) penetrating.push_back({{"file", r["file"]}, {"start_gap_mm", r["start_gap_mm"]}});
    if (!r.value("usable", true)) {
      unusable.push_back({{"file", r["file"]}, {"reason", r["unusable_reason"]}});
      continue;
    }
    groups["all"].push_back(&r);
    groups["shape=" + r["shape"].get<std::string>()].push_back(&r);
    groups["surface=" + r["surface"].get<std::string>()].push_back(&r);
    // Speeds apart: the fast pushes (150 mm/s) carry dynamic effects the slow ones do not.
    if (r.contains("speed_mm_s")) groups["speed=" + std::to_string(std::lround(r["speed_mm_s"].get<double>()))].push_back(&r);
  }
  const auto stats = [](const std::vector<const nlohmann::json*>& g) {
    std::vector<double> pos, yaw, rms_pos, rms_yaw, work;
    for (const auto* r : g) {
      pos.push_back((*r)["pos_err_mm"]), yaw.push_back((*r)["yaw_err_deg"]);
      rms_pos.push_back((*r)["rms_pos_mm"]), rms_yaw.push_back((*r)["rms_yaw_deg"]);
      if (r->contains("work_real_j") && (*r)["work_real_j"].get<double>() > kMinWork)
        work.push_back((*r)["work_sim_j"].get<double>() / (*r)["work_real_j"].get<double>());
    }
    nlohmann::json s{{"files", g.size()},
                     {"median_pos_err_mm", median(pos)},
                     {"median_yaw_err_deg", median(yaw)},
                     {"median_rms_pos_mm", median(rms_pos)},
                     {"median_rms_yaw_deg", median(rms_yaw)}};
    // The pusher's simulated work over the recorded one, where the force channel measures it.
    if (!work.empty()) s["median_work_ratio"] = median(work), s["work_files"] = work.size();
    return s;
  };
  // Medians are over the usable files; the unusable ones are listed with the reason.
  nlohmann::json s = {{"files", rows.size()},          {"ok", rows.size() - failures.size()},
                      {"failed", failures.size()},     {"failures", failures},
                      {"usable", groups["all"].size()}, {"unusable", unusable},
                      {"start_penetrations", penetrating}};
  for (const auto& [name, g] : groups) {
    if (name == "all") {
      nlohmann::json all = stats(g);
      all.erase("files");
      s.update(all);
    }
    else s["groups"][name] = stats(g);
  }
  return s;
}

double calibration_cost(const std::vector<PushFile>& files, const ValidateOptions& options, const FitSettings& fit) {
  namespace fs = std::filesystem;
  const std::size_t n = files.size();
  std::vector<double> cost(n);
  run_ordered(
      n, fit.jobs,
      [&](std::size_t i) {
        ValidateOptions mine = options;
        mine.record = false;
        mine.out_dir = fs::temp_directory_path() / ("graspsim-calibrate-" + std::to_string(::getpid()) + "-" + std::to_string(i));
        const PushResult r = validate_push(files[i], mine);
        fs::remove_all(mine.out_dir);
        cost[i] = std::pow(r.rms_pos * 1e3 / 3.0, 2) + std::pow(r.rms_yaw * 180 / std::numbers::pi / 3.0, 2);
        // The work term in units of 10 %, on pushes that do measurable work (> 10 mJ: ~0.2 N over 50 mm).
        if (r.work_real && *r.work_real > kMinWork && *r.work_sim > 0)
          cost[i] += fit.force_weight * std::pow(std::log(*r.work_sim / *r.work_real) / std::log(1.1), 2);
      },
      [](std::size_t) {});
  double sum = 0;
  for (double c : cost) sum += c;
  return std::sqrt(sum / static_cast<double>(n));
}

Calibration calibrate_surface(const std::vector<PushFile>& files, const ValidateOptions& options, const std::string& surface,
                              const SurfaceFriction& start, const FitSettings& fit,
                              const std::function<void(const std::string&)>& progress) {
  Calibration c;
  const auto cost = [&](const SurfaceFriction& mu) {
    ++c.evaluations;
    ValidateOptions o = options;
    o.surfaces[surface] = mu;
    return calibration_cost(files, o, fit);
  };
  const auto say = [&](const char* name, double value) {
    char line[64];
    std::snprintf(line, sizeof line, "%s %.4f", name, value);
    if (progress) progress(line);
  };
  SurfaceFriction mu = start;
  c.cost_before = cost(mu);
  // Friction coefficients of plastics and wood on each other lie well inside [0.02, 0.8].
  for (int round = 0; round < (fit.fit_pusher ? 2 : 1); ++round) {
    mu.mu_ground = golden_section([&](double x) { return cost({x, mu.mu_pusher}); }, 0.02, 0.8, fit.tolerance);
    say("mu_ground", mu.mu_ground);
    if (fit.fit_pusher) {
      mu.mu_pusher = golden_section([&](double x) { return cost({mu.mu_ground, x}); }, 0.02, 0.8, fit.tolerance);
      say("mu_pusher", mu.mu_pusher);
    }
  }
  c.cost_after = cost(mu);
  c.mu = mu;
  if (c.cost_after > c.cost_before) c.mu = start, c.cost_after = c.cost_before;
  return c;
}

std::vector<HoldoutFold> holdout_folds(const std::vector<PushFile>& files, const std::string& by) {
  if (by != "shape" && by != "surface") throw InputError("--holdout must be 'shape' or 'surface' (got '" + by + "')");
  std::map<std::string, HoldoutFold> folds;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string key = by + "=" + (by == "shape" ? files[i].shape : files[i].surface);
    folds[key].held_out = key;
    folds[key].test.push_back(i);
  }
  if (folds.size() < 2)
    throw InputError("--holdout " + by + " needs recordings of at least two " + by + "s (all " + std::to_string(files.size()) +
                     " files are " + (folds.empty() ? std::string("absent") : folds.begin()->first) + ")");
  std::vector<HoldoutFold> out;
  for (auto& [key, fold] : folds) {
    for (std::size_t i = 0; i < files.size(); ++i)
      if (std::find(fold.test.begin(), fold.test.end(), i) == fold.test.end()) fold.train.push_back(i);
    out.push_back(std::move(fold));
  }
  return out;
}

void fit_fold(HoldoutFold& fold, const std::vector<PushFile>& files, const ValidateOptions& options, const FitSettings& fit,
              const std::function<void(const std::string&)>& progress) {
  std::map<std::string, std::vector<PushFile>> train;
  for (std::size_t i : fold.train) train[files[i].surface].push_back(files[i]);
  // Only the test files' surfaces are fitted, unless one has no training file and needs the mean.
  bool need_mean = false;
  for (std::size_t i : fold.test) need_mean |= !train.count(files[i].surface);
  SurfaceTable fitted;
  for (const auto& [surface_key, group] : train) {
    const std::string& surface = surface_key;  // clang 14 cannot capture a structured binding
    const bool tested = std::any_of(fold.test.begin(), fold.test.end(), [&](std::size_t i) { return files[i].surface == surface; });
    if (!tested && !need_mean) continue;
    // Not from the table's value: it was fitted with the held-out files, and the search keeps
    // its start when it finds nothing better, which would leak them into the fold.
    const SurfaceFriction start = kNeutralFriction;
    if (progress) progress("fitting '" + surface + "' on " + std::to_string(group.size()) + " files");
    FitSettings both = fit;
    both.fit_pusher = true;
    fitted[surface] = calibrate_surface(group, options, surface, start, both, progress).mu;
    fold.train_files[surface] = static_cast<int>(group.size());
  }
  SurfaceFriction mean;
  for (const auto& [surface, mu] : fitted) {
    mean.mu_ground += mu.mu_ground / static_cast<double>(fitted.size());
    mean.mu_pusher += mu.mu_pusher / static_cast<double>(fitted.size());
  }
  for (std::size_t i : fold.test) {
    const std::string& surface = files[i].surface;
    if (fitted.count(surface)) {
      fold.friction[surface] = fitted[surface];
    } else {
      fold.friction[surface] = mean;
      std::string from;
      for (const auto& [name, mu] : fitted) from += (from.empty() ? "" : ", ") + name;
      fold.notes[surface] = "no training file on '" + surface + "': the mean of the fold's fitted surfaces (" + from + ")";
    }
  }
}

}  // namespace graspsim::mcube
