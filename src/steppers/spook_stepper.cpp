#include "steppers/spook_stepper.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <tuple>

#include "core/error.h"
#include "collision/broadphase.h"
#include "contact/contact_kinematics.h"
#include "dynamics/actuation.h"
#include "dynamics/dynamics.h"
#include "kinematics/integrate.h"
#include "metrics/contact_metrics.h"
#include "contact/friction_directions.h"
#include "spook/parameters.h"
#include "spook/problem.h"
#include "spook/scratch.h"
#include "steppers/jacobian_rows.h"
#include "steppers/spook_scratch.h"

namespace graspsim {

void ScratchDeleter::operator()(SpookScratch* p) const { delete p; }

namespace {

// SPOOK's per-pair values in ContactSlot::values: the last normal impulse (N·s; box
// friction's bounds, warm start), the last friction force on B (N, world; warm start,
// the multi-directional model's choice) and the point's position (world; to recognise a
// point whose feature id changed, below).
constexpr int kNormalImpulse = 0, kFrictionForce = 1, kPosition = 4;
double normal_impulse(const ContactSlot& m) { return m.values[kNormalImpulse]; }
Vec3 friction_force(const ContactSlot& m) {
  return Vec3(m.values[kFrictionForce], m.values[kFrictionForce + 1], m.values[kFrictionForce + 2]);
}

using spook::FrictionTreatment;
using spook::RowKind;

// Friction rows are velocity-level; a tiny compliance keeps redundant rows (a box's four
// corners give 8 friction rows for 3 tangential dofs) well posed. As viscous creep it is
// 1e-10 (m/s)/N: a 20 N grip creeps 2 nm/s, 20 nm over a 10 s hold.
constexpr double kFrictionCreep = 1e-10;
// Joint limits are rigid; violations relax over this many steps.
constexpr double kLimitRelaxSteps = 2.0;
// Below this approach speed (m/s) restitution does not apply (resting contact).
constexpr double kRestitutionSpeed = 1e-2;

struct RowBuilder {
  std::vector<double>& target;
  std::vector<double>& compliance;
  std::vector<double>& lo;
  std::vector<double>& hi;
  std::vector<RowKind>& kind;
  JacobianEntries& jac;

  RowEntries& entries;
  // (row, entry of State::constraint_forces) of each row that is not a contact.
  std::vector<std::pair<int, int>>& remembered;

  // A lone row u·(x_B(c_b) − x_A(c_a)) (contact_kinematics' relative_row_at); returns J·v.
  double add_row_at(const KinematicsData& kin, int row, int body_a, const Vec3& c_a, int body_b, const Vec3& c_b,
                    const Vec3& u, const VecX& v, bool angular = false) {
    entries.clear();
    const double jv = relative_row_at(kin, body_a, c_a, body_b, c_b, u, v, angular, entries);
    for (const auto& [d, x] : entries) jac.add(row, d, x);
    return jv;
  }
  // A row u·(x_B − x_A) from two chains at the contact point.
  void add_chain_row(int row, const PointChain& a, const PointChain& b, const Vec3& u) {
    // Plain pointers, not a structured binding: clang 14 (the fuzz build) cannot capture those.
    const std::pair<int*, double*> out = jac.extend(row, static_cast<int>(a.size() + b.size()));
    int* col = out.first;
    double* val = out.second;
    relative_row(a, b, u, [&](int d, double x) { *col++ = d, *val++ = x; });
  }

  int add(RowKind k, double tgt, double comp, double l, double u) {
    jac.start_row();
    kind.push_back(k);
    target.push_back(tgt);
    compliance.push_back(comp);
    lo.push_back(l);
    hi.push_back(u);
    return static_cast<int>(kind.size()) - 1;
  }
  int size() const { return static_cast<int>(kind.size()); }
  // Row r warm-starts from, and is remembered at, State::constraint_forces[slot].
  void remember(int r, int slot) { remembered.emplace_back(r, slot); }
};

// Velocity of the point of `body` at c (world), from the spatial velocity.
Vec3 point_velocity(const Model& model, const KinematicsData& kin, const VecX& v, int body, const Vec3& c) {
  if (body == 0) return Vec3::Zero();
  const Vec6 V = spatial_velocity(model, kin, v, body);
  return V.tail<3>() + V.head<3>().cross(c);
}

// ---- 1. free motion ---------------------------------------------------------------------

// Whether the tree of bodies [root, end) is one body on a free joint.
bool lone_free_body(const Model& model, int root, int end) {
  return end == root + 1 && model.joints[model.bodies[root].joint].type == JointType::Free;
}

// A lone free body's gyroscopic torque −ω × Iω, taken explicitly, pumps energy into a fast
// spin at large steps: an elongated box tumbling at 1/60 s grew from 300 to 1e10 rad/s in half a
// second of free flight. Linearised implicitly (Catto's implicit gyroscopic step), its Jacobian
// G = [ω]× I − [Iω]× joins the angular block of the free-motion solve: (M + hD + hG) Δv = h rhs.
// G is not symmetric, so this 6 × 6 solve uses LU; the constraint solve keeps M's Cholesky.
// Returns false (nothing done) for every other kind of tree.
bool implicit_gyroscopic(const Model& model, int root, int end, const Eigen::Ref<const VecX>& v,
                         const Eigen::Ref<const MatX>& Mh, double h, Eigen::Ref<VecX> rhs) {
  if (!lone_free_body(model, root, end)) return false;
  const Vec3 w = v.tail<3>();
  const Mat3 I = Mh.bottomRightCorner<3, 3>();  // body-frame inertia about the origin (+ hD)
  const Mat3 Aww = I + h * (skew(w) * I - skew(I * w));
  const Eigen::Matrix<double, 6, 6> M6 = Mh;
  const Mat3 Mvv = M6.topLeftCorner<3, 3>();
  if (M6.topRightCorner<3, 3>().isZero(0.0) && Mvv.isDiagonal(0.0)) {
    // Centre of mass at the origin: translation and rotation decouple (two small solves).
    rhs.head<3>().array() /= Mvv.diagonal().array();
    rhs.tail<3>() = Aww.partialPivLu().solve(Vec3(rhs.tail<3>()));
    return true;
  }
  Eigen::Matrix<double, 6, 6> A = M6;
  A.bottomRightCorner<3, 3>() = Aww;
  rhs = A.partialPivLu().solve(Eigen::Matrix<double, 6, 1>(rhs));
  return true;
}

// Fills problem.trees and problem.v_free (ws.kin holds the kinematics of s.q); records
// force-actuator efforts.
void free_motion(const Model& model, const State& s, const Input& in, Workspace& ws, SpookScratch& sc) {
  const double h = model.options.dt;
  const int nv = model.nv;
  spook::Problem& P = sc.problem;
  bias_forces(model, ws.kin, s.v, sc.bias, &sc.asleep);  // (asleep trees are not in the problem)
  passive_forces(model, s.q, s.v, sc.tau);
  // Joint damping is implicit: (M + hD)(v⁺ − v) = h(τ − c), τ keeping its −Dv, so that
  // M v⁺ = M v + h(τ_other − c − Dv⁺) dissipates at any h.
  VecX& damping = sc.damping;
  damping.setZero(nv);
  for (const Joint& j : model.joints)
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) damping[d] = j.damping;
  // Servos are rows (implicit PD); force actuators act here.
  add_actuator_forces(model, in, s.q, s.v, &ws.actuator_effort, sc.tau, ServoForces::Skip);
  VecX& rhs = sc.rhs;
  rhs = sc.tau - sc.bias;

