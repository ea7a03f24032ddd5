// The recorded streams re-expressed for comparison with a simulation: push start and end, motion in
// the initial object frame, and the pusher force with its baseline removed (dataset README).

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>
#include <tuple>

#include "core/error.h"
#include "io/mcube.h"

namespace graspsim::mcube {
namespace {

constexpr double kPi = std::numbers::pi;

// The tip counts as moving once it is this far from its rest position. The tip pose comes from the
// robot's joint encoders (noise ~1e-6 m in the files), so 0.2 mm is far above noise and far below
// the 50 mm travel.
constexpr double kMoveThreshold = 2e-4;

// README: every push moves the tip 50 mm (measured 49.4-50.1 mm where the whole push is recorded).
constexpr double kNominalTravel = 0.050;
constexpr double kShortestFullTravel = 0.0493;

// A yaw step above this within one sample (>= 4 ms) would need > 190 rad/s: a tracking jump.
constexpr double kJumpThreshold = kPi / 4;

// The force channel is frozen when most consecutive rows repeat exactly: a live 250 Hz strain-gauge
// reading in float64 practically never repeats, the frozen files repeat in > 95 % of the rows.
constexpr double kMaxRepeatFraction = 0.5;
constexpr std::size_t kMinDistinctRows = 10;

double distance(const Stream& s, std::size_t i, std::size_t j) { return std::hypot(s.a[i] - s.a[j], s.b[i] - s.b[j]); }

// Unwraps yaw: steps near a multiple of 2 pi are the atan2 range; other steps larger than
// kJumpThreshold are tracking jumps by quarter turns (README), removed and counted.
std::vector<double> unwrap_yaw(const std::vector<double>& raw, int* jumps) {
  std::vector<double> out(raw.size());
  double offset = 0;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (i > 0) {
      const double step = raw[i] + offset - out[i - 1];
      if (std::abs(step) > kJumpThreshold) {
        const double quarters = std::round(step / (kPi / 2));
        offset -= quarters * (kPi / 2);
        if (std::fmod(std::abs(quarters), 4.0) != 0) ++*jumps;
      }
    }
    out[i] = raw[i] + offset;
  }
  return out;
}

// Rest pose of the object before the push: the mean of the samples before `t_start`, or the first
// sample when the stream starts later.
struct Rest {
  double x, y, yaw;
};
Rest rest_pose(const Stream& s, const std::vector<double>& yaw, double t_start) {
  Rest r{0, 0, 0};
  std::size_t n = 0;
  for (; n < s.size() && s.t[n] < t_start; ++n) {
    r.x += s.a[n];
    r.y += s.b[n];
    r.yaw += yaw[n];
  }
  if (n == 0) return {s.a[0], s.b[0], yaw[0]};
  return {r.x / n, r.y / n, r.yaw / n};
}

// Expresses a world pose stream relative to the rest frame, times from the push start.
Trajectory in_frame(const Stream& s, const std::vector<double>& yaw, const Rest& ref, double t_start) {
  Trajectory tr;
  const double c = std::cos(ref.yaw), sn = std::sin(ref.yaw);
  for (std::size_t i = 0; i < s.size(); ++i) {
    const double dx = s.a[i] - ref.x, dy = s.b[i] - ref.y;
    tr.t.push_back(s.t[i] - t_start);
    tr.x.push_back(c * dx + sn * dy);
    tr.y.push_back(-sn * dx + c * dy);
    tr.yaw.push_back(yaw[i] - ref.yaw);
  }
  return tr;
}

struct ObjectFrame {
  Rest rest;
  Trajectory motion;
};
ObjectFrame object_frame(const PushFile& f) {
  const double t0 = push_window(f).start;
  int jumps = 0;
  const std::vector<double> yaw = unwrap_yaw(f.object_pose.c, &jumps);
  ObjectFrame out{rest_pose(f.object_pose, yaw, t0), {}};
  out.motion = in_frame(f.object_pose, yaw, out.rest, t0);
  out.motion.yaw_jumps_fixed = jumps;
  return out;
}

// Why the force channel cannot be used, or "" when it can.
std::string frozen_reason(const Stream& w) {
  std::set<std::tuple<double, double, double>> distinct;
  std::size_t repeats = 0;
  for (std::size_t i = 0; i < w.size(); ++i) {
    distinct.emplace(w.a[i], w.b[i], w.c[i]);
    if (i > 0 && w.a[i] == w.a[i - 1] && w.b[i] == w.b[i - 1] && w.c[i] == w.c[i - 1]) ++repeats;
  }
  const double repeat_fraction = static_cast<double>(repeats) / static_cast<double>(w.size() - 1);
  if (distinct.size() < kMinDistinctRows || repeat_fraction > kMaxRepeatFraction)
    return "ft_wrench is frozen: " + std::to_string(distinct.size()) + " distinct rows of " + std::to_string(w.size()) + ", " +
           std::to_string(static_cast<int>(std::round(100 * repeat_fraction))) + " % repeat the previous row";
  return "";
}

}  // namespace

