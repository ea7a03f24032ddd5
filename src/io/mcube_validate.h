#pragma once
// Simulating a recorded MCube push and comparing it with the recording (issue 5): the push set-up
// becomes a scene file (written next to the results, so `graspsim run` reproduces it), the pusher
// follows the recorded tip path (or the nominal straight line), and the object's simulated motion
// is compared with the tracked one in the initial object frame.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/mcube.h"

namespace graspsim::mcube {

// Friction per surface (scenes/validation/mcube_surfaces.yaml, written by `calibrate`). A surface
// missing from the table uses its `default` entry, and the result says so.
struct SurfaceFriction {
  double mu_ground = 0.0, mu_pusher = 0.0;
};
using SurfaceTable = std::map<std::string, SurfaceFriction>;
SurfaceTable read_surface_table(const std::filesystem::path& path);
// Replaces (or adds) one surface's entry, keeping the others and the file's header comment.
void write_surface_entry(const std::filesystem::path& path, const std::string& surface, const SurfaceFriction& value,
                         const std::string& provenance);

struct ValidateOptions {
  std::filesystem::path objects_dir;  // shared/data/mcube-push/objects
  SurfaceTable surfaces;
  bool nominal_path = false;          // drive the pusher along the named straight line
  std::vector<std::string> sets;      // scene overrides (parameters.NAME=v, key.path=v)
  std::filesystem::path out_dir;      // per-file folder: scene.yaml, object.obj, recordings
  bool record = true;                 // write bodies.csv etc. (calibration runs do not)
};

// Where the object and pusher were, in the initial object frame (m, rad), at common times (s).
struct PushTrace {
  std::vector<double> t, sim_x, sim_y, sim_yaw, real_x, real_y, real_yaw;
  // The pusher force (N) at the force sensor's samples during the push, when the channel is usable.
  std::vector<double> force_t, sim_fx, sim_fy, real_fx, real_fy;
};

struct PushResult {
  std::string file, shape, surface;
  double speed_mm_s = 0;  // the pusher's named speed v
  double sim_dx = 0, sim_dy = 0, sim_dyaw = 0;     // final displacement, m and rad
  double real_dx = 0, real_dy = 0, real_dyaw = 0;
  double pos_err = 0, yaw_err = 0;                 // final |difference|, m and rad
  double rms_pos = 0, rms_yaw = 0;                 // over the recorded object samples, m and rad
  std::optional<double> force_rms;                 // N; empty when the force channel is unusable
  std::string force_note;                          // why there is no force comparison
  // The pusher's work on the object while it moves (J), from the recorded force and from the
  // simulated one along the same path; empty when the force channel is unusable. Unlike the force
  // RMS it does not grow with the simulated contact force's step-to-step ripple or the channel's
  // noise, and it scales with mu_ground (a quasi-static push's dissipation is mu m g times the mean
  // slip of the footprint): the calibration's force term.
  std::optional<double> work_real, work_sim;
  double tip_shift = 0;                            // m the recorded path was moved out of the object
  // m between the pusher's surface and the object's true outline at the recorded start (negative:
  // the recorded tip starts inside the object; the path is then moved out by tip_shift).
  double start_gap = 0;
  // False when the recording cannot be compared fairly (the streams began mid-push, so the object
  // had already moved before its recorded rest pose); left out of the summary's medians.
  bool usable = true;
  std::string unusable_reason;
  std::string friction_note;  // set when the surface fell back to the table's default friction
  double duration = 0, wall_time_s = 0;
  PushTrace trace;
};

// A recorded start deeper inside the object than this is reported (`start_penetrates`): more than
// the tracking's own error (the tip starts within 1.8 mm of its named point on 49 of the 50 ABS
// files).
inline constexpr double kStartPenetrationTolerance = 0.001;

// The work -∫ F · dp done on the object by a pusher moving along `path` (sampled every
// kPathPeriod from t = 0) until `until` (s), F being the force on the pusher (what its sensor
// measures: the object's reaction) given at times t, interpolated linearly.
double pusher_work(const std::vector<Vec2>& path, const std::vector<double>& t, const std::vector<double>& fx,
                   const std::vector<double>& fy, double until);

// Simulates one recording. InputError naming the file on bad input.
PushResult validate_push(const PushFile& f, const ValidateOptions& options);

// One line of `validate --json`: the fields issue 5 names (mm, deg) and the extras.
nlohmann::json to_json(const PushResult& r);

// The scene for a push: its YAML text and, for shapes that are not boxes, the prism's OBJ text
// (the outline extruded to the object's thickness), to be written as `object.obj` beside it.
// `path` is the pusher centre (m, initial object frame) sampled every kPathPeriod from t = 0.
inline constexpr double kPathPeriod = 0.001;
struct PushScene {
  std::string yaml, object_obj;
};
PushScene push_scene(const PushFile& f, const std::vector<Vec2>& outline, const SurfaceFriction& friction,
                     const std::vector<Vec2>& path, double duration);

}  // namespace graspsim::mcube