  P.nv = nv;
  P.v_free = s.v;  // (an asleep tree's v is zero and stays so: it is not in P.trees)
  int ntrees = 0;  // P.trees keeps its elements (and their factor storage)
  Eigen::Index kinematic = 0;  // next entry of in.kinematic_v (kinematic dofs ascending)
  // Trees hanging from the world own contiguous dof ranges (depth-first body order).
  for (int root = 1; root < model.nbody();) {
    const int end = tree_end(model, root);
    const int vb = model.joints[model.bodies[root].joint].vadr;
    const int ve = end < model.nbody() ? model.joints[model.bodies[end].joint].vadr : nv;
    // Kinematic bodies lead their tree; the dynamic dofs after them form the tree's block.
    int f0 = vb;
    for (int b = root; b < end; ++b) {
      const Joint& j = model.joints[model.bodies[b].joint];
      if (model.bodies[b].kinematic) {
        if (f0 != j.vadr)
          require(false, "body '" + model.bodies[b].name + "'",
                  "a kinematic body must hang from the world or from other kinematic bodies");
        for (int k = 0; k < j.nv; ++k) P.v_free[j.vadr + k] = in.kinematic_v[kinematic++];
        f0 = j.vadr + j.nv;
      }
    }
    const int n = ve - f0;
    if (n > 0 && !sc.asleep[root]) {
      // The tree's block of M (M is block diagonal over trees: no nv × nv matrix).
      // (Per-tree storage and views of nv-sized buffers: trees differ in size, and one
      // matrix resized for each would reallocate every step.)
      if (ntrees == static_cast<int>(sc.tree_M.size())) sc.tree_M.emplace_back();
      MatX& M = sc.tree_M[ntrees];
      if (lone_free_body(model, root, end))
        free_body_mass_matrix(model, root, ws.kin.R_WB[root], M);  // (constant when the origin is the COM)
      else
        mass_matrix_block(model, ws.kin, vb, ve - vb, M);
      // Prescribed accelerations act on the dynamic dofs through M_fp.
      if (sc.rhs_f.size() < nv) sc.rhs_f.resize(nv), sc.qacc_prescribed.resize(nv);
      Eigen::Map<VecX> a_p(sc.qacc_prescribed.data(), f0 - vb), rhs_f(sc.rhs_f.data(), n);
      a_p = (P.v_free.segment(vb, f0 - vb) - s.v.segment(vb, f0 - vb)) / h;
      rhs_f = rhs.segment(f0, n);
      if (f0 > vb) rhs_f.noalias() -= M.block(f0 - vb, 0, n, f0 - vb) * a_p;
      auto Mh = M.block(f0 - vb, f0 - vb, n, n);
      Mh.diagonal() += h * damping.segment(f0, n);
      if (ntrees == static_cast<int>(P.trees.size())) P.trees.emplace_back();
      spook::Tree& tree = P.trees[ntrees++];
      tree.v_begin = f0;
      tree.nv = n;
      // A block bitwise equal to this tree's last one keeps its factor (constant blocks: lone
      // free bodies, sliders on the world), and the operators then keep its inverse too.
      if (ntrees > static_cast<int>(sc.tree_Mh.size())) sc.tree_Mh.resize(static_cast<size_t>(ntrees));
      MatX& Mh_last = sc.tree_Mh[ntrees - 1];
      // A large tree's block has its tree's pattern and is factored without fill-in.
      const bool sparse = n > spook::kDenseInverseMaxNv;
      const bool same = Mh_last.rows() == n && Mh_last == Mh &&
                        (sparse ? tree.sparse() : tree.M_llt.rows() == n && tree.M_llt.info() == Eigen::Success);
      if (!same) {
        bool ok;
        if (sparse) {
          sc.tree_parent.resize(static_cast<size_t>(n));
          for (int i = 0; i < n; ++i) sc.tree_parent[i] = std::max(ws.kin.dof_parent[f0 + i] - f0, -1);
          ok = tree.M_tree.compute(Mh, sc.tree_parent);
        } else {
          tree.M_tree.reset();
          tree.M_llt.compute(Mh);
          ok = tree.M_llt.info() == Eigen::Success;
        }
        if (!ok)
          throw std::runtime_error("spook: the mass matrix of the tree of body '" + model.bodies[root].name +
                                   "' is not positive definite");
        Mh_last = Mh;
      }
      if (!implicit_gyroscopic(model, root, end, s.v.segment(f0, n), Mh, h, rhs_f)) tree.solve_in_place(rhs_f);
      P.v_free.segment(f0, n) = s.v.segment(f0, n) + h * rhs_f;
    }
    root = end;
  }
  P.trees.resize(static_cast<size_t>(ntrees));
}

// ---- 2b. sleeping: spook_sleep.cpp

// ---- 3. assembly ------------------------------------------------------------------------

double contact_stiffness(const Model& model, const ContactMaterial& cm, const ContactSet& cs, const ContactPoint& p,
                         const SpookScratch& sc) {
  if (cm.spook.area == ContactArea::Point) return cm.spook.young_modulus;
  double area = p.area;
  if (area <= 0.0 && cs.patch_area > 0.0) area = cs.patch_area / static_cast<double>(cs.points.size());
  if (area <= 0.0) return cm.spook.young_modulus;  // a point contact has no patch: fall back
  const double rest = geom_thickness(model, cs.geom_a, sc.X_WG[cs.geom_a], p.normal) +
                      geom_thickness(model, cs.geom_b, sc.X_WG[cs.geom_b], p.normal);
  return cm.spook.young_modulus * area / std::max(rest, 1e-9);
}

// Moment arm of torsional friction (m) for one contact point, see ContactMaterial.
double torsion_arm(const ContactMaterial& cm, const ContactSet& cs, const ContactPoint& p) {
  if (cm.spook.torsional_friction > 0.0) return cm.spook.torsional_friction;
  if (cm.spook.area == ContactArea::Area && cs.points.size() == 1 && p.area > 0.0)
    return 2.0 / 3.0 * cm.friction * std::sqrt(p.area / std::numbers::pi);
  return 0.0;
}

// Friction directions of one contact point per the material's model; returns the treatment.
FrictionTreatment friction_directions(const ContactMaterial& cm, const Vec3& n,
                                      const Pose& X_WA, const ContactSlot* memory, const Vec3& slip, State& s,
                                      std::vector<Vec3>& out) {
  TangentPair t;
  switch (cm.spook.friction_model) {
    case FrictionModel::Box:
    case FrictionModel::ScaledBox:
    case FrictionModel::Cone: t = box_tangents(n); break;
    case FrictionModel::OrientedBox: t = oriented_tangents(n, X_WA.q * cm.spook.primary_direction); break;
    case FrictionModel::Randomized: t = randomized_tangents(n, s.rng); break;
    case FrictionModel::MultiDirectional: {
      const std::vector<Vec3> dirs = tangent_directions(n, cm.spook.tangents);
      const auto choice = choose_directions(dirs, memory ? friction_force(*memory) : Vec3::Zero(), slip);
      t = {dirs[choice.primary], dirs[choice.secondary]};
      break;
    }
    case FrictionModel::Polyhedral: {
      const std::vector<Vec3> dirs = tangent_directions(n, cm.spook.tangents);
      out.insert(out.end(), dirs.begin(), dirs.end());
      return FrictionTreatment::Polyhedral;
    }
  }
  out.push_back(t.t1);
  out.push_back(t.t2);
  if (cm.spook.friction_model == FrictionModel::Box) return FrictionTreatment::BoxFixed;
  if (cm.spook.friction_model == FrictionModel::Cone) return FrictionTreatment::Cone;
  return FrictionTreatment::BoxScaled;
}

// Impulse the normal row would take alone: the bound of box friction on a new contact
// ("estimated from the impact speed", here including what gravity adds over the step).
double lone_normal_impulse(const spook::Problem& P, const Eigen::SparseMatrix<double, Eigen::RowMajor>& J, int row,
                           double target, double compliance) {
  using RowIt = Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator;
  double jv = 0.0, D = compliance;
  for (RowIt it(J, row); it; ++it) jv += it.value() * P.v_free[it.col()];
  // The row touches at most two trees (trees are sorted by v_begin): D = Σ x M_tree⁻¹ x.
  int done = -1;
  for (RowIt it(J, row); it; ++it) {
    auto t = std::upper_bound(P.trees.begin(), P.trees.end(), static_cast<int>(it.col()),
                              [](int col, const spook::Tree& tree) { return col < tree.v_begin; });
    if (t == P.trees.begin()) continue;
    const int ti = static_cast<int>(t - P.trees.begin()) - 1;
    const spook::Tree& tree = P.trees[ti];
    if (ti == done || it.col() >= tree.v_begin + tree.nv) continue;  // seen, or a prescribed dof
    VecX x = VecX::Zero(tree.nv);
    for (RowIt jt(J, row); jt; ++jt)
      if (jt.col() >= tree.v_begin && jt.col() < tree.v_begin + tree.nv) x[jt.col() - tree.v_begin] = jt.value();
    VecX y = x;
    tree.solve_in_place(y);
    D += x.dot(y);
    done = ti;
  }
  return D > 0.0 ? std::max(0.0, (target - jv) / D) : 0.0;
}

// A point new by its feature id may be an old one renamed: two resting boxes' faces are
// equally deep, the reference face alternates between them, and every point of the pair gets
// a new id while staying put. Its memory is then the pair's point last step at the same place
// (within kSamePoint), so the warm start is not lost: losing it on 8 of a 2-box column's 12
// points every few steps left the Iterative solver 16 sweeps from zero and kicked the column
// to 1 mm/s. `pair` holds the pair's slots (ContactTable::find_pair).
constexpr double kSamePoint = 1e-5;  // m
const ContactSlot* same_point_memory(const std::vector<const ContactSlot*>& pair, const ContactPoint& p) {
  const ContactSlot* best = nullptr;
  double best_d2 = kSamePoint * kSamePoint;
  for (const ContactSlot* m : pair) {
    const Vec3 at(m->values[kPosition], m->values[kPosition + 1], m->values[kPosition + 2]);
    const double d2 = (at - p.position).squaredNorm();
    if (d2 <= best_d2) best = m, best_d2 = d2;
  }
  return best;
}

// The slot of the point's own key among its pair's (in key order: the one find() returns).
const ContactSlot* own_memory(const std::vector<const ContactSlot*>& pair, const ContactPoint& p) {
  for (const ContactSlot* m : pair)
    if (m->key.feature == p.feature) return m;
  return nullptr;
}

void add_contact_rows(const Model& model, State& s, const Workspace& ws, SpookScratch& sc, RowBuilder& rows,
                      std::vector<std::pair<int, double>>& box_fixed) {
  const double h = model.options.dt;
  spook::Problem& P = sc.problem;
  const double comp = spook::velocity_compliance(kFrictionCreep, h);  // (every friction row's)
  sc.sleeping_sets.clear();
  for (int si = 0; si < static_cast<int>(sc.contact_sets.size()); ++si) {
    const ContactSet& cs = sc.contact_sets[si];
    const Geom &ga = model.geoms[cs.geom_a], &gb = model.geoms[cs.geom_b];
    if (sleeping_pair(sc, ga.body, gb.body)) {
      sc.sleeping_sets.push_back(si);
      continue;
    }
    const ContactMaterial& cm = model.contact_material(ga.material, gb.material);
    s.contacts.find_pair(cs.geom_a, cs.geom_b, sc.pair_memory);  // (one search a pair, not one a point)
    for (int pi = 0; pi < static_cast<int>(cs.points.size()); ++pi) {
      const ContactPoint& p = cs.points[pi];
      ContactRowsInfo info;
      info.set = si;
      info.point = pi;
      info.body_a = ga.body;
      info.body_b = gb.body;
      info.mu = cm.friction;
      const ContactSlot* memory = own_memory(sc.pair_memory, p);
      info.slot = memory ? s.contacts.index_of(*memory) : -1;
      if (!memory) memory = same_point_memory(sc.pair_memory, p);
      info.memory = memory;

      // Every row of the contact is u·(v_B − v_A) at the point: one walk of each body's dofs.
      point_chain(ws.kin, ga.body, p.position, sc.chain_a);
      point_chain(ws.kin, gb.body, p.position, sc.chain_b);
      const Vec3 rel = chain_velocity(sc.chain_b, s.v) - chain_velocity(sc.chain_a, s.v);
      const int nrow = rows.add(RowKind::Normal, 0.0, 0.0, 0.0, kInf);
      rows.add_chain_row(nrow, sc.chain_a, sc.chain_b, p.normal);
      const double jv = rel.dot(p.normal);
      const auto params = spook::spook_parameters(contact_stiffness(model, cm, cs, p, sc), cm.spook.damping, h);
      // A speculative contact (still apart by g > 0) may close its gap in this step but not
      // cross it; SPOOK's spring-damper target applies once the solids touch.
      double target = p.depth < 0.0 ? p.depth / h : spook::spook_target(params, h, -p.depth, jv);
      // The relax pass keeps no velocity from undoing penetration: touching solids aim at 0
      // (or their bounce), a speculative contact still at closing its gap.
      info.relax_target = p.depth < 0.0 ? target : 0.0;
      if (cm.restitution > 0.0 && jv < -kRestitutionSpeed) {
        target = std::max(target, -cm.restitution * jv);
        info.relax_target = std::max(info.relax_target, -cm.restitution * jv);
      }
      rows.target[nrow] = target;
      rows.compliance[nrow] = params.sigma;

      const Vec3 slip = rel - jv * p.normal;
      info.first_direction = static_cast<int>(sc.directions.size());
      const FrictionTreatment treatment =
          friction_directions(cm, p.normal, sc.X_WG[cs.geom_a], memory, slip, s, sc.directions);
      info.ndirections = static_cast<int>(sc.directions.size()) - info.first_direction;

      if (sc.ncontacts == static_cast<int>(P.contacts.size())) P.contacts.emplace_back();
      spook::ContactRows& cr = P.contacts[sc.ncontacts];
      cr.friction.clear();
      cr.torsion = -1;
      cr.torsion_mu = 0.0;
      cr.normal = nrow;
      cr.solver = cm.spook.solver;  // an island runs the strongest its contacts ask for (ContactRows)
      cr.mu = cm.friction;
      cr.treatment = treatment;
      const bool one_sided = treatment == FrictionTreatment::Polyhedral;
      for (int k = 0; k < info.ndirections; ++k) {
        const int r = rows.add(RowKind::Friction, 0.0, comp, one_sided ? 0.0 : -kInf, kInf);
        rows.add_chain_row(r, sc.chain_a, sc.chain_b, sc.directions[info.first_direction + k]);
        cr.friction.push_back(r);
      }
      if (const double arm = torsion_arm(cm, cs, p); arm > 0.0) {
        cr.torsion = rows.add(RowKind::Friction, 0.0, comp, -kInf, kInf);
        cr.torsion_mu = arm;
        rows.add_row_at(ws.kin, cr.torsion, ga.body, p.position, gb.body, p.position, p.normal, s.v, true);
      }
      if (treatment == FrictionTreatment::BoxFixed)
        box_fixed.emplace_back(sc.ncontacts, memory ? normal_impulse(*memory) : -1.0);
      info.contact = sc.ncontacts++;
      sc.contact_rows.push_back(info);
    }
  }
}

void add_limit_rows(const Model& model, const State& s, const std::vector<char>& asleep, RowBuilder& rows) {
  const double h = model.options.dt;
  const auto params = spook::spook_parameters(kInf, kLimitRelaxSteps * h, h);
  const int slots = constraint_slots(model).limits;
  for (size_t ji = 0; ji < model.joints.size(); ++ji) {
    const Joint& j = model.joints[ji];
    if (!j.limited || model.bodies[j.body].kinematic || asleep[j.body]) continue;
    const double q = s.q[j.qadr], v = s.v[j.vadr];
    // A row once the joint could reach the limit within this step.
    const double reach = std::abs(v) * h;
    for (int side = 0; side < 2; ++side) {
      const double gap = side == 0 ? q - j.lower : j.upper - q, sign = side == 0 ? 1.0 : -1.0;
      if (gap > reach) continue;
      const int r = rows.add(RowKind::Limit, spook::spook_target(params, h, gap, sign * v), params.sigma, 0.0, kInf);
      rows.jac.add(r, j.vadr, sign);
      rows.remember(r, slots + 2 * static_cast<int>(ji) + side);
    }
  }
}

// q_a − ref_a − p(q_b − ref_b) = 0: one row, e_a − p'(q_b − ref_b) e_b.
void add_joint_coupling_row(const Model& model, const State& s, const Equality& e, const spook::SpookParameters& params,
                            RowBuilder& rows) {
  const Joint& ja = model.joints[e.joint_a];
  double value = e.poly[0], slope = 0.0, rate = s.v[ja.vadr];
  if (e.joint_b >= 0) {
    const Joint& jb = model.joints[e.joint_b];
    const double x = s.q[jb.qadr] - e.ref_b;
    double xk = 1.0;  // x^(k−1)
    for (int k = 1; k < 5; ++k) {
      slope += k * e.poly[k] * xk;
      xk *= x;
      value += e.poly[k] * xk;
    }
    rate -= slope * s.v[jb.vadr];
  }
  const double h = model.options.dt;
  const int r = rows.add(RowKind::Equality, 0.0, params.sigma, -kInf, kInf);
  rows.jac.add(r, ja.vadr, 1.0);
  if (e.joint_b >= 0) rows.jac.add(r, model.joints[e.joint_b].vadr, -slope);
  rows.target[r] = spook::spook_target(params, h, s.q[ja.qadr] - e.ref_a - value, rate);
}

// A loop closure: connect (3 rows: the anchors coincide) and weld (3 more: the relative
// orientation), or a joint coupling. SPOOK rows with the equality's stiffness (default
// rigid) and relaxation time (default two steps).
void add_equality(const Model& model, const State& s, const KinematicsData& kin, const Equality& e, RowBuilder& rows) {
  const double h = model.options.dt;
  const auto params = spook::spook_parameters(e.stiffness, e.damping > 0.0 ? e.damping : 2.0 * h, h);
  if (e.type == EqualityType::Joint) {
    add_joint_coupling_row(model, s, e, params, rows);
    return;
  }
  const Pose& XA = kin.X_WB[e.body_a];
  const Pose& XB = kin.X_WB[e.body_b];
  const Vec3 pa = XA * e.anchor_a, pb = XB * e.anchor_b;
  const Vec3 gap = pb - pa;
  for (int k = 0; k < 3; ++k) {
    const int r = rows.add(RowKind::Equality, 0.0, params.sigma, -kInf, kInf);
    const double jv = rows.add_row_at(kin, r, e.body_a, pa, e.body_b, pb, Vec3::Unit(k), s.v);
    rows.target[r] = spook::spook_target(params, h, gap[k], jv);
  }
  if (e.type != EqualityType::Weld) return;
  // Rotation error of B against its target orientation, as a world rotation vector.
  const Vec3 err = quat_log(XB.q * (XA.q * e.relative).conjugate());
  for (int k = 0; k < 3; ++k) {
    const int r = rows.add(RowKind::Equality, 0.0, params.sigma, -kInf, kInf);
    const double jv = rows.add_row_at(kin, r, e.body_a, pa, e.body_b, pb, Vec3::Unit(k), s.v, true);
    rows.target[r] = spook::spook_target(params, h, err[k], jv);
  }
}

// The equalities' rows, each remembered at its slot.
void add_equality_rows(const Model& model, const State& s, const KinematicsData& kin, RowBuilder& rows) {
  const int slots = constraint_slots(model).equalities;
  for (size_t k = 0; k < model.equalities.size(); ++k) {
    const int first = rows.size();
    add_equality(model, s, kin, model.equalities[k], rows);
    for (int r = first; r < rows.size(); ++r) rows.remember(r, slots + 6 * static_cast<int>(k) + (r - first));
  }
}

// Joint dry friction (frictionloss): a zero-velocity row per dof whose impulse is bounded
// by ±frictionloss·h, so the dof sticks until the rest of the forces on it exceed that.
void add_joint_friction_rows(const Model& model, const std::vector<char>& asleep, RowBuilder& rows) {
  const double h = model.options.dt;
  const double compliance = spook::velocity_compliance(kFrictionCreep, h);
  const int slots = constraint_slots(model).friction;
  for (const Joint& j : model.joints) {
    if (j.frictionloss <= 0.0 || model.bodies[j.body].kinematic || asleep[j.body]) continue;
    for (int d = j.vadr; d < j.vadr + j.nv; ++d) {
      const int r = rows.add(RowKind::Bounded, 0.0, compliance, -j.frictionloss * h, j.frictionloss * h);
      rows.jac.add(r, d, 1.0);
      rows.remember(r, slots + d);
    }
  }
}

// Position and velocity servos become rows whose impulse is bounded by the effort limits:
// implicit PD control that stays stable at any gain.
void add_servo_rows(const Model& model, const State& s, const Input& in, SpookScratch& sc, RowBuilder& rows) {
  const double h = model.options.dt;
  sc.actuator_row.assign(model.actuators.size(), -1);
  const int slots = constraint_slots(model).servos;
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const Actuator& a = model.actuators[i];
    if (a.type == ActuatorType::Force) continue;
    const double set_point = actuator_set_point(a, in.ctrl[static_cast<Eigen::Index>(i)]);
    double target = 0.0, compliance = 0.0;
    if (a.type == ActuatorType::Position && a.kp > 0.0) {
      const auto params = spook::spook_parameters(a.kp, a.kv / a.kp, h);
      target = spook::spook_target(params, h, actuator_length(a, s.q) - set_point, actuator_rate(a, s.v));
      compliance = params.sigma;
    } else {
      if (a.kv <= 0.0) continue;  // no gain: no effort
      target = a.type == ActuatorType::Velocity ? set_point : 0.0;
      compliance = spook::velocity_compliance(1.0 / a.kv, h);
    }
    const int r = rows.add(RowKind::Bounded, target, compliance, a.effort_min * h, a.effort_max * h);
    for (const TransmissionTerm& t : a.transmission) rows.jac.add(r, t.vadr, t.coef);
    rows.remember(r, slots + static_cast<int>(i));
    sc.actuator_row[i] = r;
  }
}

