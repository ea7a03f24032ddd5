#pragma once
// Everything about a simulation that changes over time. One Model, many States.

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/types.h"
#include "model/contact_table.h"
#include "model/model.h"

namespace graspsim {

struct State {
  double t = 0.0;                  // s
  std::uint64_t step = 0;          // steps taken
  VecX q;                          // generalized positions (nq), see JointType
  VecX v;                          // generalized velocities (nv)
  VecX act;                        // actuator controller states (one per actuator)
  // Adaptive integrators (the penalty stepper's RK45): the size its error control proposed
  // for the next internal step (s); 0 = guess one. Kept here so a run continued from a
  // checkpoint takes the same internal steps as one that never stopped.
  double step_size = 0.0;
  // Sleeping (SPOOK, SleepOptions): per body, how long its tree has been still (s); a tree's
  // time is its root's (the body hanging from the world). Zero it to wake a tree.
  VecX sleep_time;
  ContactTable contacts;           // per contact pair: what the formulation remembers
  std::mt19937_64 rng;             // every random choice of a stepper; seeded by options.seed
};

// The model's initial state: q0, v0, t = 0.
State make_state(const Model& model);

// Throws DivergenceError when q or v holds a non-finite number, naming the first such joint
// and its body, `when` (e.g. "step 12 at t = 0.12") and what to change.
void require_finite_state(const Model& model, const VecX& q, const VecX& v, const std::string& when);

}  // namespace graspsim
