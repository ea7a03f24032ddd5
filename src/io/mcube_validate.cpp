// Simulates a recorded MCube push through its generated scene file and compares the object's
// motion with the recording (issue 5).

#include "io/mcube_validate.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <numbers>
#include <numeric>

#include "collision/extrusion.h"
#include "core/error.h"
#include "core/types.h"
#include "io/run.h"
#include "io/scene.h"

namespace graspsim::mcube {
namespace {

// Linear interpolation of samples y at increasing times t, clamped at the ends.
template <class T>
T interpolate(const std::vector<double>& t, const std::vector<T>& y, double time) {
  if (time <= t.front()) return y.front();
  if (time >= t.back()) return y.back();
  const std::size_t k = std::upper_bound(t.begin(), t.end(), time) - t.begin();
  const double w = (time - t[k - 1]) / (t[k] - t[k - 1]);
  return T((1 - w) * y[k - 1] + w * y[k]);
}

// A piecewise-linear planar path, clamped at its ends.
struct Path {
  std::vector<double> t;
  std::vector<Vec2> p;
  Vec2 at(double time) const { return interpolate(t, p, time); }
};

// The tip stream is sampled every ~4.03 ms (evenly spaced positions at constant speed) but stamped
// with +-0.7 ms of jitter; taken literally, the pusher's speed would jump by +-20 % every sample
// and kick the object ahead of it. Each stamp is replaced by the median of its neighbours' stamps
// shifted by their index offset times the stream's period (least-squares slope of t over the
// index): jitter is removed, and a dropped sample (a step of one period) moves the stamps only
// within the +-10-sample window.
std::vector<double> regular_stamps(const std::vector<double>& t) {
  const std::size_t n = t.size();
  if (n < 3) return t;
  double mean_i = (n - 1) / 2.0, mean_t = 0, sxy = 0, sxx = 0;
  for (double x : t) mean_t += x / n;
  for (std::size_t i = 0; i < n; ++i) sxy += (i - mean_i) * (t[i] - mean_t), sxx += (i - mean_i) * (i - mean_i);
  const double period = sxy / sxx;
  constexpr std::ptrdiff_t kHalfWindow = 10;
  std::vector<double> out(n), window;
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    window.clear();
    for (std::ptrdiff_t j = std::max<std::ptrdiff_t>(0, i - kHalfWindow); j <= std::min<std::ptrdiff_t>(n - 1, i + kHalfWindow); ++j)
      window.push_back(t[j] - (j - i) * period);
    std::nth_element(window.begin(), window.begin() + window.size() / 2, window.end());
    out[i] = window[window.size() / 2];
  }
  return out;
}

// Recorded tip samples in time order (stamps regularised); duplicate stamps keep their first sample.
Path recorded_tip_path(const PushFile& f) {
  Trajectory tip = tip_motion(f);
  tip.t = regular_stamps(tip.t);
  std::vector<std::size_t> order(tip.t.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return tip.t[a] < tip.t[b]; });
  Path path;
  for (std::size_t i : order) {
    if (!path.t.empty() && tip.t[i] <= path.t.back()) continue;
    path.t.push_back(tip.t[i]);
    path.p.emplace_back(tip.x[i], tip.y[i]);
  }
  return path;
}

// The named straight push: 50 mm at the file's speed from the named start.
Path nominal_tip_path(const PushFile& f, const PushGeometry& g) {
  const double travel = 0.050, v = f.speed_mm_s * 1e-3;
  return {{0.0, travel / v}, {g.tip_start, g.tip_start + travel * g.direction}};
}

double yaw_of(const State& s, int qadr) {
  const double w = s.q[qadr + 3], x = s.q[qadr + 4], y = s.q[qadr + 5], z = s.q[qadr + 6];
  return std::atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z));
}

// What the simulation recorded every step.
struct SimSeries {
  std::vector<double> t, x, y, yaw, fx, fy;
};

SimSeries simulate(const Scene& scene, const std::filesystem::path& out_dir, bool record, double* wall) {
  const Model& model = *scene.model;
  const int object = model.find_body("object"), pusher = model.find_body("pusher");
  const int qadr = model.joints[model.bodies[object].joint].qadr;
  SimSeries s{{0.0}, {0.0}, {0.0}, {0.0}, {0.0}, {0.0}};
  RunOptions run;
  run.out_dir = out_dir;
  run.record = record;
  run.on_step = [&](const Model&, const State& st, const Workspace&, const StepResult& r) {
    double yaw = yaw_of(st, qadr);
    yaw += 2 * std::numbers::pi * std::round((s.yaw.back() - yaw) / (2 * std::numbers::pi));  // unwrap
    Vec3 f = Vec3::Zero();  // the force of the object on the pusher: what its sensor measures
    for (const ContactResult& c : r.contacts) {
      const Vec3 on_b = c.fn * c.normal + c.ft;
      if (c.body_b == pusher) f += on_b;
      if (c.body_a == pusher) f -= on_b;
    }
    s.t.push_back(st.t);
    s.x.push_back(st.q[qadr]);
    s.y.push_back(st.q[qadr + 1]);
    s.yaw.push_back(yaw);
    s.fx.push_back(f.x());
    s.fy.push_back(f.y());
  };
  const RunSummary summary = run_scene(scene, run);
  *wall = summary.wall_time_s;
  return s;
}

