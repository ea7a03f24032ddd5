#include "steppers/penalty_stepper.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numbers>
#include <optional>
#include <string>

#include "collision/broadphase.h"
#include "contact/contact_kinematics.h"
#include "core/error.h"
#include "dynamics/dynamics.h"
#include "dynamics/forward_dynamics.h"
#include "integrators/integrators.h"
#include "kinematics/kinematics.h"
#include "metrics/contact_metrics.h"
#include "penalty/penalty_contact.h"
#include "penalty/penalty_geometry.h"
#include "steppers/dynamics_stepper.h"

namespace graspsim {

namespace {

// A slot's values: the filter states between steps, what δ_i needs, and the bristle
// (friction: bristle; 3 values, in the frame of geom A's body, which it moves with).
constexpr int kFilteredVolume = 0, kFilteredRate = 1, kApproachSpeed = 2, kBristle = 3;

bool has_bristle(const PenaltyOptions& o) { return o.friction == PenaltyFriction::Bristle; }

// A tracked pair's states in the ODE's z: the filter (v_f, v̇_f), then the bristle.
Eigen::Index pair_states(const PenaltyOptions& o) { return has_bristle(o) ? 5 : 2; }

// A pair tracked over one step: its slot and where its filter sits in z.
struct TrackedPair {
  int geom_a = -1, geom_b = -1;
  double since = 0.0, approach_speed = 0.0;
  Eigen::Index z = 0;
};

// What one evaluation found for one overlapping pair.
struct PairForce {
  int geom_a = -1, geom_b = -1;
  int tracked = -1;  // index into PenaltyScratch::tracked, or −1
  OverlapResult overlap;
  PenaltyForce force;
};

// A 1-dof joint with limits or dry friction, and the inertia its dof sees (the diagonal
// of M at q0): the limit spring's stiffness and damping scale with it, as MuJoCo's do.
struct JointPenalty {
  int joint = -1, qadr = 0, vadr = 0;
  double inertia = 0.0;
};

}  // namespace

struct PenaltyScratch {
  const Model* model = nullptr;
  std::optional<PenaltyGeometry> geometry;
  Broadphase bp;
  std::vector<Aabb> boxes;
  std::vector<Pose> X_WG;
  ForwardDynamics fd;
  VecX qacc_prescribed, tau_contact;
  PointChain chain;
  std::optional<DormandPrince45> rk;
  PenaltyOptions rk_options;
  OdeState x;
  std::vector<JointPenalty> joints;   // limited or rubbing 1-dof joints
  std::vector<TrackedPair> tracked;  // sorted by (geom_a, geom_b)
  std::vector<PairForce> pairs;      // the last evaluation's overlapping pairs
  std::vector<double> tracked_volume;
  std::vector<Vec3> tracked_bristle_rate;  // d/dt of each tracked pair's bristle (A's frame)
  std::int64_t overlap_calls = 0;
  double overlap_seconds = 0.0;
};

void ScratchDeleter::operator()(PenaltyScratch* p) const { delete p; }

namespace {

std::vector<JointPenalty> joint_penalties(const Model& model) {
  std::vector<JointPenalty> out;
  KinematicsData kin;
  MatX M;
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& joint = model.joints[j];
    if (!(joint.limited || joint.frictionloss > 0.0) || joint_nv(joint.type) != 1) continue;
    if (M.size() == 0) {
      forward_kinematics(model, model.q0, kin);
      mass_matrix(model, kin, M);
    }
    out.push_back({j, joint.qadr, joint.vadr, M(joint.vadr, joint.vadr)});
  }
  return out;
}

// Joint limits as one-sided Kelvin-Voigt springs (ω = 2π·limit_frequency, ζ = limit_damping,
// scaled by the dof's inertia, so every joint closes its violation in about the same time)
// and dry friction as μ·tanh (eq. 8's smoothing): the penalty stepper has no constraint rows.
void add_joint_forces(const Model& model, const PenaltyOptions& o, const std::vector<JointPenalty>& joints,
                      const VecX& q, const VecX& v, VecX& tau) {
  const double w = 2.0 * std::numbers::pi * o.limit_frequency;
  for (const JointPenalty& jp : joints) {
    const Joint& joint = model.joints[jp.joint];
    const double x = q[jp.qadr], xd = v[jp.vadr];
    if (joint.limited) {
      const double k = jp.inertia * w * w, c = 2.0 * o.limit_damping * jp.inertia * w;
      if (x > joint.upper) tau[jp.vadr] -= std::max(0.0, k * (x - joint.upper) + c * xd);
      if (x < joint.lower) tau[jp.vadr] += std::max(0.0, k * (joint.lower - x) - c * xd);
    }
    if (joint.frictionloss > 0.0) tau[jp.vadr] -= joint.frictionloss * std::tanh(o.joint_friction_smoothing * xd);
  }
}

PenaltyScratch& prepare(const Model& model, const PenaltyOptions& o, Workspace& w) {
  if (!w.penalty) w.penalty.reset(new PenaltyScratch);
  PenaltyScratch& s = *w.penalty;
  if (s.model != &model) {
    s.geometry.emplace(model);
    s.model = &model;
    s.rk.reset();
    s.joints = joint_penalties(model);
  }
  if (!s.rk || !(s.rk_options == o)) {
    Rk45Options ro;
    ro.atol = o.atol;
    ro.rtol = o.rtol;
    ro.h_max = o.max_step;
    ro.max_steps = 10'000'000;
    s.rk.emplace(model_space(model), ro);
    s.rk_options = o;
  }
  s.boxes.resize(model.geoms.size());
  s.X_WG.resize(model.geoms.size());
  s.fd.prepare(model);
  s.qacc_prescribed.setZero(static_cast<Eigen::Index>(model.kinematic_dofs.size()));
  s.tau_contact.resize(model.nv);
  w.qacc.resize(model.nv);
  w.actuator_effort.resize(static_cast<Eigen::Index>(model.actuators.size()));
  return s;
}

double movable_mass(const Model& model, int body) { return body_is_static(model, body) ? 0.0 : model.bodies[body].mass; }

// A body's velocity field: its frame's velocity and angular velocity (world).
struct RigidVelocity {
  Vec3 w, v_origin, origin;
  RigidVelocity(const Model& model, const KinematicsData& kin, const VecX& v, int body) : origin(kin.X_WB[body].p) {
    body_velocity(model, kin, v, body, w, v_origin);
  }
  Vec3 operator()(const Vec3& x) const { return v_origin + w.cross(x - origin); }
};


int find_tracked(const std::vector<TrackedPair>& tracked, int a, int b) {
  const auto it = std::lower_bound(tracked.begin(), tracked.end(), std::pair{a, b}, [](const TrackedPair& p, const auto& k) {
    return std::pair{p.geom_a, p.geom_b} < k;
  });
  return it != tracked.end() && it->geom_a == a && it->geom_b == b ? static_cast<int>(it - tracked.begin()) : -1;
}

// The overlapping pairs at q (kinematics into kin), into s.pairs, without forces.
void find_overlaps(const Model& model, const VecX& q, KinematicsData& kin, PenaltyScratch& s) {
  forward_kinematics(model, q, kin);
  for (int g = 0; g < model.ngeom(); ++g) {
    s.X_WG[g] = geom_pose(model, kin, g);
    s.boxes[g] = model.geoms[g].never_collides() ? Aabb::none() : s.geometry->aabb(model, g, s.X_WG[g]);
  }
  s.pairs.clear();
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [a, b] : s.bp.find_pairs(model, s.boxes)) {
    PairForce p;
    p.overlap = s.geometry->overlap(a, s.X_WG[a], b, s.X_WG[b]);
    ++s.overlap_calls;
    if (!(p.overlap.volume > 0.0)) continue;
    p.geom_a = a;
    p.geom_b = b;
    p.tracked = find_tracked(s.tracked, a, b);
    s.pairs.push_back(std::move(p));
  }
  s.overlap_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Forces of the overlapping pairs at (t, q, v, z) into s.pairs and s.tau_contact, and the
// volume each tracked pair has now into s.tracked_volume.
void contact_forces(const Model& model, const PenaltyOptions& o, double t, const VecX& q, const VecX& v,
                    const VecX& z, KinematicsData& kin, PenaltyScratch& s) {
  find_overlaps(model, q, kin, s);
  s.tau_contact.setZero();
  s.tracked_volume.assign(s.tracked.size(), 0.0);
  s.tracked_bristle_rate.assign(s.tracked.size(), Vec3::Zero());
  for (PairForce& p : s.pairs) {
    const Geom &ga = model.geoms[p.geom_a], &gb = model.geoms[p.geom_b];
    const RigidVelocity va(model, kin, v, ga.body), vb(model, kin, v, gb.body);
    double rate = 0.0, gain = 0.0;
    Vec3 bristle = Vec3::Zero();
    const Mat3 R_WA = has_bristle(o) ? kin.X_WB[ga.body].R() : Mat3::Identity();  // (the bristle lives in A's frame)
    if (o.rate == PenaltyRate::Exact) rate = volume_rate(p.overlap, va, vb);
    if (p.tracked >= 0) {
      const TrackedPair& tp = s.tracked[p.tracked];
      if (o.rate == PenaltyRate::Filtered) rate = z[tp.z + 1];
      gain = impact_gain(o, t, tp.since, tp.approach_speed, movable_mass(model, ga.body) + movable_mass(model, gb.body));
      s.tracked_volume[p.tracked] = p.overlap.volume;
      if (has_bristle(o)) bristle = R_WA * z.segment<3>(tp.z + 2);
    }
    const double mu = model.contact_material(ga.material, gb.material).friction;
    const Vec3 c = p.overlap.centroid;
    p.force = penalty_force(o, p.overlap, rate, gain, mu, vb(c) - va(c), bristle);
    if (p.tracked >= 0 && has_bristle(o))
      s.tracked_bristle_rate[p.tracked] = R_WA.transpose() * bristle_rate(o, mu, p.force.slip, bristle);
    add_contact_wrench(kin, ga.body, c, gb.body, c, p.force.on_b(), Vec3::Zero(), s.tau_contact, s.chain);
  }
}

// Starts the step's tracking at the state: slots for the pairs overlapping now (new ones at
// their volume, at rest, with their approach speed), none for the rest.
void track_pairs(const Model& model, const PenaltyOptions& o, State& state, Workspace& w, PenaltyScratch& s) {
  find_overlaps(model, state.q, w.kin, s);
  state.contacts.begin();
  for (const PairForce& p : s.pairs) {
    const bool is_new = state.contacts.find({p.geom_a, p.geom_b, 0}) == nullptr;
    ContactSlot& slot = state.contacts.touch({p.geom_a, p.geom_b, 0}, state.t);
    if (!is_new) continue;
    const Geom &ga = model.geoms[p.geom_a], &gb = model.geoms[p.geom_b];
    const Vec3 n = -reaction_direction(p.overlap, o.direction).normalized();
    const Vec3& c = p.overlap.centroid;
    const Vec3 v_rel = RigidVelocity(model, w.kin, state.v, gb.body)(c) - RigidVelocity(model, w.kin, state.v, ga.body)(c);
    slot.values[kFilteredVolume] = p.overlap.volume;
    slot.values[kFilteredRate] = 0.0;
    slot.values[kApproachSpeed] = n.allFinite() ? std::max(0.0, -v_rel.dot(n)) : 0.0;
  }
  state.contacts.end();
  s.tracked.clear();
  state.contacts.for_each([&](const ContactSlot& slot) {
    s.tracked.push_back({slot.key.geom_a, slot.key.geom_b, slot.since, slot.values[kApproachSpeed], 0});
  });
  std::sort(s.tracked.begin(), s.tracked.end(), [](const TrackedPair& x, const TrackedPair& y) {
    return std::pair{x.geom_a, x.geom_b} < std::pair{y.geom_a, y.geom_b};
  });
  const Eigen::Index stride = pair_states(o);
  s.x.z.resize(stride * static_cast<Eigen::Index>(s.tracked.size()));
  for (size_t k = 0; k < s.tracked.size(); ++k) {
    TrackedPair& tp = s.tracked[k];
    tp.z = stride * static_cast<Eigen::Index>(k);
    const ContactSlot* slot = state.contacts.find({tp.geom_a, tp.geom_b, 0});
    s.x.z[tp.z] = slot->values[kFilteredVolume];
    s.x.z[tp.z + 1] = slot->values[kFilteredRate];
    if (has_bristle(o)) s.x.z.segment<3>(tp.z + 2) = Vec3(slot->values[kBristle], slot->values[kBristle + 1], slot->values[kBristle + 2]);
  }
}

void report(const Model& model, const PenaltyScratch& s, StepResult& result) {
  for (const PairForce& p : s.pairs) {
    ContactResult r;
    r.geom_a = p.geom_a;
    r.geom_b = p.geom_b;
    r.body_a = model.geoms[p.geom_a].body;
    r.body_b = model.geoms[p.geom_b].body;
    r.position = p.overlap.centroid;
    r.normal = p.force.normal;
    r.depth = overlap_depth(p.overlap, p.force.normal);
    r.fn = p.force.magnitude;
    r.ft = p.force.friction;
    r.slip = p.force.slip;
    r.mu = model.contact_material(model.geoms[p.geom_a].material, model.geoms[p.geom_b].material).friction;
    r.cone_error = coulomb_cone_error(r.fn, r.ft, r.mu);
    r.alignment_error = alignment_error(r.ft, r.slip);
    r.volume = p.overlap.volume;
    result.contacts.push_back(r);
  }
}

}  // namespace