// The rest of the problem's structure that the solver's layout depends on: the trees' dof
// ranges and the contacts' rows, flattened.
void structure_key(const spook::Problem& P, std::vector<int>& key) {
  key.clear();
  for (const spook::Tree& t : P.trees) key.push_back(t.v_begin), key.push_back(t.nv);
  for (const spook::ContactRows& c : P.contacts) {
    key.push_back(c.normal);
    key.push_back(static_cast<int>(c.friction.size()));
    key.insert(key.end(), c.friction.begin(), c.friction.end());
    key.push_back(c.torsion);
  }
}

void assemble(const Model& model, State& s, const Input& in, const Workspace& ws, bool relax, SpookScratch& sc) {
  spook::Problem& P = sc.problem;
  sc.ncontacts = 0;  // P.contacts keeps its elements (and their row lists' storage)
  sc.contact_rows.clear();
  sc.directions.clear();
  sc.jacobian.clear();
  for (auto* v : {&sc.row_target, &sc.row_compliance, &sc.row_lo, &sc.row_hi}) v->clear();
  sc.row_kind.clear();
  sc.remembered_rows.clear();
  RowBuilder rows{sc.row_target, sc.row_compliance, sc.row_lo, sc.row_hi, sc.row_kind, sc.jacobian, sc.row_entries,
                  sc.remembered_rows};
  std::vector<std::pair<int, double>>& box_fixed = sc.box_fixed;
  box_fixed.clear();
  add_contact_rows(model, s, ws, sc, rows, box_fixed);
  P.contacts.resize(static_cast<size_t>(sc.ncontacts));
  add_limit_rows(model, s, sc.asleep, rows);
  add_equality_rows(model, s, ws.kin, rows);
  add_servo_rows(model, s, in, sc, rows);
  add_joint_friction_rows(model, sc.asleep, rows);

  const int n = rows.size();
  const bool pattern_kept = fill_rows(sc.jacobian, n, model.nv, P.J, sc.jacobian_layout);
  // The structure stamp (Problem::structure): kept while J's pattern, the trees and the
  // contacts' rows are last step's, a new one otherwise.
  structure_key(P, sc.structure_scratch);
  if (!pattern_kept || sc.structure_scratch != sc.structure_last || P.structure == 0) {
    std::swap(sc.structure_scratch, sc.structure_last);
    P.structure = ++sc.structure_stamps;
  }
  auto to_vec = [](const std::vector<double>& x) { return Eigen::Map<const VecX>(x.data(), static_cast<Eigen::Index>(x.size())); };
  P.target = to_vec(rows.target);
  P.compliance = to_vec(rows.compliance);
  P.lo = to_vec(rows.lo);
  P.hi = to_vec(rows.hi);
  P.kind = rows.kind;

  // Box friction bounds: μ times the previous normal impulse (or the lone estimate).
  for (auto [c, prev] : box_fixed) {
    const spook::ContactRows& cr = P.contacts[c];
    const double ln = prev >= 0.0 ? prev : lone_normal_impulse(P, P.J, cr.normal, P.target[cr.normal], P.compliance[cr.normal]);
    for (int r : cr.friction) {
      P.lo[r] = -cr.mu * ln;
      P.hi[r] = cr.mu * ln;
    }
  }

  if (relax) {  // (assigned over last step's storage: no allocation while the size holds)
    P.relax_target = P.target;
    for (const ContactRowsInfo& info : sc.contact_rows) P.relax_target[P.contacts[info.contact].normal] = info.relax_target;
  } else {
    P.relax_target.resize(0);
  }

  // Warm start from the remembered impulses of persistent contacts.
  P.lambda_warm.setZero(n);
  const double h = model.options.dt;
  for (const ContactRowsInfo& info : sc.contact_rows) {
    const ContactSlot* m = info.memory;
    if (!m) continue;
    const spook::ContactRows& cr = P.contacts[info.contact];
    P.lambda_warm[cr.normal] = normal_impulse(*m);
    if (cr.treatment == FrictionTreatment::Polyhedral) continue;
    for (int k = 0; k < info.ndirections; ++k)
      P.lambda_warm[cr.friction[k]] = h * friction_force(*m).dot(sc.directions[info.first_direction + k]);
  }
  // And the other rows from their remembered forces (a State made by hand may have none).
  if (s.constraint_forces.size() == constraint_slots(model).size)
    for (const auto& [r, slot] : sc.remembered_rows) P.lambda_warm[r] = h * s.constraint_forces[slot];
}

