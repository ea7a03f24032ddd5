#include "steppers/dynamics_stepper.h"

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/error.h"
#include "dynamics/forward_dynamics.h"
#include "integrators/integrators.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"

namespace graspsim {

// The dynamics stepper's scratch (sized on first use, then reused without allocation).
struct DynamicsScratch {
  ForwardDynamics fd;
  VecX qacc_prescribed;            // accelerations of the prescribed dofs over the step
  const Model* rk4_model = nullptr;  // the model rk4 was made for
  std::optional<RungeKutta4> rk4;  // the integrators module's (kept for its storage)
  OdeState x;                      // (q, v) as the integrator sees them
};

void ScratchDeleter::operator()(DynamicsScratch* p) const { delete p; }

namespace {

// Sizes the scratch.
DynamicsScratch& prepare(const Model& model, Workspace& w) {
  if (!w.dynamics) w.dynamics.reset(new DynamicsScratch);
  DynamicsScratch& ws = *w.dynamics;
  w.qacc.resize(model.nv);
  w.actuator_effort.resize(static_cast<Eigen::Index>(model.actuators.size()));
  ws.fd.prepare(model);
  ws.qacc_prescribed.resize(static_cast<Eigen::Index>(model.kinematic_dofs.size()));
  return ws;
}

// The kinematic dofs move from their velocity at the start of the step to the commanded one
// at its end at a constant acceleration.
void prescribed_accelerations(const Model& model, const Input& in, const VecX& v, double h, DynamicsScratch& ws) {
  for (size_t k = 0; k < model.kinematic_dofs.size(); ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    ws.qacc_prescribed[kk] = (in.kinematic_v[kk] - v[model.kinematic_dofs[k]]) / h;
  }
}

void set_prescribed_v(const Model& model, const Input& in, VecX& v) {
  for (size_t k = 0; k < model.kinematic_dofs.size(); ++k) v[model.kinematic_dofs[k]] = in.kinematic_v[static_cast<Eigen::Index>(k)];
}

// q̈ at (q, v) under the input into w.qacc (prescribed dofs: d.qacc_prescribed).
void forward_dynamics(const Model& model, const Input& in, const VecX& q, const VecX& v, Workspace& w,
                      DynamicsScratch& d, bool record_effort) {
  forward_kinematics(model, q, w.kin);
  d.fd.accelerations(model, w.kin, in, q, v, d.qacc_prescribed, nullptr, w.qacc,
                     record_effort ? &w.actuator_effort : nullptr);
}

void step_euler(const Model& model, State& s, const Input& in, Workspace& w, DynamicsScratch& d) {
  const double h = model.options.dt;
  prescribed_accelerations(model, in, s.v, h, d);
  forward_dynamics(model, in, s.q, s.v, w, d, true);
  s.v += h * w.qacc;
  set_prescribed_v(model, in, s.v);
  integrate_q(model, s.q, s.v, h);
  s.t += h;
}

// Classical RK4 of the integrators module, in the local coordinate u of q = q0 ⊕ u
// (Munthe-Kaas), so that it stays fourth order on the quaternions of free and ball joints.
// The input is held over the step; the prescribed dofs' constant acceleration ramps their
// stage velocities, and they end exactly at their commanded velocity.
void step_rk4(const Model& model, State& s, const Input& in, Workspace& w, DynamicsScratch& d) {
  const double h = model.options.dt;
  if (d.rk4_model != &model) {
    d.rk4.emplace(model_space(model));
    d.rk4_model = &model;
  }
  prescribed_accelerations(model, in, s.v, h, d);
  d.x.t = s.t;
  d.x.q = s.q;
  d.x.v = s.v;
  d.x.z.resize(0);
  int stage = 0;
  auto qdd = [&](double, const VecX& q, const VecX& v, const VecX&, VecX& vdot, VecX&) {
    forward_dynamics(model, in, q, v, w, d, stage++ == 0);  // efforts: those at the step's start
    vdot = w.qacc;
  };
  d.rk4->step(qdd, d.x, h);
  s.q = d.x.q;
  s.v = d.x.v;
  set_prescribed_v(model, in, s.v);
  s.t += h;
}

}  // namespace

void require_no_equalities(const Model& model) {
  if (!model.equalities.empty())
    throw InputError("equality '" + model.equalities.front().name +
                     "': equality constraints need a constraint stepper (options: {stepper: spook})");
}

void require_no_constraint_rows(const Model& model) {
  require_no_equalities(model);
  for (const Joint& j : model.joints)
    if (j.frictionloss > 0.0)
      throw InputError("joint '" + j.name +
                       "': frictionloss (dry friction) needs a constraint stepper (options: {stepper: spook})");
}

void validate_dynamics(const Model& model, const DynamicsOptions& o) {
  require_no_constraint_rows(model);
  // The scene reader takes only the integrators' names; code may still pass a stray value.
  for (const auto& entry : EnumNames<Integrator>::table)
    if (entry.first == o.integrator) return;
  throw InputError("options: integrator " + std::to_string(static_cast<int>(o.integrator)) +
                   " is not one of euler | rk4");
}

void step_dynamics(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws) {
  DynamicsScratch& d = prepare(model, ws);
  switch (f.dynamics.integrator) {
    case Integrator::SemiImplicitEuler: step_euler(model, state, input, ws, d); break;
    case Integrator::RK4: step_rk4(model, state, input, ws, d); break;
  }
  state.step += 1;
}

void step_dynamics(const Model& model, State& state, Workspace& ws) {
  sample_signals(model, state.t, model.options.dt, ws.input);
  step_dynamics(model, state, ws.input, scene_formulation(model), ws);
}

}  // namespace graspsim