void validate_penalty(const Model& model, const PenaltyOptions& o) {
  auto check = [](const char* key, double x, bool zero_ok) {
    if (!(x > 0.0 || (zero_ok && x == 0.0)) || !std::isfinite(x))
      throw InputError(std::string("options: penalty: ") + key + " must be a finite number " + (zero_ok ? ">= 0" : "> 0") +
                       ", got " + show(x));
  };
  auto positive = [&](const char* key, double x) { check(key, x, false); };
  auto non_negative = [&](const char* key, double x) { check(key, x, true); };
  positive("stiffness", o.stiffness);
  non_negative("damping", o.damping);
  non_negative("impact_gain", o.impact_gain);
  positive("target_depth", o.target_depth);
  non_negative("impact_delay", o.impact_delay);
  positive("filter_frequency", o.filter_frequency);
  positive("filter_damping", o.filter_damping);
  non_negative("friction_smoothing", o.friction_smoothing);
  non_negative("viscous_friction", o.viscous_friction);
  positive("stick_length", o.stick_length);
  positive("atol", o.atol);
  non_negative("rtol", o.rtol);
  positive("max_step", o.max_step);
  positive("limit_frequency", o.limit_frequency);
  positive("limit_damping", o.limit_damping);
  non_negative("joint_friction_smoothing", o.joint_friction_smoothing);
  require_no_equalities(model);
  for (const Joint& j : model.joints)
    if ((j.limited || j.frictionloss > 0.0) && joint_nv(j.type) != 1)
      throw InputError("joint '" + j.name + "': the penalty stepper takes limits and frictionloss on hinges and "
                       "sliders only");
}