// ---- 5. results -------------------------------------------------------------------------

// The forces of the rows that are not contacts, for the next step's warm start (the
// contacts' go to their slots in collect_results). An entry without a row this step is
// zeroed: a limit that let go starts from zero when it engages again.
void remember_constraint_forces(const Model& model, const SpookScratch& sc, const spook::Solution& sol, State& s) {
  const int n = constraint_slots(model).size;
  if (s.constraint_forces.size() != n) s.constraint_forces.resize(n);
  s.constraint_forces.setZero();
  const double h = model.options.dt;
  for (const auto& [r, slot] : sc.remembered_rows) s.constraint_forces[slot] = sol.lambda[r] / h;
}

ContactResult contact_result(const ContactSet& cs, const ContactPoint& p, int body_a, int body_b, double fn,
                             const Vec3& ft, double mu, double torsion) {
  ContactResult r;
  r.geom_a = cs.geom_a;
  r.geom_b = cs.geom_b;
  r.body_a = body_a;
  r.body_b = body_b;
  r.position = p.position;
  r.normal = p.normal;
  r.depth = p.depth;
  r.fn = fn;
  r.ft = ft;
  r.mu = mu;
  r.torsion = torsion;
  return r;
}

// Returns how many of result's contacts are awake (the asleep ones follow them).
size_t collect_results(const Model& model, State& s, Workspace& ws, SpookScratch& sc, const spook::Solution& sol,
                       StepResult* result) {
  const double h = model.options.dt;
  s.contacts.begin();
  if (result) result->contacts.clear();
  for (const ContactRowsInfo& info : sc.contact_rows) {
    const ContactSet& cs = sc.contact_sets[info.set];
    const ContactPoint& p = cs.points[info.point];
    const spook::ContactRows& cr = sc.problem.contacts[info.contact];
    Vec3 ft = Vec3::Zero();
    for (int k = 0; k < info.ndirections; ++k) ft += sol.lambda[cr.friction[k]] * sc.directions[info.first_direction + k];
    ft /= h;
    const double fn = sol.lambda[cr.normal] / h;
    const double torsion = cr.torsion >= 0 ? sol.lambda[cr.torsion] / h : 0.0;
    ContactSlot& slot = info.slot >= 0 ? s.contacts.touch_slot(info.slot) : s.contacts.touch({cs.geom_a, cs.geom_b, p.feature}, s.t);
    slot.values[kNormalImpulse] = sol.lambda[cr.normal];
    for (int k = 0; k < 3; ++k) slot.values[kFrictionForce + k] = ft[k];
    for (int k = 0; k < 3; ++k) slot.values[kPosition + k] = p.position[k];
    if (result) result->contacts.push_back(contact_result(cs, p, info.body_a, info.body_b, fn, ft, info.mu, torsion));
  }
  const size_t awake = result ? result->contacts.size() : 0;
  // Asleep contacts keep their slots and report the forces they had when the island fell asleep.
  for (int si : sc.sleeping_sets) {
    const ContactSet& cs = sc.contact_sets[si];
    const Geom &ga = model.geoms[cs.geom_a], &gb = model.geoms[cs.geom_b];
    s.contacts.touch_pair(cs.geom_a, cs.geom_b, sc.pair_slots);
    for (const ContactPoint& p : cs.points) {
      auto it = std::find_if(sc.pair_slots.begin(), sc.pair_slots.end(),
                             [&](const ContactSlot* m) { return m->key.feature == p.feature; });
      // (a point new in the step its island fell asleep has no slot yet: touch() makes one,
      // with zero force)
      const ContactSlot& slot = it != sc.pair_slots.end() ? **it : s.contacts.touch({cs.geom_a, cs.geom_b, p.feature}, s.t);
      if (result)
        result->contacts.push_back(contact_result(cs, p, ga.body, gb.body, normal_impulse(slot) / h,
                                                  friction_force(slot),
                                                  model.contact_material(ga.material, gb.material).friction, 0.0));
    }
  }
  s.contacts.end();
  for (size_t i = 0; i < model.actuators.size(); ++i)
    if (sc.actuator_row[i] >= 0) ws.actuator_effort[static_cast<Eigen::Index>(i)] = sol.lambda[sc.actuator_row[i]] / h;
  return awake;
}