PushWindow push_window(const PushFile& f) {
  const Stream& tip = f.tip_pose;
  const std::size_t last = tip.size() - 1;
  std::size_t first_moving = 0;
  while (first_moving <= last && distance(tip, first_moving, 0) <= kMoveThreshold) ++first_moving;
  if (first_moving > last) throw InputError("MCube file '" + f.path + "': the pusher tip never moves");
  std::size_t last_moving = last;
  while (distance(tip, last_moving, last) <= kMoveThreshold) --last_moving;
  // Back- and forward-extrapolate at the nominal speed to the instants the tip left / reached rest.
  const double v = f.speed_mm_s * 1e-3;
  PushWindow w{tip.t[first_moving] - distance(tip, first_moving, 0) / v, tip.t[last_moving] + distance(tip, last_moving, last) / v,
               false};
  if (first_moving == 1 && distance(tip, 0, last) < kShortestFullTravel) {
    // Moving from the first sample on and short of the full travel: the tip stream began mid-push
    // (three plywood files). Every push travels kNominalTravel, so the missing part dates the start.
    w.started_before_recording = true;
    w.start = tip.t[0] - std::max(0.0, kNominalTravel - distance(tip, 0, last)) / v;
  }
  return w;
}

Trajectory object_motion(const PushFile& f) { return object_frame(f).motion; }

Trajectory tip_motion(const PushFile& f) {
  const ObjectFrame obj = object_frame(f);
  int jumps = 0;
  const std::vector<double> yaw = unwrap_yaw(f.tip_pose.c, &jumps);
  Rest tip_ref = obj.rest;
  Trajectory tr = in_frame(f.tip_pose, yaw, tip_ref, push_window(f).start);
  tr.yaw_jumps_fixed = jumps;
  return tr;
}

ForceSeries pusher_force(const PushFile& f) {
  const Stream& w = f.ft_wrench;
  const double t0 = push_window(f).start;
  ForceSeries out;
  out.why_not = frozen_reason(w);
  double bx = 0, by = 0;
  std::size_t n = 0;
  for (; n < w.size() && w.t[n] < t0; ++n) {
    bx += w.a[n];
    by += w.b[n];
  }
  if (n == 0 && out.why_not.empty()) out.why_not = "ft_wrench has no samples before the push, so its baseline is unknown";
  if (n > 0) bx /= n, by /= n;
  out.baseline_samples = static_cast<int>(n);
  out.usable = out.why_not.empty();
  const double yaw0 = object_frame(f).rest.yaw;
  const double c = std::cos(yaw0), s = std::sin(yaw0);
  for (std::size_t i = 0; i < w.size(); ++i) {
    const double fx = w.a[i] - bx, fy = w.b[i] - by;
    out.t.push_back(w.t[i] - t0);
    out.fx.push_back(c * fx + s * fy);
    out.fy.push_back(-s * fx + c * fy);
  }
  return out;
}

}  // namespace graspsim::mcube