void step_penalty(const Model& model, State& state, const Input& input, const Formulation& f, Workspace& ws,
                  StepResult* result) {
  const PenaltyOptions& o = f.penalty;
  PenaltyScratch& s = prepare(model, o, ws);
  for (size_t k = 0; k < model.kinematic_dofs.size(); ++k)
    state.v[model.kinematic_dofs[k]] = input.kinematic_v[static_cast<Eigen::Index>(k)];
  track_pairs(model, o, state, ws, s);

  auto rhs = [&](double t, const VecX& q, const VecX& v, const VecX& z, VecX& vdot, VecX& zdot) {
    contact_forces(model, o, t, q, v, z, ws.kin, s);
    add_joint_forces(model, o, s.joints, q, v, s.tau_contact);
    s.fd.accelerations(model, ws.kin, input, q, v, s.qacc_prescribed, &s.tau_contact, vdot, nullptr);
    for (size_t k = 0; k < s.tracked.size(); ++k) {
      const Eigen::Index i = s.tracked[k].z;
      volume_filter_rate(o, s.tracked_volume[k], z[i], z[i + 1], zdot[i], zdot[i + 1]);
      if (has_bristle(o)) zdot.segment<3>(i + 2) = s.tracked_bristle_rate[k];
    }
  };
  s.x.t = state.t;
  s.x.q = state.q;
  s.x.v = state.v;
  s.rk->reset(s.x, state.step_size);
  const std::int64_t calls_before = s.overlap_calls;
  const double overlap_s_before = s.overlap_seconds;
  const double t_end = state.t + model.options.dt;
  s.rk->step_to(rhs, t_end);
  const OdeState& x = s.rk->state();
  state.q = x.q;
  state.v = x.v;
  state.t = t_end;
  state.step += 1;
  state.step_size = s.rk->h_next();
  state.contacts.begin();  // the same pairs: only their filter states change
  for (const TrackedPair& tp : s.tracked) {
    ContactSlot& slot = state.contacts.touch({tp.geom_a, tp.geom_b, 0}, tp.since);
    slot.values[kFilteredVolume] = x.z[tp.z];
    slot.values[kFilteredRate] = x.z[tp.z + 1];
    if (has_bristle(o))
      for (int i = 0; i < 3; ++i) slot.values[kBristle + i] = x.z[tp.z + 2 + i];
  }
  state.contacts.end();

  // What the recorder reads: the forces at the new state, and the efforts there.
  contact_forces(model, o, state.t, state.q, state.v, x.z, ws.kin, s);
  add_joint_forces(model, o, s.joints, state.q, state.v, s.tau_contact);
  s.fd.accelerations(model, ws.kin, input, state.q, state.v, s.qacc_prescribed, &s.tau_contact, ws.qacc,
                     &ws.actuator_effort);
  if (!result) return;
  *result = StepResult{};
  result->solver = "rk45";
  report(model, s, *result);
  const Rk45Stats& st = s.rk->stats();
  result->penalty.valid = true;
  result->penalty.accepted = st.accepted;
  result->penalty.rejected = st.rejected;
  result->penalty.evaluations = st.evaluations;
  result->penalty.overlap_calls = s.overlap_calls - calls_before;
  result->penalty.overlap_seconds = s.overlap_seconds - overlap_s_before;
  result->solver_iterations = static_cast<int>(st.accepted);
}

}  // namespace graspsim