// Slip and the error metrics need the end-of-step velocities (and kinematics of q⁺ would
// move the points; the start-of-step points are what the solver constrained). Contacts from
// `awake` on are asleep: both sides still (asleep or static), their slip zero.
void contact_metrics(const Model& model, const Workspace& ws, const VecX& v_next, size_t awake, StepResult& result) {
  for (size_t i = 0; i < result.contacts.size(); ++i) {
    ContactResult& r = result.contacts[i];
    r.slip.setZero();
    if (i < awake) {
      const Vec3 rel = point_velocity(model, ws.kin, v_next, r.body_b, r.position) -
                       point_velocity(model, ws.kin, v_next, r.body_a, r.position);
      r.slip = rel - rel.dot(r.normal) * r.normal;
    }
    r.cone_error = coulomb_cone_error(r.fn, r.ft, r.mu);
    r.alignment_error = alignment_error(r.ft, r.slip);
  }
}

}  // namespace

double geom_thickness(const Model& model, int g, const Pose& X_WG, const Vec3& n) {
  const Geom& geom = model.geoms[g];
  const Vec3 nl = X_WG.q.conjugate() * n;  // normal in the geom frame
  switch (geom.type) {
    case GeomType::Plane: return 0.0;
    case GeomType::Sphere: return 2.0 * geom.size.x();
    case GeomType::Box: return 2.0 * nl.cwiseAbs().dot(geom.size);
    case GeomType::Capsule: return 2.0 * (geom.size.x() + geom.size.y() * std::abs(nl.z()));
    case GeomType::Cylinder:
      return 2.0 * (geom.size.x() * std::hypot(nl.x(), nl.y()) + geom.size.y() * std::abs(nl.z()));
    case GeomType::ConvexMesh:
    case GeomType::TriangleMesh: {
      double lo = kInf, hi = -kInf;
      for (const Vec3& v : collision_hull(*model.meshes[geom.mesh]).vertices) {  // (the same extremes)
        lo = std::min(lo, v.dot(nl));
        hi = std::max(hi, v.dot(nl));
      }
      return hi - lo;
    }
  }
  return 0.0;
}

