#pragma once
// Running the shipped validation scenes in-process, for the SPOOK physics tests.

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "io/scene.h"
#include "dynamics/dynamics.h"
#include "steppers/step.h"

namespace graspsim::validation {

inline Scene load(const std::string& name, const std::vector<std::string>& overrides = {}) {
  return load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/" + name + ".yaml", overrides);
}

// Steps `scene` for `duration` seconds, calling fn(state, result, ws) after every step.
inline State simulate(const Scene& scene, double duration,
                      const std::function<void(const State&, const StepResult&, Workspace&)>& fn = {}) {
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  StepResult r;
  const long n = std::lround(duration / m.options.dt);
  for (long i = 0; i < n; ++i) {
    step(m, s, ws, &r);
    if (fn) fn(s, r, ws);
  }
  return s;
}

// Position of the origin of the free body `name` (its q holds x y z first).
inline Vec3 position(const Model& m, const State& s, const std::string& name) {
  const Joint& j = m.joints[m.bodies[m.body_id(name)].joint];
  return s.q.segment<3>(j.qadr);
}
inline Vec3 linear_velocity(const Model& m, const State& s, const std::string& name) {
  const Joint& j = m.joints[m.bodies[m.body_id(name)].joint];
  return s.v.segment<3>(j.vadr);
}

inline double total_energy(const Model& m, const State& s) {
  KinematicsData kin;
  forward_kinematics(m, s.q, kin);
  return kinetic_energy(m, kin, s.v) + potential_energy(m, kin, s.q);
}

inline std::string set(const std::string& name, const std::string& value) { return "parameters." + name + "=" + value; }

}  // namespace graspsim::validation
