// SPOOK stepper against physics (issue "SPOOK constraint stepper", Tests): the shipped
// validation scenes, each checked against a closed form. Long holds are in
// slow_spook_validation_test.cpp.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <numbers>

#include "spook_validation_util.h"

namespace graspsim::validation {
namespace {

constexpr double kG = 9.81;

struct SolverCase {
  const char* solver;
  const char* friction_model;
};
// Direct pivots on box-shaped bounds; the others run the thesis' default cone.
const SolverCase kSolvers[] = {{"direct", "box"}, {"iterative", "cone"}, {"split", "cone"}, {"direct_iterative", "cone"}};

// ---- incline -----------------------------------------------------------------------------

// Speed along the slope's downhill direction (the plane's x axis).
double downhill_speed(const Model& m, const State& s, double theta) {
  return linear_velocity(m, s, "box").dot(Vec3(std::cos(theta), 0.0, -std::sin(theta)));
}

TEST(SpookIncline, SlidesWithCoulombAcceleration) {
  const double theta_deg = 30.0, mu = 0.3, theta = theta_deg * std::numbers::pi / 180.0;
  const double expected = kG * (std::sin(theta) - mu * std::cos(theta));
  for (const SolverCase& c : kSolvers) {
    const Scene scene = load("incline", {set("incline_deg", "30"), set("mu", "0.3"), set("solver", c.solver),
                                         set("friction_model", c.friction_model)});
    double v1 = 0.0;
    // The slope of v(t) after the first contact transient: 0.2 s to 0.7 s.
    const State end = simulate(scene, 0.7, [&](const State& s, const StepResult&, Workspace&) {
      if (std::abs(s.t - 0.2) < 1e-9) v1 = downhill_speed(*scene.model, s, theta);
    });
    const double a = (downhill_speed(*scene.model, end, theta) - v1) / 0.5;
    EXPECT_NEAR(a / expected, 1.0, 0.01) << c.solver << ": a = " << a << ", g(sin θ − μ cos θ) = " << expected;
  }
}

TEST(SpookIncline, SticksBelowTheFrictionAngle) {
  // tan 20° = 0.36 < μ = 0.5. Two seconds here; the 10 s hold is in the slow tests.
  for (const SolverCase& c : kSolvers) {
    const Scene scene = load("incline", {set("solver", c.solver), set("friction_model", c.friction_model)});
    const Vec3 p0 = position(*scene.model, make_state(*scene.model), "box");
    const State end = simulate(scene, 2.0);
    const double theta = 20.0 * std::numbers::pi / 180.0;
    const double along = (position(*scene.model, end, "box") - p0).dot(Vec3(std::cos(theta), 0, -std::sin(theta)));
    EXPECT_LT(std::abs(along), 1e-6) << c.solver << ": drifted " << along << " m down the slope";
  }
}

// ---- isotropy ----------------------------------------------------------------------------

// Deceleration of the box launched at `speed` in direction angle_deg, from the slope of
// its speed over a window well inside the sliding phase.
double deceleration(const std::vector<std::string>& overrides, double speed, double window) {
  std::vector<std::string> o = overrides;
  o.push_back(set("speed", std::to_string(speed)));
  const Scene scene = load("isotropy", o);
  const Model& m = *scene.model;
  double v0 = -1.0, t_start = 0.0;
  const double t0 = 0.2 * window;
  const State end = simulate(scene, window, [&](const State& s, const StepResult&, Workspace&) {
    if (v0 < 0.0 && s.t >= t0) {
      v0 = linear_velocity(m, s, "box").head<2>().norm();
      t_start = s.t;
    }
  });
  return (v0 - linear_velocity(m, end, "box").head<2>().norm()) / (end.t - t_start);
}

// The sliding time at speed v is v / (μ g): measure over the first 60 % of it.
double window_for(double speed, double mu) { return 0.6 * speed / (mu * kG); }

TEST(SpookIsotropy, ConeDeceleratesAtMuGInEveryDirection) {
  const double mu_g = 0.5 * kG;
  for (int deg = 0; deg <= 90; deg += 5) {
    const double a = deceleration({set("angle_deg", std::to_string(deg))}, 1.0, window_for(1.0, 0.5));
    EXPECT_NEAR(a / mu_g, 1.0, 0.005) << "cone at " << deg << "°";
  }
}

TEST(SpookIsotropy, PolyhedralDeficitIsBoundedByOneMinusCosPiOverK) {
  const int k = 32;
  const double mu_g = 0.5 * kG, bound = 1.0 - std::cos(std::numbers::pi / k);  // 0.48 %
  for (int deg = 0; deg <= 90; deg += 5) {
    const double a = deceleration({set("angle_deg", std::to_string(deg)), set("friction_model", "polyhedral"),
                                   set("tangents", std::to_string(k)), set("solver", "direct")},
                                  1.0, window_for(1.0, 0.5));
    EXPECT_LE(a / mu_g, 1.0 + 1e-6) << deg << "°";
    EXPECT_GE(a / mu_g, 1.0 - bound - 1e-6) << deg << "°";
  }
}

TEST(SpookIsotropy, BoxFrictionExcessGrowsTowardFortyFiveDegrees) {
  // Documented defect of box friction (thesis 3.2.1, SPEC scenario 2): each world-axis row
  // saturates at μ λ_n, so sliding along the diagonal meets √2 μ g.
  const double mu_g = 0.5 * kG;
  const std::vector<std::string> box = {set("friction_model", "box"), set("solver", "direct")};
  auto at = [&](int deg) {
    std::vector<std::string> o = box;
    o.push_back(set("angle_deg", std::to_string(deg)));
    return deceleration(o, 1.0, window_for(1.0, 0.5)) / mu_g;
  };
  const double r0 = at(0), r45 = at(45);
  std::printf("box friction: deceleration / μg = %.4f at 0°, %.4f at 45° (√2 = 1.4142)\n", r0, r45);
  EXPECT_NEAR(r0, 1.0, 0.005);
  EXPECT_NEAR(r45, std::sqrt(2.0), 0.01);
}

TEST(SpookIsotropy, MultiDirectionalReportsItsDeviation) {
  // A re-oriented box is isotropic only while the secondary slip is stopped within a step:
  // the thesis' slow pushes, not fast sliding. Measured and printed; the bounds below are
  // the box model's worst case, which multi-directional must beat.
  const double mu_g = 0.5 * kG;
  for (double speed : {1.0, 0.01}) {
    double worst = 0.0;
    for (int deg = 0; deg <= 90; deg += 15) {
      const double a = deceleration({set("angle_deg", std::to_string(deg)), set("friction_model", "multi_directional"),
                                     set("tangents", "16"), set("solver", "split")},
                                    speed, window_for(speed, 0.5));
      worst = std::max(worst, std::abs(a / mu_g - 1.0));
    }
    std::printf("multi-directional (k = 16): worst |deceleration / μg − 1| = %.4f at %.2f m/s\n", worst, speed);
    EXPECT_LT(worst, std::sqrt(2.0) - 1.0) << speed << " m/s";
  }
}

// ---- metrics while sliding ----------------------------------------------------------------

TEST(SpookMetrics, ConeModelsStayInTheConeAndOpposeSlip) {
  struct Case {
    std::vector<std::string> overrides;
    double max_alignment_deg;
  };
  const Case cases[] = {{{set("friction_model", "cone"), set("solver", "split")}, 1.0},
                        {{set("friction_model", "cone"), set("solver", "iterative")}, 1.0},
                        {{set("friction_model", "polyhedral"), set("tangents", "16"), set("solver", "direct")}, 180.0 / 16}};
  for (const Case& c : cases) {
    std::vector<std::string> o = c.overrides;
    o.push_back(set("angle_deg", "30"));
    const Scene scene = load("isotropy", o);
    double worst_cone = 0.0, worst_alignment = 0.0;
    int sliding = 0;
    simulate(scene, 0.1, [&](const State&, const StepResult& r, Workspace&) {
      for (const ContactResult& cr : r.contacts) {
        worst_cone = std::max(worst_cone, cr.cone_error);
        if (cr.slip.norm() > 1e-3 && cr.fn > 1e-6) {  // steady sliding
          ++sliding;
          worst_alignment = std::max(worst_alignment, std::abs(cr.alignment_error) * 180.0 / std::numbers::pi);
        }
      }
    });
    EXPECT_LE(worst_cone, 1e-9) << o[0];
    EXPECT_GT(sliding, 0);
    EXPECT_LE(worst_alignment, c.max_alignment_deg) << o[0];
  }
}

// ---- grasp --------------------------------------------------------------------------------

TEST(SpookGrasp, HoldsWithoutCreepAndSinksInAsTheStiffnessSays) {
  for (const SolverCase& c : {kSolvers[0], kSolvers[2]}) {  // Direct and Split
    const Scene scene = load("grasp_hold", {set("solver", c.solver), set("friction_model", c.friction_model),
                                            set("hold_s", "2")});
    const Model& m = *scene.model;
    const Vec3 p0 = position(m, make_state(m), "object");
    // 20 N over a face's 4 corner contacts of stiffness E = 4e8 N/m: 12.5 nm each.
    const double expected = 20.0 / (4 * 4e8);
    double depth_1s = -1.0, depth_end = 0.0, depth_max = 0.0;
    const State end = simulate(scene, 2.0, [&](const State& s, const StepResult& r, Workspace&) {
      double deepest = 0.0;
      for (const ContactResult& cr : r.contacts) deepest = std::max(deepest, cr.depth);
      if (depth_1s < 0.0 && s.t >= 1.0) depth_1s = deepest;
      depth_end = deepest;
      depth_max = std::max(depth_max, deepest);
    });
    const double slip = (position(m, end, "object") - p0).norm();
    EXPECT_LT(slip, 1e-6) << c.solver << ": the object moved " << slip << " m";
    EXPECT_NEAR(depth_end / expected, 1.0, 0.05) << c.solver;
    // Settled, it stays: the sink-in never overshoots F/k and is constant after a second.
    EXPECT_LE(depth_max, expected * 1.05) << c.solver;
    EXPECT_NEAR(depth_end, depth_1s, 1e-3 * expected) << c.solver << ": the sink-in changed after settling";
  }
}

// ---- push ---------------------------------------------------------------------------------

TEST(SpookPush, ReproducesTheThesisFindings) {
  // Thesis 4.3: box friction with the direct solver cannot rotate the 0.8 straight push;
  // cone friction rotates it. With support at the four corners an exact Coulomb solver
  // gives 39.8 mm along the push and 18° of yaw (issue 5's measurement).
  auto push = [](const std::vector<std::string>& o) {
    const Scene scene = load("push", o);
    const State end = simulate(scene, 5.0);
    const Joint& j = scene.model->joints[scene.model->bodies[scene.model->body_id("box")].joint];
    const double yaw = 2.0 * std::atan2(end.q[j.qadr + 6], end.q[j.qadr + 3]) * 180.0 / std::numbers::pi;
    return std::pair{end.q[j.qadr] * 1e3, yaw};
  };
  const auto [box_dx, box_yaw] = push({set("contact", "0.8"), set("solver", "direct"), set("friction_model", "box")});
  EXPECT_NEAR(box_dx, 50.0, 0.1);
  EXPECT_NEAR(box_yaw, 0.0, 0.1);
  // The exact LCP (polyhedral cone, k = 32, Lemke) against the exact solver.
  const auto [exact_dx, exact_yaw] = push({set("contact", "0.8"), set("solver", "direct"),
                                           set("friction_model", "polyhedral"), set("tangents", "32")});
  EXPECT_NEAR(exact_dx, 39.8, 1.5);
  EXPECT_NEAR(std::abs(exact_yaw), 18.0, 1.5);
  // The default Split + cone rotates it too. Converged, Split and DirectIterative settle on a
  // solution where the pusher sticks (~25°), PGS and Lemke on one where it slides (~19°):
  // both satisfy the contact conditions, so only the rotation itself is asserted here.
  const auto [cone_dx, cone_yaw] = push({set("contact", "0.8"), set("solver", "split")});
  EXPECT_GT(std::abs(cone_yaw), 15.0);
  EXPECT_LT(cone_dx, 45.0);
  // Issue 5's observation: support distributed over the bottom face (area contact, 5×5
  // grid) turns the box more: 31.9 mm and 32° with an exact solver, as the real ABS push at
  // s = 0.8, t = 0 (31 mm, 31°). Converged PGS (200 sweeps, cone) stands in for the exact
  // solver here: Lemke on the 25-point patch takes minutes (k = 8: 32.2 mm, 31.6°).
  const auto [grid_dx, grid_yaw] = push({set("contact", "0.8"), set("solver", "iterative"), set("iterations", "200"),
                                         set("area", "area"), set("patch_grid", "5")});
  // The 25 supports are statically indeterminate: converged solvers land between 30.6° and
  // 33.7° (docs/validation.md, point vs area), and round-off alone moves this run by ~0.1°;
  // ±2.5° keeps the finding (area ~32° against the corners' ~18°) without that flakiness.
  EXPECT_NEAR(grid_dx, 31.9, 1.5);
  EXPECT_NEAR(std::abs(grid_yaw), 32.0, 2.5);
  const auto [mid_dx, mid_yaw] = push({set("contact", "0.5"), set("solver", "split")});
  EXPECT_NEAR(mid_dx, 50.0, 0.1);
  EXPECT_NEAR(mid_yaw, 0.0, 0.01);
}

// ---- determinism -----------------------------------------------------------------------------

TEST(SpookDeterminism, SameInputSameBits) {
  for (const char* model : {"randomized", "cone"}) {
    const Scene scene = load("push", {set("contact", "0.8"), set("friction_model", model)});
    const State a = simulate(scene, 1.0), b = simulate(scene, 1.0);
    EXPECT_EQ(a.q, b.q) << model;
    EXPECT_EQ(a.v, b.v) << model;
  }
}

}  // namespace
}  // namespace graspsim::validation