void validate_spook(const Model& model, const SpookOptions& o) {
  // Each condition is tested before a message is built: step() runs this for every step of a
  // per-run formulation, and a steady step allocates nothing.
  auto check = [](bool ok, const std::string& where, const char* what) {
    if (!ok) require(false, where, what);
  };
  check(o.iterations > 0, "options", "iterations must be positive");
  check(o.relax_sweeps >= 0, "options", "relax_sweeps must be >= 0");
  check(o.tolerance >= 0.0 && std::isfinite(o.tolerance), "options", "tolerance must be finite and >= 0");
  check(o.threads >= 1 && o.threads <= 256, "options", "threads must be between 1 and 256");
  const SleepOptions& z = o.sleep;
  check(std::isfinite(z.time) && z.time >= 0.0, "options: sleep", "time must be >= 0 (s)");
  check(std::isfinite(z.linear) && z.linear >= 0.0, "options: sleep", "linear must be >= 0 (m/s)");
  check(std::isfinite(z.angular) && z.angular >= 0.0, "options: sleep", "angular must be >= 0 (rad/s)");
  auto check_material = [&](const ContactMaterial& c) {
    const SpookContact& sp = c.spook;
    check(std::isfinite(sp.young_modulus) && sp.young_modulus > 0.0, c.source, "young_modulus must be positive");
    check(std::isfinite(sp.damping) && sp.damping >= 0.0, c.source, "damping must be >= 0");
    check(sp.tangents >= 3, c.source, "tangents must be >= 3 (directions around the circle; 4 is the box's)");
    check(std::isfinite(sp.torsional_friction) && sp.torsional_friction >= 0.0, c.source,
          "torsional_friction must be >= 0");
    check(sp.primary_direction.allFinite() && sp.primary_direction.norm() > 1e-12, c.source,
          "primary_direction must be nonzero");
  };
  // The pure Direct solver pivots on box-shaped bounds; a cone needs an iterative part.
  auto check_solver = [&](const ContactMaterial& c) {
    const SolverType solver = c.spook.solver.value_or(o.solver);
    check(!(solver == SolverType::Direct && c.spook.friction_model == FrictionModel::Cone), c.source,
          "friction model 'cone' cannot be solved by the direct solver alone; use solver split, iterative or "
          "direct_iterative, or a box-type or polyhedral friction model");
  };
  check_material(model.default_contact);
  for (const ContactMaterial& c : model.contact_materials) {
    check_material(c);
    check_solver(c);
  }
  // The default applies to the pairs of used materials without an entry.
  if (model.default_contact_used) check_solver(model.default_contact);
}

