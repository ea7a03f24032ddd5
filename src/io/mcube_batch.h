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
// medians of the final and RMS errors over the usable files, overall and per shape and surface.
// `rows` are to_json() results or {"file", "status": "error", "error"} objects.
nlohmann::json summarize(const std::vector<nlohmann::json>& rows);

// The calibration objective: the RMS over files of the trajectory errors, position and yaw each
// relative to issue 5's accuracy targets (3 mm, 3 deg), so neither unit dominates.
double calibration_cost(const std::vector<PushFile>& files, const ValidateOptions& options, unsigned jobs);

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
                              const SurfaceFriction& start, bool fit_pusher, double tolerance, unsigned jobs,
                              const std::function<void(const std::string&)>& progress = {});

// Leave-one-out generalization: the files are grouped by `by` ("shape" or "surface"); in each
// fold one group is held out, each surface's friction is fitted (calibrate_surface, with the
// pusher's) on the files outside the group only, and the group's files are then simulated with it.
// Only the held-out files' surfaces are fitted. A held-out file on a surface with no training file (always so when holding out a surface; for
// plywood when holding out rect1, its only shape) gets the mean of the fold's fitted surfaces.
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

// Fits the fold's friction from `options.surfaces` (the starting values); `progress` as above.
void fit_fold(HoldoutFold& fold, const std::vector<PushFile>& files, const ValidateOptions& options, double tolerance,
              unsigned jobs, const std::function<void(const std::string&)>& progress = {});

}  // namespace graspsim::mcube