double rad2deg(double r) { return r * 180 / std::numbers::pi; }

// Motion is compared over the whole run; force only while the pusher moves (after it stops the
// recorded channel keeps offsets of a few newtons that are not contact forces).
}  // namespace

double pusher_work(const std::vector<Vec2>& path, const std::vector<double>& t, const std::vector<double>& fx,
                   const std::vector<double>& fy, double until) {
  double w = 0;
  for (std::size_t k = 0; k + 1 < path.size() && (k + 1) * kPathPeriod <= until; ++k) {
    const double mid = (k + 0.5) * kPathPeriod;
    w -= Vec2(interpolate(t, fx, mid), interpolate(t, fy, mid)).dot(path[k + 1] - path[k]);
  }
  return w;
}

namespace {

void compare(const SimSeries& sim, const Trajectory& real, const ForceSeries& force, const std::vector<Vec2>& path,
             double duration, double push_end, PushResult& r) {
  double se_pos = 0, se_yaw = 0;
  int n = 0;
  for (std::size_t i = 0; i < real.t.size(); ++i) {
    if (real.t[i] < 0 || real.t[i] > duration) continue;
    const double x = interpolate(sim.t, sim.x, real.t[i]), y = interpolate(sim.t, sim.y, real.t[i]);
    const double yaw = interpolate(sim.t, sim.yaw, real.t[i]);
    se_pos += std::pow(x - real.x[i], 2) + std::pow(y - real.y[i], 2);
    se_yaw += std::pow(yaw - real.yaw[i], 2);
    r.trace.t.push_back(real.t[i]);
    r.trace.sim_x.push_back(x), r.trace.sim_y.push_back(y), r.trace.sim_yaw.push_back(yaw);
    r.trace.real_x.push_back(real.x[i]), r.trace.real_y.push_back(real.y[i]), r.trace.real_yaw.push_back(real.yaw[i]);
    ++n;
  }
  if (n == 0) throw InputError("MCube file '" + r.file + "': no object samples during the push");
  r.rms_pos = std::sqrt(se_pos / n);
  r.rms_yaw = std::sqrt(se_yaw / n);
  r.sim_dx = sim.x.back(), r.sim_dy = sim.y.back(), r.sim_dyaw = sim.yaw.back();
  r.real_dx = interpolate(real.t, real.x, duration), r.real_dy = interpolate(real.t, real.y, duration);
  r.real_dyaw = interpolate(real.t, real.yaw, duration);
  r.pos_err = std::hypot(r.sim_dx - r.real_dx, r.sim_dy - r.real_dy);
  r.yaw_err = std::abs(r.sim_dyaw - r.real_dyaw);
  if (!force.usable) {
    r.force_note = force.why_not;
    return;
  }
  double se_force = 0;
  int m = 0;
  for (std::size_t i = 0; i < force.t.size(); ++i) {
    if (force.t[i] < 0 || force.t[i] > std::min(duration, push_end)) continue;
    const double fx = interpolate(sim.t, sim.fx, force.t[i]), fy = interpolate(sim.t, sim.fy, force.t[i]);
    se_force += std::pow(fx - force.fx[i], 2) + std::pow(fy - force.fy[i], 2);
    r.trace.force_t.push_back(force.t[i]);
    r.trace.sim_fx.push_back(fx), r.trace.sim_fy.push_back(fy);
    r.trace.real_fx.push_back(force.fx[i]), r.trace.real_fy.push_back(force.fy[i]);
    ++m;
  }
  if (m > 0) {
    r.force_rms = std::sqrt(se_force / m);
    const double until = std::min(duration, push_end);
    r.work_real = pusher_work(path, force.t, force.fx, force.fy, until);
    r.work_sim = pusher_work(path, sim.t, sim.fx, sim.fy, until);
  } else {
    r.force_note = "no force samples during the push";
  }
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out.flush()) throw InputError("cannot write '" + path.string() + "'");
}

}  // namespace

