// Prehensile linear pushing (thesis 4.4; scenes/validation/prehensile.yaml) against the
// quasi-static Coulomb analysis of a prism held by two fingertips and pushed against a
// wall: it sticks in the grip until the wall force reaches the grip's friction capacity,
// then slides at exactly that force; the cone lets it sink under gravity, the box does not.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "spook_validation_util.h"

namespace graspsim::validation {
namespace {

constexpr double kG = 9.81;
// Scene defaults (the test reads them back from the scene to stay in step with it).
struct Grip {
  double grip_force, mu_finger, mu_wall, mass, speed;
};

Grip grip_of(const Scene& scene) {
  const auto& p = scene.parameters;
  return {p.at("grip_force"), p.at("mu_finger"), p.at("mu_wall"), p.at("mass"), p.at("speed")};
}

// What the wall must push with while the prism slides in the grip. Box friction bounds x
// and z separately by μ f_n at each finger: the wall takes the whole 2 μ F. With cones the
// fingers' 2 μ F is shared between the wall's push f_x and the part of the weight the
// wall's own friction μ_w f_x does not carry: f_x² + (m g − μ_w f_x)² = (2 μ F)².
struct Sliding {
  double wall_force, finger_lift, sink_speed;
};

Sliding box_sliding(const Grip& s) { return {2.0 * s.mu_finger * s.grip_force, s.mass * kG, 0.0}; }

Sliding cone_sliding(const Grip& s) {
  const double cap = 2.0 * s.mu_finger * s.grip_force, mg = s.mass * kG, mw = s.mu_wall;
  const double a = 1.0 + mw * mw, b = -2.0 * mg * mw, c = mg * mg - cap * cap;
  const double fx = (-b + std::sqrt(b * b - 4.0 * a * c)) / (2.0 * a);
  const double fz = std::max(mg - mw * fx, 0.0);
  // Sliding friction opposes the slip, so the slip turns by the force's angle: v_z/v_x = f_z/f_x.
  return {fx, fz, s.speed * fz / fx};
}

struct Trace {
  std::vector<double> t, wall_force, relative_speed, object_z, object_x;
};

// Runs the scene at dt 1 ms, recording the wall's normal force on the prism, the prism's
// speed along x relative to the gripper, and the prism's position.
Trace run(const std::vector<std::string>& overrides, Grip* grip) {
  std::vector<std::string> o = overrides;
  o.push_back("options.dt=0.001");
  const Scene scene = load("prehensile", o);
  const Model& m = *scene.model;
  *grip = grip_of(scene);
  const int object = m.body_id("object");
  Trace tr;
  simulate(scene, scene.duration, [&](const State& s, const StepResult& r, Workspace&) {
    double wall = 0.0;
    for (const ContactResult& c : r.contacts)
      if ((c.body_a == 0 && c.body_b == object) || (c.body_b == 0 && c.body_a == object)) wall += c.fn;
    tr.t.push_back(s.t);
    tr.wall_force.push_back(wall);
    tr.relative_speed.push_back(grip->speed - linear_velocity(m, s, "object").x());
    tr.object_z.push_back(position(m, s, "object").z());
    tr.object_x.push_back(position(m, s, "object").x());
  });
  return tr;
}

double mean_over(const Trace& tr, const std::vector<double>& v, double t0, double t1) {
  double sum = 0.0;
  int n = 0;
  for (size_t i = 0; i < tr.t.size(); ++i)
    if (tr.t[i] >= t0 && tr.t[i] <= t1) sum += v[i], ++n;
  return sum / n;
}

// Slope of v over [t0, t1] (least squares).
double slope_over(const Trace& tr, const std::vector<double>& v, double t0, double t1) {
  double st = 0, sv = 0, stt = 0, stv = 0;
  int n = 0;
  for (size_t i = 0; i < tr.t.size(); ++i)
    if (tr.t[i] >= t0 && tr.t[i] <= t1) st += tr.t[i], sv += v[i], stt += tr.t[i] * tr.t[i], stv += tr.t[i] * v[i], ++n;
  return (n * stv - st * sv) / (n * stt - st * st);
}

TEST(Prehensile, ConeSlidesDownAtTheRateCoulombAllows) {
  Grip s{};
  const Trace tr = run({set("solver", "split"), set("friction_model", "cone")}, &s);
  const Sliding expect = cone_sliding(s);
  // Steady sliding over the second half. The split solver's projected cone overshoots the
  // bound by up to ~1 % (measured cone error 0.0085–0.017 at the fingers), so 2 % on the
  // force; the sink speed is the ratio f_z/f_x, where that error counts twice, plus the
  // wall contact's compliance: 5 %.
  EXPECT_NEAR(mean_over(tr, tr.wall_force, 0.75, 1.5) / expect.wall_force, 1.0, 0.02);
  const double sink = -slope_over(tr, tr.object_z, 0.75, 1.5);
  EXPECT_NEAR(sink / expect.sink_speed, 1.0, 0.05) << "sink " << sink << " m/s, expected " << expect.sink_speed;
  // It slides (sinks) rather than falls: the drop stays within the quasi-static rate.
  EXPECT_LT(tr.object_z.front() - tr.object_z.back(), 1.5 * expect.sink_speed * tr.t.back());
}

TEST(Prehensile, BoxHoldsTheHeightAndPushesWithTheFullCapacity) {
  Grip s{};
  const Trace tr = run({set("solver", "direct"), set("friction_model", "box")}, &s);
  const Sliding expect = box_sliding(s);
  // The direct solver meets the box bound to round-off; 0.5 % leaves room for the
  // wall contact's stabilisation, which moves its force by ~1e-4 relative.
  EXPECT_NEAR(mean_over(tr, tr.wall_force, 0.75, 1.5) / expect.wall_force, 1.0, 0.005);
  // The weight (1.97 N) is far inside the z bound 2 μ F = 6 N: no sinking beyond the
  // contacts' elastic settling (2 m g / (4 E) per contact, nanometres).
  EXPECT_LT(std::abs(tr.object_z.back() - tr.object_z.front()), 1e-6);
}

// With a gap before the wall, the prism first rides in the grip (it sticks: the wall force
// is zero, below the capacity); once it touches, the wall force rises to the capacity and
// only then does the grip slide along it.
TEST(Prehensile, SlidesInTheGripOnlyAtTheFrictionCapacity) {
  struct Case {
    const char* solver;
    const char* model;
  };
  for (const Case c : {Case{"direct", "box"}, Case{"split", "cone"}}) {
    Grip s{};
    const Trace tr = run({set("solver", c.solver), set("friction_model", c.model), set("wall_gap", "0.002")}, &s);
    const double capacity = std::string(c.model) == "box" ? box_sliding(s).wall_force : cone_sliding(s).wall_force;
    int sticking = 0, sliding = 0;
    for (size_t i = 0; i < tr.t.size(); ++i) {
      if (tr.t[i] < 0.05) continue;  // the fingertips close their 0.2 mm gap first
      // Never beyond the capacity, except by what stops the prism's momentum in the step
      // it hits the wall (m Δv / dt, 2 N); 3 % for the solvers' cone overshoot and the
      // stabilisation of the just-made wall contact.
      const double dt = tr.t[i] - tr.t[i - 1];
      const double stopping = s.mass * std::max(0.0, tr.relative_speed[i] - tr.relative_speed[i - 1]) / dt;
      EXPECT_LT(tr.wall_force[i], 1.03 * capacity + stopping) << c.solver << " t=" << tr.t[i];
      if (std::abs(tr.relative_speed[i]) < 1e-4 * s.speed) {
        ++sticking;
        EXPECT_LT(tr.wall_force[i], 0.98 * capacity) << c.solver << " sticks at t=" << tr.t[i];
      } else if (tr.relative_speed[i] > 0.5 * s.speed) {
        ++sliding;
        EXPECT_GT(tr.wall_force[i], 0.97 * capacity) << c.solver << " slides below capacity at t=" << tr.t[i];
      }
    }
    // 2 mm at 10 mm/s: ~0.15 s of riding along, then sliding to the end.
    EXPECT_GT(sticking, 100) << c.solver;
    EXPECT_GT(sliding, 1000) << c.solver;
    // Riding along, the prism kept up with the gripper until it reached the wall.
    EXPECT_NEAR(tr.object_x.back() - tr.object_x.front(), 0.002, 2e-4) << c.solver;
  }
}

}  // namespace
}  // namespace graspsim::validation
