// MCube recordings re-expressed for comparison with simulation: push geometry from the file name
// against the recorded tip, motion in the initial object frame, and the README's known defects.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <map>
#include <set>

#include "core/error.h"
#include "io/mcube.h"
#include "mcube_util.h"

namespace graspsim {
namespace {

using namespace mcube;
using test::contains;

constexpr double kDeg = std::numbers::pi / 180;

// In these plywood files the tip stream begins mid-push (README: recorded travel 40.9, 45.6 and
// 48.6 mm of the nominal 50), so their first tip sample lies 1-9 mm along the path. The README's
// two "tip start off the nominal contact" files (4.3 and 8.6 mm) are the first two.
const std::set<std::string> kTipStartsMidPush = {
    "motion_surface=plywood_shape=rect1_a=0_v=100_i=1.000_s=0.100_t=0.698.json",
    "motion_surface=plywood_shape=rect1_a=0_v=100_i=3.000_s=0.400_t=0.349.json",
    "motion_surface=plywood_shape=rect1_a=0_v=100_i=3.000_s=0.700_t=-0.349.json",
};

std::string name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

std::vector<std::string> rect1_files() {
  std::vector<std::string> out;
  for (const std::string folder : {"abs/train", "plywood/rect1"})
    for (const auto& p : test::mcube_files(folder))
      if (contains(p, "shape=rect1_")) out.push_back(p);
  return out;
}

// Index of the first sample at or after the push start.
std::size_t first_after_start(const std::vector<double>& t) {
  std::size_t k = 0;
  while (k < t.size() && t[k] < 0) ++k;
  return k;
}

TEST(McubeMotion, PushGeometryFollowsTheReadmeConvention) {
  PushFile f = parse_push_name("motion_surface=abs_shape=rect1_a=0_v=20_i=2.000_s=0.800_t=0.349.h5");
  const PushGeometry g = push_geometry(f);
  // Side 2 runs from (-a,-b) to (a,-b): contact at (-a + 2a*0.8, -b), outward normal -y.
  EXPECT_NEAR(g.contact.x(), 0.027, 1e-12);
  EXPECT_NEAR(g.contact.y(), -0.045, 1e-12);
  EXPECT_NEAR(g.normal.x(), 0, 1e-12);
  EXPECT_NEAR(g.normal.y(), -1, 1e-12);
  EXPECT_NEAR(g.tip_start.y(), -0.045 - kPusherRadius, 1e-12);
  // Direction -Rz(t) n = (-sin t, cos t): rotated by t from the inward normal +y.
  EXPECT_NEAR(g.direction.x(), -std::sin(0.349), 1e-12);
  EXPECT_NEAR(g.direction.y(), std::cos(0.349), 1e-12);
  f.side = 4;
  EXPECT_THROW(push_geometry(f), InputError);
  f.shape = "hex";
  EXPECT_THROW(push_geometry(f), InputError);  // side numbering unknown
}

// The tip's recorded start in the initial object frame lies where the name says (README: within
// 2 mm, the tracking and pusher-placement accuracy; measured here: at most 1.8 mm), and it then
// moves along the named direction (README: within 1.5 deg).
TEST(McubeMotion, NamedGeometryMatchesTheRecordedTipForRect1) {
  int checked = 0;
  double worst = 0;
  for (const auto& path : rect1_files()) {
    SCOPED_TRACE(path);
    const PushFile f = read_push_file(path);
    const PushWindow w = push_window(f);
    EXPECT_EQ(w.started_before_recording, kTipStartsMidPush.count(name_of(path)) == 1);
    const PushGeometry g = push_geometry(f);
    const Trajectory tip = tip_motion(f);
    const std::size_t k = first_after_start(tip.t);
    ASSERT_LT(k, tip.t.size());
    const Vec2 travel(tip.x.back() - tip.x[k], tip.y.back() - tip.y[k]);
    // Where the named geometry puts the first recorded tip sample: at the start, or for a stream
    // that began mid-push, as far along the push as the recorded travel falls short of 50 mm.
    const Vec2 expected = g.tip_start + (0.050 - travel.norm()) * g.direction;
    const double start_err = std::hypot(tip.x[k] - expected.x(), tip.y[k] - expected.y());
    EXPECT_LT(start_err, 0.002);
    worst = std::max(worst, start_err);
    if (!w.started_before_recording) {
      EXPECT_NEAR(travel.norm(), 0.050, 0.001);
    }
    // Heading of the tip's travel from start to its position at the push end.
    const double heading_err = std::atan2(g.direction.x() * travel.y() - g.direction.y() * travel.x(), g.direction.dot(travel));
    EXPECT_LT(std::abs(heading_err), 1.5 * kDeg);
    ++checked;
  }
  EXPECT_EQ(checked, 13 + 32);
  RecordProperty("worst_tip_start_error_um", static_cast<int>(worst * 1e6));
}

// The same for the other shapes, whose side conventions (mcube.h) were inferred from these files:
// hex, ellip1 and ellip3 on ABS. The bounds are the README's for rect1 (2 mm, 1.5 deg); one hex
// file starts off its nominal point (measured 2.8 mm, 2.0 deg), like two rect1 plywood files do.
const std::set<std::string> kTipStartsOffNominal = {"motion_surface=abs_shape=hex_a=0_v=50_i=4.000_s=0.700_t=1.047.h5"};

TEST(McubeMotion, NamedGeometryMatchesTheRecordedTipForEveryShape) {
  const std::string objects = test::mcube_dir() + "/objects";
  std::map<std::string, int> checked;
  double worst = 0;
  for (const auto& path : test::mcube_files("abs/train")) {
    SCOPED_TRACE(path);
    const PushFile f = read_push_file(path);
    const PushGeometry g = push_geometry(f, object_outline(object_info(f.shape), objects));
    if (f.shape == "rect1") {
      const PushGeometry readme = push_geometry(f);
      EXPECT_LT((readme.tip_start - g.tip_start).norm(), 1e-12);
      EXPECT_LT((readme.direction - g.direction).norm(), 1e-12);
    }
    const Trajectory tip = tip_motion(f);
    const std::size_t k = first_after_start(tip.t);
    ASSERT_LT(k, tip.t.size());
    const bool off = kTipStartsOffNominal.count(name_of(path)) == 1;
    const double start_err = std::hypot(tip.x[k] - g.tip_start.x(), tip.y[k] - g.tip_start.y());
    EXPECT_LT(start_err, off ? 0.003 : 0.002);
    if (!off) worst = std::max(worst, start_err);
    const Vec2 travel(tip.x.back() - tip.x[k], tip.y.back() - tip.y[k]);
    const double heading_err = std::atan2(g.direction.x() * travel.y() - g.direction.y() * travel.x(), g.direction.dot(travel));
    EXPECT_LT(std::abs(heading_err), (off ? 2.5 : 1.5) * kDeg);
    ++checked[f.shape];
  }
  EXPECT_EQ(checked["hex"], 14);
  EXPECT_EQ(checked["ellip1"], 13);
  EXPECT_EQ(checked["ellip3"], 10);
  RecordProperty("worst_tip_start_error_um", static_cast<int>(worst * 1e6));
  std::printf("worst tip start error (other files): %.2f mm\n", worst * 1e3);
  PushFile butter = parse_push_name("motion_surface=abs_shape=butter_a=0_v=20_i=0.000_s=0.500_t=0.000.h5");
  EXPECT_THROW(push_geometry(butter, object_outline(object_info("butter"), objects)), InputError);
}

// At rest before the push the object sits at the origin of its initial frame: within tracker noise
// (measured <= 0.08 mm and 0.14 deg over all files; 0.2 mm / 0.25 deg allowed).
TEST(McubeMotion, ObjectMotionStartsAtTheOrigin) {
  for (const std::string folder : {"abs/train", "plywood/rect1"})
    for (const auto& path : test::mcube_files(folder)) {
      SCOPED_TRACE(path);
      const PushFile f = read_push_file(path);
      if (push_window(f).started_before_recording) continue;
      const Trajectory m = object_motion(f);
      const std::size_t k = first_after_start(m.t);
      ASSERT_GT(k, 0u);  // samples before the push exist
      ASSERT_LT(k, m.t.size());
      for (std::size_t i = 0; i < k; ++i) {
        EXPECT_LT(std::hypot(m.x[i], m.y[i]), 2e-4);
        EXPECT_LT(std::abs(m.yaw[i]), 0.25 * kDeg);
      }
      // The first sample after the start has moved at most as far as the pusher since the start.
      EXPECT_LT(std::hypot(m.x[k], m.y[k]), 2e-4 + f.speed_mm_s * 1e-3 * m.t[k]);
      EXPECT_EQ(m.yaw_jumps_fixed, 0);
    }
}

// The reference push: contact 0.8, straight, on ABS moved 31 mm along the push and turned
// 31 deg (measured independently for issue 5). Side 2 pushes along +y of the object frame.
TEST(McubeMotion, AbsReferencePushMovesAsMeasuredBefore) {
  const PushFile f = read_push_file(test::mcube_file("abs/train", "abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5"));
  const Trajectory m = object_motion(f);
  EXPECT_NEAR(m.y.back(), 0.031, 0.001);
  EXPECT_NEAR(m.yaw.back(), 31 * kDeg, 1 * kDeg);
  // Push lasts 50 mm / 75 mm/s = 0.667 s at constant speed; the robot's speed ramps at both ends
  // make the detected window a few percent longer (measured 0.689 s).
  const PushWindow w = push_window(f);
  EXPECT_NEAR(w.end - w.start, 0.050 / 0.075, 0.05 * 0.050 / 0.075);
}

// README: the yaw of this file jumps by 2 pi; unwrapped, no step exceeds what a push can turn in
// one sample (here < 3 deg; the push turns the object 25 deg over 0.5 s).
TEST(McubeMotion, YawJumpOfTwoPiIsUnwrapped) {
  const PushFile f = read_push_file(test::mcube_file("plywood/rect1", "plywood_shape=rect1_a=0_v=100_i=3.000_s=0.400_t=0.349.json"));
  double raw_max_step = 0;
  for (std::size_t i = 1; i < f.object_pose.size(); ++i) raw_max_step = std::max(raw_max_step, std::abs(f.object_pose.c[i] - f.object_pose.c[i - 1]));
  EXPECT_GT(raw_max_step, 6.0);  // the jump is in the raw data
  const Trajectory m = object_motion(f);
  for (std::size_t i = 1; i < m.yaw.size(); ++i) EXPECT_LT(std::abs(m.yaw[i] - m.yaw[i - 1]), 3 * kDeg) << i;
  EXPECT_LT(std::abs(m.yaw.back()), 40 * kDeg);
}

// README's known force defects, and nothing else, make the channel unusable.
TEST(McubeMotion, FrozenOrBaselineLessForceIsFlagged) {
  const std::string frozen_plywood = "motion_surface=plywood_shape=rect1_a=0_v=100_i=0.000_s=0.800_t=-1.047.json";
  // Found by this reader, not in the README: the ft stream starts only after the push has begun,
  // so there is no pre-push baseline to subtract.
  const std::string no_baseline = "motion_surface=plywood_shape=rect1_a=0_v=100_i=1.000_s=0.600_t=1.396.json";
  int frozen = 0;
  for (const std::string folder : {"abs/train", "plywood/rect1"})
    for (const auto& path : test::mcube_files(folder)) {
      SCOPED_TRACE(path);
      const PushFile f = read_push_file(path);
      const ForceSeries force = pusher_force(f);
      const bool readme_frozen = (contains(path, "abs_shape=rect1_") && contains(path, "_v=75_")) || name_of(path) == frozen_plywood;
      const bool tip_mid_push = kTipStartsMidPush.count(name_of(path)) == 1;
      EXPECT_EQ(force.usable, !readme_frozen && !tip_mid_push && name_of(path) != no_baseline);
      EXPECT_EQ(force.usable, force.why_not.empty());
      if (readme_frozen) {
        EXPECT_TRUE(contains(force.why_not, "frozen")) << force.why_not;
        ++frozen;
      }
      EXPECT_EQ(force.t.size(), f.ft_wrench.size());
    }
  EXPECT_EQ(frozen, 14);
}

// After baseline removal the force before the push averages zero, and during the push it points
// against the push (README: the sensor reports the reaction on the tip; 101 of 120 files).
TEST(McubeMotion, ForceBaselineRemovedAndOpposesThePush) {
  int usable = 0, opposing = 0;
  for (const auto& path : rect1_files()) {
    const PushFile f = read_push_file(path);
    const ForceSeries force = pusher_force(f);
    if (!force.usable) continue;
    ++usable;
    double pre = 0, along = 0;
    int n_pre = 0, n_push = 0;
    const PushGeometry g = push_geometry(f);
    const double duration = 0.050 / (f.speed_mm_s * 1e-3);
    for (std::size_t i = 0; i < force.t.size(); ++i) {
      if (force.t[i] < 0) pre += force.fx[i] + force.fy[i], ++n_pre;
      if (force.t[i] >= 0 && force.t[i] <= duration) along += g.direction.x() * force.fx[i] + g.direction.y() * force.fy[i], ++n_push;
    }
    EXPECT_EQ(n_pre, force.baseline_samples);
    EXPECT_NEAR(pre, 0.0, 1e-9 * std::max(1, n_pre));
    if (along / n_push < 0) ++opposing;
  }
  EXPECT_EQ(usable, 45 - 13 - 1 - 1 - 3);  // rect1 files minus frozen, no-baseline, mid-push
  EXPECT_GE(opposing, usable * 3 / 4);
}

}  // namespace
}  // namespace graspsim
