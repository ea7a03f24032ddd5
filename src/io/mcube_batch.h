#pragma once
// Many MCube recordings at once: the summary of a validation run and the friction calibration,
// shared by the CLI and (later) the Python bindings.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/mcube_validate.h"

namespace graspsim::mcube {

// The summary object of `validate --json`: counts, failures, unusable files with the reason, and
// medians of the final and RMS errors (and of the pusher's simulated over recorded work, where the
// force channel measures it) over the usable files, overall and per shape, surface and pusher
// speed (groups "shape=hex", "surface=abs", "speed=150"); the files whose recorded tip starts
// inside the object (start_penetrations).
// `rows` are to_json() results or {"file", "status": "error", "error"} objects.
nlohmann::json summarize(const std::vector<nlohmann::json>& rows);

// How a surface's friction is fitted.
struct FitSettings {
  bool fit_pusher = false;   // also fit mu_pusher (alternating with mu_ground, twice)
  double tolerance = 0.005;  // width of the final friction bracket
  // Weight of the force term against the trajectory terms: the pusher's simulated work over the
  // recorded one (PushResult::work_sim / work_real), as (ln ratio / ln 1.1)², so a 10 % error in
  // work counts as much as a 3 mm RMS error in position, on the files whose force channel is usable
  // and records more than 10 mJ. The motion alone hardly constrains mu_ground (a quasi-static push
  // does not depend on its magnitude; docs/validation.md), the pusher's work scales with it.
  // 0.2 ≈ (ln 1.1 / ln 1.25)²: the recorded work scatters by ~25 % from file to file (the
  // channel's drifting offsets), so a file's work counts in units of its own uncertainty.
  double force_weight = 0.2;
  unsigned jobs = 1;
};

// The calibration objective: the RMS over files of the trajectory errors, position and yaw each
// relative to issue 5's accuracy targets (3 mm, 3 deg), so neither unit dominates, plus
// force_weight times the work term above.
double calibration_cost(const std::vector<PushFile>& files, const ValidateOptions& options, const FitSettings& fit);

// Where a fit without a prior starts (a surface not in the table, a leave-one-out fold).
inline constexpr SurfaceFriction kNeutralFriction{0.2, 0.25};

struct Calibration {
  SurfaceFriction mu;
  double cost_before = 0, cost_after = 0;
  int evaluations = 0;
};

// Fits `surface`'s ground friction (and with fit_pusher the pusher's, alternating twice) from
// `start` by golden-section search on [0.02, 0.8] to a bracket of `tolerance`. Keeps `start`
// when the search ends no better (the cost is flat in mu and a little noisy). `progress` gets a
// line of text after each fitted value.
Calibration calibrate_surface(const std::vector<PushFile>& files, const ValidateOptions& options, const std::string& surface,
                              const SurfaceFriction& start, const FitSettings& fit,
                              const std::function<void(const std::string&)>& progress = {});

// Leave-one-out generalization: the files are grouped by `by` ("shape" or "surface"); in each
// fold one group is held out, each surface's friction is fitted (calibrate_surface, with the
// pusher's) on the files outside the group only, and the group's files are then simulated with it.
// Only the held-out files' surfaces are fitted. A held-out file on a surface with no training
// file (always so when holding out a surface; for plywood when holding out rect1, its only
// shape) gets the mean of the fold's fitted surfaces.
struct HoldoutFold {
  std::string held_out;                     // "shape=hex", "surface=plywood"
  std::vector<std::size_t> train, test;     // indices into the files
  SurfaceTable friction;                    // per surface of a test file, as used on the test files
  std::map<std::string, std::string> notes; // surface -> how its friction was obtained, when not fitted on it
  std::map<std::string, int> train_files;   // surface -> training files it was fitted on
};

// The folds, one per distinct value of `by` among the files (sorted); InputError for another `by`
// or fewer than two groups.
std::vector<HoldoutFold> holdout_folds(const std::vector<PushFile>& files, const std::string& by);

// Fits the fold's friction (mu_pusher too, whatever fit.fit_pusher says) from a neutral start
// (mu_ground 0.2, mu_pusher 0.25), not from options.surfaces: the table was fitted with the
// held-out files. `progress` as above.
void fit_fold(HoldoutFold& fold, const std::vector<PushFile>& files, const ValidateOptions& options, const FitSettings& fit,
              const std::function<void(const std::string&)>& progress = {});

}  // namespace graspsim::mcube
