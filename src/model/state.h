#pragma once
// Everything about a simulation that changes over time. One Model, many States.

#include <cstdint>
#include <random>
#include <vector>

#include <tuple>

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

// What a contact stepper remembers of one contact point between steps: for warm starts,
// for box friction's bounds (the previous normal force) and for the multi-directional
// model's choice (the previous friction force). Keyed by geom pair and collision feature.
struct ContactMemory {
  int geom_a = -1, geom_b = -1;
  std::uint64_t feature = 0;
  double normal_impulse = 0.0;     // N·s over the last step
  Vec3 friction_force = Vec3::Zero();  // N, on geom B, world frame
  bool operator<(const ContactMemory& o) const {
    return std::tie(geom_a, geom_b, feature) < std::tie(o.geom_a, o.geom_b, o.feature);
  }
};

struct State {
  double t = 0.0;                  // s
  std::uint64_t step = 0;          // steps taken
  VecX q;                          // generalized positions (nq), see JointType
  VecX v;                          // generalized velocities (nv)
  VecX act;                        // actuator controller states (one per actuator)
  std::vector<ContactMemory> contacts;  // sorted; written by contact steppers
  std::mt19937_64 rng;             // every random choice of a stepper; seeded by options.seed
};

// The model's initial state: q0, v0, t = 0.
State make_state(const Model& model);

}  // namespace graspsim
