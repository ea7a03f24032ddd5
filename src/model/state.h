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
  // SPOOK: last step's forces (N or N·m) of the rows that are not contacts, at
  // constraint_slots(model): the warm start of joint limits, loop closures, servos and joint
  // friction, as ContactTable is the contacts'. Empty or zero: start from zero.
  VecX constraint_forces;
  ContactTable contacts;           // per contact pair: what the formulation remembers
  std::mt19937_64 rng;             // every random choice of a stepper; seeded by options.seed
};

// Where each row that is not a contact keeps its entry of State::constraint_forces: a
// joint's limits at limits + 2 j (lower) and + 1 (upper), an equality's rows at
// equalities + 6 e + k, an actuator's servo at servos + a, the dry friction of dof d at
// friction + d.
struct ConstraintSlots {
  int limits = 0, equalities = 0, servos = 0, friction = 0, size = 0;
};
ConstraintSlots constraint_slots(const Model& model);

// The model's initial state: q0, v0, t = 0.
State make_state(const Model& model);

// Throws DivergenceError when q or v holds a non-finite number, naming the first such joint
// and its body, `when` (e.g. "step 12 at t = 0.12") and what to change.
void require_finite_state(const Model& model, const VecX& q, const VecX& v, const std::string& when);

}  // namespace graspsim