void step_spook(const Model& model, State& s, const Input& in, const Formulation& f, Workspace& ws,
                StepResult* result) {
  const double h = model.options.dt;
  if (!ws.spook) {  // a workspace's first SPOOK step: models built in code were not validated by a loader
    validate_spook(model, f.spook);
    ws.spook.reset(new SpookScratch);
  }
  SpookScratch& sc = *ws.spook;
  // Collision needs only q, so it runs first: the contacts decide which islands sleep, and an
  // asleep tree has no free motion.
  forward_kinematics(model, s.q, ws.kin);
  sc.X_WG.resize(model.ngeom());
  for (int g = 0; g < model.ngeom(); ++g) sc.X_WG[g] = geom_pose(model, ws.kin, g);
  CollideOptions copt;
  copt.margin = model.options.contact_margin;
  copt.patch_grid = model.options.patch_grid;
  const bool sleep = f.spook.sleep.enabled;
  if (sleep) {
    classify_trees(model, sc);
    mark_frozen(model, s, sc);
    copt.frozen_bodies = &sc.frozen;
  }
  collide(model, sc.X_WG, copt, sc.broadphase, sc.contact_sets);
  if (sleep) add_frozen_contacts(model, sc);
  mark_sleeping(model, s, sc, f.spook.sleep);
  free_motion(model, s, in, ws, sc);

  assemble(model, s, in, ws, f.spook.relax_sweeps > 0, sc);
  spook::solve(sc.problem, f.spook.solver, f.spook.iterations, f.spook.relax_sweeps, sc.solver, sc.solution,
               f.spook.threads, f.spook.tolerance);
  const spook::Solution& sol = sc.solution;
  remember_constraint_forces(model, sc, sol, s);

  const size_t awake_contacts = collect_results(model, s, ws, sc, sol, result);
  if (result) {
    contact_metrics(model, ws, sol.v, awake_contacts, *result);
    result->solver_residual = sol.residual;
    result->solver_iterations = sol.iterations;
    // The solver that ran, or "per_island" when contact materials chose different ones.
    result->solver = sol.solver ? to_string(*sol.solver) : "per_island";
    result->asleep_bodies = static_cast<int>(std::count(sc.asleep.begin(), sc.asleep.end(), 1));
    result->solver_threads = sol.threads;
  }
  integrate_q(model, s.q, sol.v_position.size() ? sol.v_position : sol.v, h);
  s.v = sol.v;
  if (sleep) {
    // (contact_sets is rebuilt next step: its sleeping sets move to the cache, no copy)
    sc.sleeping_cache.resize(sc.sleeping_sets.size());
    for (size_t i = 0; i < sc.sleeping_sets.size(); ++i)
      sc.sleeping_cache[i] = std::move(sc.contact_sets[sc.sleeping_sets[i]]);
    sc.q_last = s.q;
  }
  s.t += h;
  s.step += 1;
}

}  // namespace graspsim
