#include "model/state.h"

#include "core/error.h"

namespace graspsim {

ConstraintSlots constraint_slots(const Model& model) {
  ConstraintSlots c;
  c.equalities = c.limits + 2 * static_cast<int>(model.joints.size());
  c.servos = c.equalities + 6 * static_cast<int>(model.equalities.size());
  c.friction = c.servos + static_cast<int>(model.actuators.size());
  c.size = c.friction + model.nv;
  return c;
}

State make_state(const Model& model) {
  State s;
  s.q = model.q0;
  s.v = model.v0;
  s.act = VecX::Zero(static_cast<Eigen::Index>(model.actuators.size()));
  s.sleep_time = VecX::Zero(model.nbody());
  s.constraint_forces = VecX::Zero(constraint_slots(model).size);
  s.rng.seed(model.options.seed);
  return s;
}

void require_finite_state(const Model& model, const VecX& q, const VecX& v, const std::string& when) {
  if (q.allFinite() && v.allFinite()) return;
  std::string where = "the state";
  for (const Joint& j : model.joints)
    if (!q.segment(j.qadr, j.nq).allFinite() || !v.segment(j.vadr, j.nv).allFinite()) {
      where = "joint '" + j.name + "' of body '" + model.bodies[j.body].name + "'";
      break;
    }
  throw DivergenceError((when.empty() ? "" : when + ": ") + "the simulation diverged (" + where +
                        " became non-finite): the scene is too stiff or too fast for options.dt = " + show(model.options.dt) +
                        " s; a smaller dt, softer contacts or gains, or another solver may fix it");
}

}  // namespace graspsim