PushResult validate_push(const PushFile& f, const ValidateOptions& options) {
  PushResult r;
  r.file = f.path, r.shape = f.shape, r.surface = f.surface, r.speed_mm_s = f.speed_mm_s;
  auto surface = options.surfaces.find(f.surface);
  if (surface == options.surfaces.end()) {
    // A surface nobody calibrated still runs, on the table's `default` entry, and says so.
    surface = options.surfaces.find("default");
    if (surface == options.surfaces.end())
      throw InputError("MCube file '" + f.path + "': no friction for surface '" + f.surface +
                       "' and no 'default' in the surface table (add it with `graspsim calibrate mcube --surface " +
                       f.surface + " FILES...`)");
    r.friction_note = "surface '" + f.surface + "' is not calibrated: the table's default friction was used";
  }
  const std::vector<Vec2> outline = object_outline(object_info(f.shape), options.objects_dir.string());
  const Trajectory real = object_motion(f);
  const Path tip = options.nominal_path ? nominal_tip_path(f, push_geometry(f, outline)) : recorded_tip_path(f);
  // Until the end of the recording (the object has come to rest), at most 1 s after the push.
  const PushWindow window = push_window(f);
  if (window.started_before_recording) {
    r.usable = false;
    r.unusable_reason = "the recording began mid-push (tip travel short of 50 mm)";
  }
  r.duration = std::min({real.t.back(), tip.t.back(), window.end - window.start + 1.0});
  if (options.nominal_path) r.duration = std::min(real.t.back(), tip.t.back() + 0.5);
  if (r.duration <= 0) throw InputError("MCube file '" + f.path + "': the recording ends before the push starts");

  std::vector<Vec2> path;
  for (double t = 0; t <= r.duration + kPathPeriod; t += kPathPeriod) path.push_back(tip.at(t));
  // A tip that starts inside the object (tracking and placement error, up to ~2 mm) is moved out
  // along the shortest way, with its whole path, so the push does not start with an impact.
  Vec2 away = Vec2::UnitX();
  const double gap = outline_signed_distance(outline, path.front(), &away) - kPusherRadius;
  r.start_gap = gap;
  if (gap < 0) {
    r.tip_shift = -gap;
    for (Vec2& p : path) p -= gap * away;
  }

  const PushScene text = push_scene(f, outline, surface->second, path, r.duration);
  std::filesystem::create_directories(options.out_dir);
  write_text(options.out_dir / "scene.yaml", text.yaml);
  if (!text.object_obj.empty()) write_text(options.out_dir / "object.obj", text.object_obj);
  const Scene scene = load_scene((options.out_dir / "scene.yaml").string(), options.sets);
  const SimSeries sim = simulate(scene, options.out_dir, options.record, &r.wall_time_s);
  for (double v : {sim.x.back(), sim.y.back(), sim.yaw.back()})
    if (!std::isfinite(v)) throw std::runtime_error("MCube file '" + f.path + "': the simulation diverged (NaN)");
  compare(sim, real, pusher_force(f), path, r.duration, window.end - window.start, r);
  return r;
}

nlohmann::json to_json(const PushResult& r) {
  const auto mm = [](double m) { return m * 1e3; };
  nlohmann::json j = {{"file", r.file},
                      {"shape", r.shape},
                      {"surface", r.surface},
                      {"speed_mm_s", r.speed_mm_s},
                      {"status", "ok"},
                      {"sim_dx_mm", mm(r.sim_dx)},
                      {"sim_dy_mm", mm(r.sim_dy)},
                      {"sim_dyaw_deg", rad2deg(r.sim_dyaw)},
                      {"real_dx_mm", mm(r.real_dx)},
                      {"real_dy_mm", mm(r.real_dy)},
                      {"real_dyaw_deg", rad2deg(r.real_dyaw)},
                      {"pos_err_mm", mm(r.pos_err)},
                      {"yaw_err_deg", rad2deg(r.yaw_err)},
                      {"rms_pos_mm", mm(r.rms_pos)},
                      {"rms_yaw_deg", rad2deg(r.rms_yaw)},
                      {"force_rms_n", nullptr},
                      {"tip_shift_mm", mm(r.tip_shift)},
                      {"start_gap_mm", mm(r.start_gap)},
                      {"start_penetrates", r.start_gap < -kStartPenetrationTolerance},
                      {"usable", r.usable},
                      {"duration_s", r.duration},
                      {"wall_time_s", r.wall_time_s}};
  if (!r.usable) j["unusable_reason"] = r.unusable_reason;
  if (!r.friction_note.empty()) j["friction_note"] = r.friction_note;
  if (r.force_rms) j["force_rms_n"] = *r.force_rms;
  if (r.work_real) j["work_real_j"] = *r.work_real, j["work_sim_j"] = *r.work_sim;
  else j["force_note"] = r.force_note;
  return j;
}

}  // namespace graspsim::mcube
