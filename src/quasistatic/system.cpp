#include "quasistatic/system.h"

#include <algorithm>
#include <cmath>

#include "collision/contact.h"
#include "collision/mesh_collide.h"
#include "contact/friction_directions.h"
#include "core/error.h"
#include "dynamics/actuation.h"
#include "dynamics/dynamics.h"
#include "kinematics/kinematics.h"

namespace graspsim {

// The scene option's default is the collider's own tilt (model/ cannot include collision/).
static_assert(QuasistaticOptions{}.support_tilt == kSupportTilt);

namespace {

bool is_servo(const Actuator& a) { return a.type == ActuatorType::Position || a.type == ActuatorType::Velocity; }

// Balanced directions (for each d, −d is one too), as the LCP's friction needs (seed 003 eq. 4).
void balanced_directions(const Vec3& n, int k, std::vector<Vec3>& out) {
  if (k == 2) {
    const Vec3 t = box_tangents(n).t1;
    out.push_back(t);
    out.push_back(-t);
    return;
  }
  for (const Vec3& d : tangent_directions(n, k)) out.push_back(d);
}

}  // namespace

QuasistaticPartition quasistatic_partition(const Model& model) {
  std::vector<int> kin_index(model.nv, -1), servo(model.nv, -1);
  for (size_t k = 0; k < model.kinematic_dofs.size(); ++k) kin_index[model.kinematic_dofs[k]] = static_cast<int>(k);
  for (size_t i = 0; i < model.actuators.size(); ++i) {
    const Actuator& a = model.actuators[i];
    if (is_servo(a) && a.joint >= 0) servo[model.joints[a.joint].vadr + a.dof] = static_cast<int>(i);
  }
  QuasistaticPartition p;
  for (int d = 0; d < model.nv; ++d) {
    if (kin_index[d] >= 0 || servo[d] >= 0) {
      p.actuated.push_back(d);
      p.kinematic_index.push_back(kin_index[d]);
      p.actuator.push_back(kin_index[d] >= 0 ? -1 : servo[d]);
    } else {
      p.unactuated.push_back(d);
    }
  }
  return p;
}

void validate_quasistatic(const Model& model, const QuasistaticOptions& o) {
  const std::string opt = "options: quasistatic";
  require(o.tangent_directions >= 2 && o.tangent_directions % 2 == 0, opt,
          "'tangent_directions' must be even and >= 2 (balanced directions), got " + std::to_string(o.tangent_directions));
  require(std::isfinite(o.stiffness) && o.stiffness > 0, opt, "'stiffness' must be a positive number (N/m)");
  require(std::isfinite(o.big_m) && o.big_m > 0, opt, "'big_m' must be a positive number");
  require(std::isfinite(o.objective_scale) && o.objective_scale > 0, opt, "'objective_scale' must be positive");
  require(std::isfinite(o.miqp_gap_rel) && o.miqp_gap_rel >= 0 && o.miqp_gap_rel < 1, opt,
          "'miqp_gap_rel' must be a fraction in [0, 1)");
  require(std::isfinite(o.closed_gap) && o.closed_gap >= 0 && o.closed_gap < o.big_m, opt,
          "'closed_gap' must be a length in [0, big_m) (m)");
  require(std::isfinite(o.regularization) && o.regularization > 0, opt, "'regularization' must be positive");
  require(std::isfinite(o.point_spacing) && o.point_spacing >= 0, opt, "'point_spacing' must be a length >= 0 (m)");
  require(std::isfinite(o.support_tilt) && o.support_tilt > 0, opt, "'support_tilt' must be an angle > 0 (rad)");
  auto check_torsion = [](const ContactMaterial& cm) {
    const double a = cm.spook.torsional_friction;
    require(std::isfinite(a) && a >= 0.0, cm.source, "torsional_friction must be a length >= 0 (m), got " + show(a));
  };
  check_torsion(model.default_contact);
  for (const ContactMaterial& cm : model.contact_materials) check_torsion(cm);
  for (const Equality& e : model.equalities)
    require(false, "equality '" + e.name + "'",
            "the quasistatic stepper has no equality constraints (drive the coupled joints by their own servos)");
  std::vector<char> driven(model.nv, 0);
  for (int d : model.kinematic_dofs) driven[d] = 1;
  for (const Actuator& a : model.actuators) {
    if (!is_servo(a)) continue;
    require(a.joint >= 0, "actuator '" + a.name + "'",
            "a servo through a tendon cannot command a quasistatic dof: drive each joint by its own servo");
    const Joint& j = model.joints[a.joint];
    require(j.nv == 1, "actuator '" + a.name + "'", "a quasistatic servo needs a 1-dof joint, '" + j.name + "' has " +
                                                         std::to_string(j.nv));
    require(!driven[j.vadr], "actuator '" + a.name + "'",
            "joint '" + j.name + "' is already commanded (a second servo or a kinematic body)");
    driven[j.vadr] = 1;
  }
  for (const auto& [name, k] : o.joint_stiffness) {
    const int j = model.find_joint(name);
    require(j >= 0, opt, "joint_stiffness: no joint named '" + name + "'");
    require(driven[model.joints[j].vadr], opt, "joint_stiffness: joint '" + name + "' is not actuated");
    require(std::isfinite(k) && k > 0, opt, "joint_stiffness: '" + name + "' must be positive");
  }
  for (const Joint& j : model.joints)
    if (j.nv > 0 && j.limited && !driven[j.vadr])
      require(false, "joint '" + j.name + "'",
              "limits of an unactuated joint are not modelled by the quasistatic stepper (remove them or drive the joint)");
}

// Torsional friction is the contact material's (the scene's `torsional_friction`, kept in
// its SPOOK part where it came first); any pair with some gives every contact its two
// rotational directions, so that each contact has the same number of binaries.
namespace {
bool model_has_torsion(const Model& model) {
  if (model.default_contact.spook.torsional_friction > 0.0) return true;
  for (const ContactMaterial& cm : model.contact_materials)
    if (cm.spook.torsional_friction > 0.0) return true;
  return false;
}
}  // namespace

std::pair<Vec3, Vec3> slot_witnesses(const Model& model, const KinematicsData& kin, const ContactSlot& sl) {
  namespace slot = quasistatic_slot;
  const auto& v = sl.values;
  return {kin.X_WB[model.geoms[sl.key.geom_a].body] * Vec3(v[slot::kWitnessA], v[slot::kWitnessA + 1], v[slot::kWitnessA + 2]),
          kin.X_WB[model.geoms[sl.key.geom_b].body] * Vec3(v[slot::kWitnessB], v[slot::kWitnessB + 1], v[slot::kWitnessB + 2])};
}

void add_persistent_points(const Model& model, const KinematicsData& kin, const ContactTable& table, double margin,
                           ContactSet& cs) {
  namespace slot = quasistatic_slot;
  const int reported = static_cast<int>(cs.points.size());
  if (reported == 0) return;
  std::vector<const ContactSlot*> slots;
  table.find_pair(cs.geom_a, cs.geom_b, slots);
  for (const ContactSlot* sl : slots) {
    if (!sl->values[slot::kHasWitnesses]) continue;
    const auto [pa, pb] = slot_witnesses(model, kin, *sl);
    const Vec3 middle = 0.5 * (pa + pb);
    int nearest = -1;
    double nearest_d = kInf;
    bool same_feature = false;
    for (int i = 0; i < reported; ++i) {
      const double d = (cs.points[i].position - middle).norm();
      same_feature = same_feature || cs.points[i].feature == sl->key.feature;
      if (d < nearest_d) nearest_d = d, nearest = i;
    }
    if (same_feature || nearest_d <= margin) continue;
    const Vec3 n = cs.points[nearest].normal;
    const double gap = n.dot(pb - pa);
    const double slid = ((pb - pa) - gap * n).norm();
    if (std::abs(gap) > margin || slid > margin) continue;
    cs.points.push_back(make_contact_point(pa, pb, n, -gap, sl->key.feature));
  }
}

void build_quasistatic_system(const Model& model, const State& s, const Input& in, const QuasistaticOptions& o,
                              const QuasistaticPartition& part, KinematicsData& kin, QuasistaticBuildScratch& sc,
                              QuasistaticSystem& sys) {
  const double h = model.options.dt;
  sys.h = h;
  forward_kinematics(model, s.q, kin);
  const int nu = static_cast<int>(part.unactuated.size()), na = static_cast<int>(part.actuated.size());

  // The command: kinematic dofs at their commanded velocity, position servos to their set
  // point at the end of the step, velocity servos at theirs.
  sys.dq_command.resize(na);
  for (int i = 0; i < na; ++i) {
    if (part.kinematic_index[i] >= 0) {
      sys.dq_command[i] = h * in.kinematic_v[part.kinematic_index[i]];
      continue;
    }
    const Actuator& a = model.actuators[part.actuator[i]];
    const double sp = actuator_set_point(a, in.ctrl[part.actuator[i]]);
    sys.dq_command[i] = a.type == ActuatorType::Velocity ? h * sp : sp - s.q[model.joints[a.joint].qadr];  // 1-dof joints
  }

  sys.stiffness_a = VecX::Constant(na, o.stiffness);
  for (const auto& [name, k] : o.joint_stiffness) {
    const int j = model.find_joint(name);
    for (int i = 0; i < na && j >= 0; ++i)
      if (part.actuated[i] >= model.joints[j].vadr && part.actuated[i] < model.joints[j].vadr + model.joints[j].nv)
        sys.stiffness_a[i] = k;
  }

  // External generalized forces at rest: gravity, joint springs, force actuators.
  const VecX zero = VecX::Zero(model.nv);
  bias_forces(model, kin, zero, sc.c);
  sc.passive = VecX::Zero(model.nv);
  passive_forces(model, s.q, zero, sc.passive);
  add_actuator_forces(model, in, s.q, zero, nullptr, sc.passive, ServoForces::Skip);
  sys.tau_u.resize(nu);
  for (int i = 0; i < nu; ++i) sys.tau_u[i] = sc.passive[part.unactuated[i]] - sc.c[part.unactuated[i]];
  // The convex scheme reads the mass matrix (its regularising mass), also as the MIQP's
  // primal heuristic.
  if (o.scheme == QuasistaticScheme::Convex || o.scheme == QuasistaticScheme::Miqp) {
    mass_matrix(model, kin, sc.M);
    sys.M_u.resize(nu, nu);
    for (int i = 0; i < nu; ++i)
      for (int j = 0; j < nu; ++j) sys.M_u(i, j) = sc.M(part.unactuated[i], part.unactuated[j]);
  } else {
    sys.M_u.resize(0, 0);
  }

  // Contacts within the margin.
  sc.X_WG.resize(model.ngeom());
  for (int g = 0; g < model.ngeom(); ++g) sc.X_WG[g] = geom_pose(model, kin, g);
  CollideOptions copt;
  copt.margin = model.options.contact_margin;
  copt.patch_grid = model.options.patch_grid;
  collide(model, sc.X_WG, copt, sc.broadphase, sc.contact_sets);
  sys.contacts.clear();
  sys.directions.clear();
  std::vector<double> arms;
  const bool persist = o.persistent_points && o.contact_points == ContactPoints::Manifold;
  for (ContactSet& cs : sc.contact_sets) {
    if (cs.points.empty()) continue;
    if (persist) add_persistent_points(model, kin, s.contacts, copt.margin, cs);
    const Geom &ga = model.geoms[cs.geom_a], &gb = model.geoms[cs.geom_b];
    const ContactMaterial& cm = model.contact_material(ga.material, gb.material);
    auto add = [&](const ContactPoint& p) {
      QuasistaticContact c{cs.geom_a, cs.geom_b, ga.body, gb.body, p.feature, p.point_a, p.point_b, p.normal, -p.depth, cm.friction};
      sys.contacts.push_back(c);
      arms.push_back(cm.spook.torsional_friction);
    };
    if (o.contact_points == ContactPoints::Deepest) {
      // The pair's signed distance and its witness points, as the paper's φ_i (ties: the first point).
      const auto deepest = std::max_element(cs.points.begin(), cs.points.end(),
                                            [](const ContactPoint& a, const ContactPoint& b) { return a.depth < b.depth; });
      add(*deepest);
    } else if (o.max_points_per_pair > 0) {
      for (const ContactPoint& p : reduce_to_support(cs.points, o.max_points_per_pair, o.point_spacing, o.support_tilt)) add(p);
    } else {
      for (const ContactPoint& p : cs.points) add(p);
    }
  }
  const int nc = static_cast<int>(sys.contacts.size()), k = o.tangent_directions;
  sys.ntorsion = model_has_torsion(model) ? 2 : 0;
  const int ndir = k + sys.ntorsion;
  sys.torsion_arm = Eigen::Map<const VecX>(arms.data(), nc);
  sys.phi.resize(nc);
  sys.mu.resize(nc);
  sys.Jn_u.setZero(nc, nu);
  sys.Jn_a.setZero(nc, na);
  sys.Jf_u.setZero(nc * ndir, nu);
  sys.Jf_a.setZero(nc * ndir, na);
  // Column of each velocity index in the u or a block.
  std::vector<int> col(model.nv);
  std::vector<char> actuated(model.nv, 0);
  for (int i = 0; i < nu; ++i) col[part.unactuated[i]] = i;
  for (int i = 0; i < na; ++i) {
    col[part.actuated[i]] = i;
    actuated[part.actuated[i]] = 1;
  }
  for (int ci = 0; ci < nc; ++ci) {
    const QuasistaticContact& c = sys.contacts[ci];
    sys.phi[ci] = c.phi;
    sys.mu[ci] = c.mu;
    // Each body's own witness point: the gap's rate is n·(v_B(p_b) − v_A(p_a)).
    point_chain(kin, c.body_a, c.point_a, sc.chain_a);
    point_chain(kin, c.body_b, c.point_b, sc.chain_b);
    auto row = [&](const PointChain& a, const PointChain& b, const Vec3& u, auto&& Ju, auto&& Ja) {
      relative_row(a, b, u, [&](int d, double value) {
        if (actuated[d]) Ja(col[d]) += value;
        else Ju(col[d]) += value;
      });
    };
    row(sc.chain_a, sc.chain_b, c.normal, sys.Jn_u.row(ci), sys.Jn_a.row(ci));
    const int first = static_cast<int>(sys.directions.size());
    balanced_directions(c.normal, k, sys.directions);
    for (int j = 0; j < k; ++j)
      row(sc.chain_a, sc.chain_b, sys.directions[first + j], sys.Jf_u.row(first + j), sys.Jf_a.row(first + j));
    if (!sys.ntorsion) continue;
    angular_chain(kin, c.body_a, sc.spin_a);
    angular_chain(kin, c.body_b, sc.spin_b);
    const double scale = sys.torsion_scale(ci);
    for (const double sign : {1.0, -1.0}) {
      const int r = static_cast<int>(sys.directions.size());
      sys.directions.push_back(Vec3::Zero());
      if (scale > 0.0) row(sc.spin_a, sc.spin_b, sign * scale * c.normal, sys.Jf_u.row(r), sys.Jf_a.row(r));
    }
  }
}

}  // namespace graspsim
