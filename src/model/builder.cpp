#include "model/builder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <Eigen/Eigenvalues>

#include "core/error.h"
#include "model/mass_properties.h"

namespace graspsim {
namespace {

// Above this an n × n grid per contact face costs more than it can resolve (and 100,000
// asked for 10^10 points).
constexpr int kMaxPatchGrid = 64;

// v / |v|, also for huge components whose squared norm overflows (an axis [1e200, 0, 0]);
// the same bits as normalized() otherwise.
template <typename V>
V unit(const V& v) {
  if (std::isfinite(v.squaredNorm())) return v.normalized();
  const V scaled = v / v.cwiseAbs().maxCoeff();
  return scaled.normalized();
}

std::string where(const std::string& kind, const std::string& name, const std::string& source) {
  std::string w = kind + " '" + name + "'";
  return source.empty() ? w : source + ": " + w;
}

template <typename Derived>
bool all_finite(const Eigen::MatrixBase<Derived>& m) {
  return m.allFinite();
}

void require_finite(double x, const std::string& w, const std::string& what) {
  require(std::isfinite(x), w, what + " is not finite (" + show(x) + ")");
}

// Bodies in depth-first order (children in definition order): every parent precedes its
// children and every subtree's dofs are contiguous, so each tree hanging from the world
// owns one block of the mass matrix. Detects unknown parents and cycles.
std::vector<const BodyDef*> topological_order(const std::vector<BodyDef>& defs) {
  std::map<std::string, const BodyDef*> by_name;
  for (const auto& d : defs) {
    require(!d.name.empty(), d.source, "a body has no name");
    require(d.name != "world", where("body", d.name, d.source), "the name 'world' is reserved");
    require(by_name.emplace(d.name, &d).second, where("body", d.name, d.source), "defined twice");
  }
  std::map<std::string, std::vector<const BodyDef*>> children;
  for (const auto& d : defs) {
    require(d.parent == "world" || by_name.count(d.parent), where("body", d.name, d.source),
            "unknown parent body '" + d.parent + "'");
    children[d.parent].push_back(&d);
  }
  std::vector<const BodyDef*> order;
  std::vector<const BodyDef*> stack(children["world"].rbegin(), children["world"].rend());
  while (!stack.empty()) {
    const BodyDef* d = stack.back();
    stack.pop_back();
    order.push_back(d);
    const auto& kids = children[d->name];
    stack.insert(stack.end(), kids.rbegin(), kids.rend());
  }
  if (order.size() < defs.size()) {  // what the world does not reach hangs in a cycle
    std::set<const BodyDef*> reached(order.begin(), order.end());
    for (const auto& d : defs)
      if (!reached.count(&d))
        throw InputError(where("body", d.name, d.source) + ": its parent chain forms a cycle (through '" + d.parent +
                         "')");
  }
  return order;
}

MassProperties geom_mass(const GeomDef& g, const Model& m, int mesh) {
  const double rho = g.density;
  switch (g.type) {
    case GeomType::Sphere: return sphere_mass_properties(g.size.x(), rho).transformed(g.pose);
    case GeomType::Box: return box_mass_properties(g.size, rho).transformed(g.pose);
    case GeomType::Capsule: return capsule_mass_properties(g.size.x(), g.size.y(), rho).transformed(g.pose);
    case GeomType::Cylinder: return cylinder_mass_properties(g.size.x(), g.size.y(), rho).transformed(g.pose);
    case GeomType::ConvexMesh:
    case GeomType::TriangleMesh: return mesh_mass_properties(*m.meshes[mesh], rho).transformed(g.pose);
    case GeomType::Plane: return {};
  }
  return {};
}

void check_geom_size(const GeomDef& g, const std::string& w) {
  require(all_finite(g.size), w, "size is not finite");
  auto positive = [&](int n) {
    for (int i = 0; i < n; ++i)
      require(g.size[i] > 0.0, w, std::string(to_string(g.type)) + " size[" + std::to_string(i) +
                                      "] must be positive, got " + show(g.size[i]));
  };
  switch (g.type) {
    case GeomType::Sphere: positive(1); break;
    case GeomType::Box: positive(3); break;
    case GeomType::Capsule:
    case GeomType::Cylinder: positive(2); break;
    default: break;
  }
}

Joint make_joint(const BodyDef& d, int body, int qadr, int vadr) {
  const std::string w = where("body", d.name, d.source);
  const JointDef& jd = d.joint;
  Joint j;
  j.name = jd.name.empty() ? d.name + "_joint" : jd.name;
  j.type = jd.type;
  j.body = body;
  j.nq = joint_nq(jd.type);
  j.nv = joint_nv(jd.type);
  j.qadr = qadr;
  j.vadr = vadr;
  if (jd.type == JointType::Revolute || jd.type == JointType::Prismatic) {
    require(all_finite(jd.axis) && jd.axis.cwiseAbs().maxCoeff() > 1e-12, w, "joint '" + j.name + "' needs a nonzero axis");
    j.axis = unit(jd.axis);
  }
  if (jd.type == JointType::Free)
    require(d.parent == "world", w, "a free joint must hang from the world, not from '" + d.parent + "'");
  if (jd.limits) {
    require(j.nv == 1, w, "joint '" + j.name + "': limits apply to revolute and prismatic joints only");
    require(!std::isnan(jd.limits->first) && !std::isnan(jd.limits->second) && jd.limits->first <= jd.limits->second,
            w, "joint '" + j.name + "': limits must satisfy lower <= upper");
    j.limited = true;
    j.lower = jd.limits->first;
    j.upper = jd.limits->second;
  }
  for (auto [val, what] : {std::pair{jd.damping, "damping"}, {jd.armature, "armature"}, {jd.stiffness, "stiffness"},
                             {jd.frictionloss, "frictionloss"}}) {
    require_finite(val, w, std::string("joint ") + what);
    require(val >= 0.0, w, std::string("joint ") + what + " must be >= 0, got " + show(val));
  }
  require_finite(jd.spring_ref, w, "joint spring_ref");
  require(all_finite(jd.anchor), w, "joint '" + j.name + "': anchor is not finite");
  if (jd.type == JointType::Revolute || jd.type == JointType::Ball) j.anchor = jd.anchor;
  j.damping = jd.damping;
  j.armature = jd.armature;
  j.stiffness = jd.stiffness;
  j.spring_ref = jd.spring_ref;
  j.frictionloss = jd.frictionloss;
  return j;
}

VecX initial_q(const BodyDef& d, const Joint& j) {
  const std::string w = where("body", d.name, d.source);
  VecX q(j.nq);
  if (j.type == JointType::Free) q << d.pose.p, d.pose.q.w(), d.pose.q.x(), d.pose.q.y(), d.pose.q.z();
  if (j.type == JointType::Ball) q << 1, 0, 0, 0;
  if (j.nq == 1) q << 0;
  if (d.joint.q_init) {
    require(d.joint.q_init->size() == j.nq, w,
            "initial q has " + std::to_string(d.joint.q_init->size()) + " values, joint '" + j.name + "' has " +
                std::to_string(j.nq));
    q = *d.joint.q_init;
  }
  require(all_finite(q), w, "initial q is not finite");
  if (j.type == JointType::Free || j.type == JointType::Ball) {
    auto quat = q.tail<4>();
    require(quat.cwiseAbs().maxCoeff() > 1e-9, w, "initial orientation quaternion is zero");
    quat = unit(VecX(quat));
  }
  return q;
}

// A keyframe over some joints and actuators, in the whole model's q, v and ctrl (the rest
// at their initial values).
Keyframe expand_keyframe(const Model& m, const KeyframeDef& kd, const std::string& w) {
  Keyframe k = kd.key;
  k.q = m.q0;
  k.v = m.v0;
  k.ctrl = VecX::Zero(static_cast<Eigen::Index>(m.actuators.size()));
  Eigen::Index iq = 0, iv = 0;
  for (const auto& name : kd.joints) {
    const int id = m.find_joint(name);
    require(id >= 0, w, "unknown joint '" + name + "'");
    const Joint& j = m.joints[id];
    if (kd.key.q.size() > 0) {
      require(iq + j.nq <= kd.key.q.size(), w, "q has " + std::to_string(kd.key.q.size()) + " values, too few for its joints");
      k.q.segment(j.qadr, j.nq) = kd.key.q.segment(iq, j.nq);
    }
    if (kd.key.v.size() > 0) {
      require(iv + j.nv <= kd.key.v.size(), w, "v has " + std::to_string(kd.key.v.size()) + " values, too few for its joints");
      k.v.segment(j.vadr, j.nv) = kd.key.v.segment(iv, j.nv);
    }
    iq += j.nq;
    iv += j.nv;
  }
  require(kd.key.q.size() == 0 || kd.key.q.size() == iq, w,
          "q has " + std::to_string(kd.key.q.size()) + " values, its joints need " + std::to_string(iq));
  require(kd.key.v.size() == 0 || kd.key.v.size() == iv, w,
          "v has " + std::to_string(kd.key.v.size()) + " values, its joints need " + std::to_string(iv));
  if (kd.key.ctrl.size() > 0) {
    require(kd.key.ctrl.size() == static_cast<Eigen::Index>(kd.actuators.size()), w,
            "ctrl has " + std::to_string(kd.key.ctrl.size()) + " values, the file has " +
                std::to_string(kd.actuators.size()) + " actuators");
    for (size_t i = 0; i < kd.actuators.size(); ++i) {
      if (kd.actuators[i].empty()) continue;
      const int a = m.find_actuator(kd.actuators[i]);
      require(a >= 0, w, "unknown actuator '" + kd.actuators[i] + "'");
      k.ctrl[a] = kd.key.ctrl[static_cast<Eigen::Index>(i)];
    }
  }
  return k;
}

}  // namespace

ModelBuilder::ModelBuilder() { materials_.emplace_back("default", ""); }

void ModelBuilder::start_at_keyframe(size_t first, const std::string& name, const std::string& source) {
  std::string names;
  for (size_t i = first; i < keyframes_.size(); ++i) {
    if (keyframes_[i].key.name == name) {
      keyframes_[i].start = true;
      return;
    }
    names += (names.empty() ? "'" : ", '") + keyframes_[i].key.name + "'";
  }
  throw InputError((source.empty() ? "" : source + ": ") + "no keyframe '" + name + "'" +
                   (names.empty() ? " (the file has none)" : " (the file has " + names + ")"));
}

void ModelBuilder::set_command(const std::string& actuator, Signal command, const std::string& source) {
  for (auto& a : actuators_)
    if (a.name == actuator) {
      a.command = std::move(command);
      return;
    }
  std::string known;
  for (const auto& a : actuators_) known += (known.empty() ? "" : ", ") + a.name;
  throw InputError(where("control", actuator, source) + ": no actuator '" + actuator + "' (actuators: " +
                   (known.empty() ? "none" : known) + ")");
}

void ModelBuilder::set_initial_q(const std::string& joint, VecX q, const std::string& source) {
  for (const auto& b : bodies_)
    if ((b.joint.name.empty() ? b.name + "_joint" : b.joint.name) == joint) {
      initial_q_.emplace_back(joint, std::move(q), source);
      return;
    }
  throw InputError((source.empty() ? "" : source + ": ") + "no joint '" + joint + "'");
}

void ModelBuilder::add_material(const std::string& name, const std::string& source) {
  for (const auto& [n, s] : materials_)
    if (n == name) {
      if (name == "default") return;
      throw InputError(where("material", name, source) + ": defined twice");
    }
  materials_.emplace_back(name, source);
}

void ModelBuilder::exclude_pair(const std::string& a, const std::string& b, const std::string& source) {
  exclusions_.emplace_back(a, b, source);
}

void validate_inertia(const Mat3& I, const std::string& w) {
  require(all_finite(I), w, "inertia is not finite");
  require((I - I.transpose()).norm() <= 1e-9 * std::max(1.0, I.norm()), w, "inertia is not symmetric");
  Eigen::SelfAdjointEigenSolver<Mat3> es(I);
  const Vec3 e = es.eigenvalues();  // ascending
  require(e[0] > 0.0, w, "inertia is not positive definite (smallest principal moment " + show(e[0]) + ")");
  const double tol = 1e-9 * e[2];
  require(e[0] + e[1] >= e[2] - tol, w,
          "principal moments (" + show(e[0]) + ", " + show(e[1]) + ", " + show(e[2]) +
              ") violate the triangle inequality");
}

std::shared_ptr<const Model> ModelBuilder::build() const {
  auto m = std::make_shared<Model>();
  m->options = options_;
  m->default_contact = default_contact_;

  // Options: the common ones; each formulation checks its own part (validate_formulation).
  require(all_finite(options_.gravity), "options", "gravity is not finite");
  require(std::isfinite(options_.dt) && options_.dt > 0.0, "options", "dt must be positive, got " + show(options_.dt));
  require(std::isfinite(options_.contact_margin) && options_.contact_margin >= 0.0, "options",
          "contact_margin must be >= 0");
  require(options_.patch_grid == 0 || (options_.patch_grid >= 2 && options_.patch_grid <= kMaxPatchGrid), "options",
          "patch_grid must be 0 or from 2 to " + std::to_string(kMaxPatchGrid) + " (the limit: n² points per face)");

  // Materials.
  for (const auto& [name, source] : materials_) m->materials.push_back(name);
  auto material_id = [&](const std::string& name, const std::string& w) {
    for (size_t i = 0; i < m->materials.size(); ++i)
      if (m->materials[i] == name) return static_cast<int>(i);
    throw InputError(w + ": unknown material '" + name + "'");
  };

  // Meshes.
  std::map<std::string, int> mesh_ids;
  for (const auto& mesh : meshes_) {
    require(mesh && !mesh->name.empty(), "", "a mesh has no name");
    require(mesh_ids.emplace(mesh->name, static_cast<int>(m->meshes.size())).second, "mesh '" + mesh->name + "'",
            "defined twice");
    for (const auto& v : mesh->vertices) require(all_finite(v), "mesh '" + mesh->name + "'", "a vertex is not finite");
    for (const auto& f : mesh->faces)
      for (int i : f)
        require(i >= 0 && i < static_cast<int>(mesh->vertices.size()), "mesh '" + mesh->name + "'",
                "a face refers to vertex " + std::to_string(i) + " of " + std::to_string(mesh->vertices.size()));
    m->meshes.push_back(mesh);
  }

  // Bodies and joints, parents first.
  Body world;
  world.name = "world";
  m->bodies.push_back(world);
  std::map<std::string, int> body_ids{{"world", 0}};
  std::vector<const BodyDef*> def_of{nullptr};
  std::vector<VecX> q_parts, v_parts;
  std::set<std::string> joint_names;
  for (const BodyDef* d : topological_order(bodies_)) {
    const int id = m->nbody();
    const std::string w = where("body", d->name, d->source);
    require(all_finite(d->pose.p) && all_finite(d->pose.q.coeffs()) && d->pose.q.norm() > 1e-9, w, "pose is not finite");
    Joint j = make_joint(*d, id, m->nq, m->nv);
    require(joint_names.insert(j.name).second, w, "joint name '" + j.name + "' is used twice");
    Body b;
    b.name = d->name;
    b.parent = body_ids.at(d->parent);
    b.joint = m->njoint();
    b.X_parent_body = j.type == JointType::Free ? Pose::Identity() : Pose{d->pose.p, d->pose.q.normalized()};
    b.kinematic = d->kinematic;
    if (d->kinematic) {
      require(d->velocity.empty() || static_cast<int>(d->velocity.size()) == j.nv, w,
              "a kinematic body needs one velocity signal per joint dof (" + std::to_string(j.nv) + ")");
      b.prescribed_v = d->velocity;
      b.prescribed_v.resize(j.nv, Signal::Constant(0.0));
      for (int k = 0; k < j.nv; ++k) m->kinematic_dofs.push_back(j.vadr + k);
    }
    q_parts.push_back(initial_q(*d, j));
    VecX v = VecX::Zero(j.nv);
    if (d->joint.v_init) {
      require(d->joint.v_init->size() == j.nv, w,
              "initial v has " + std::to_string(d->joint.v_init->size()) + " values, joint has " + std::to_string(j.nv));
      v = *d->joint.v_init;
      require(all_finite(v), w, "initial v is not finite");
    }
    v_parts.push_back(v);
    m->nq += j.nq;
    m->nv += j.nv;
    body_ids[d->name] = id;
    m->bodies.push_back(b);
    m->joints.push_back(j);
    def_of.push_back(d);
  }
  m->q0.resize(m->nq);
  m->v0.resize(m->nv);
  for (int k = 0, qa = 0, va = 0; k < static_cast<int>(q_parts.size()); ++k) {
    m->q0.segment(qa, q_parts[k].size()) = q_parts[k];
    m->v0.segment(va, v_parts[k].size()) = v_parts[k];
    qa += static_cast<int>(q_parts[k].size());
    va += static_cast<int>(v_parts[k].size());
  }

  // Geoms.
  std::set<std::string> geom_names;
  std::vector<MassProperties> geom_mass_sum(m->bodies.size());
  for (size_t i = 0; i < geoms_.size(); ++i) {
    const GeomDef& gd = geoms_[i];
    Geom g;
    g.name = gd.name.empty() ? gd.body + "_geom" + std::to_string(i) : gd.name;
    const std::string w = where("geom", g.name, gd.source);
    require(geom_names.insert(g.name).second, w, "defined twice");
    require(body_ids.count(gd.body), w, "unknown body '" + gd.body + "'");
    g.body = body_ids.at(gd.body);
    g.type = gd.type;
    check_geom_size(gd, w);
    g.size = gd.size;
    require(all_finite(gd.pose.p) && all_finite(gd.pose.q.coeffs()) && gd.pose.q.norm() > 1e-9, w, "pose is not finite");
    g.X_body_geom = {gd.pose.p, gd.pose.q.normalized()};
    if (gd.type == GeomType::ConvexMesh || gd.type == GeomType::TriangleMesh) {
      require(mesh_ids.count(gd.mesh), w, "unknown mesh '" + gd.mesh + "'");
      g.mesh = mesh_ids.at(gd.mesh);
    }
    require(gd.type != GeomType::Plane || g.body == 0 || def_of[g.body]->kinematic || def_of[g.body]->joint.type == JointType::Fixed,
            w, "a plane has no mass and may only sit on a static or kinematic body");
    g.material = material_id(gd.material, w);
    require(std::isfinite(gd.margin) && gd.margin >= 0.0, w, "margin must be >= 0");
    g.group = gd.group;
    g.mask = gd.mask;
    g.margin = gd.margin;
    const BodyDef* owner = def_of[g.body];
    const bool mass_given = owner && owner->mass && owner->com && owner->inertia;
    if (g.body != 0 && gd.type != GeomType::Plane && !mass_given) {
      require(std::isfinite(gd.density) && gd.density > 0.0, w, "density must be positive, got " + show(gd.density));
      const MassProperties mp = geom_mass(gd, *m, g.mesh);
      geom_mass_sum[g.body] = geom_mass_sum[g.body] + mp;
    }
    m->geoms.push_back(g);
  }

  std::set<std::string> site_names;
  for (const auto& sd : sites_) {
    const std::string w = where("site", sd.name, sd.source);
    require(!sd.name.empty(), sd.source, "a site has no name");
    require(site_names.insert(sd.name).second, w, "defined twice");
    require(body_ids.count(sd.body), w, "unknown body '" + sd.body + "'");
    require(all_finite(sd.pose.p) && all_finite(sd.pose.q.coeffs()) && sd.pose.q.norm() > 1e-9, w, "pose is not finite");
    m->sites.push_back({sd.name, body_ids.at(sd.body), {sd.pose.p, sd.pose.q.normalized()}});
  }

  // Mass properties: explicit values win, geoms fill in the rest.
  std::vector<char> carries_body(static_cast<size_t>(m->nbody()), 0);
  for (int b = 1; b < m->nbody(); ++b) carries_body[static_cast<size_t>(m->bodies[b].parent)] = 1;
  for (int b = 1; b < m->nbody(); ++b) {
    const BodyDef& d = *def_of[b];
    Body& body = m->bodies[b];
    const std::string w = where("body", d.name, d.source);
    const MassProperties& from_geoms = geom_mass_sum[b];
    body.mass = d.mass.value_or(from_geoms.mass);
    require_finite(body.mass, w, "mass");
    require(body.mass >= 0.0, w, "mass must be positive, got " + show(body.mass));
    body.com = d.com.value_or(from_geoms.com);
    require(all_finite(body.com), w, "centre of mass is not finite");
    if (d.inertia) {
      body.inertia = *d.inertia;
    } else if (d.mass && from_geoms.mass > 0.0) {
      body.inertia = from_geoms.inertia * (body.mass / from_geoms.mass);  // same shape, given mass
    } else {
      body.inertia = from_geoms.inertia;
    }
    const Joint& j = m->joints[body.joint];
    const bool dynamic = j.nv > 0 && !body.kinematic;
    // A massless link between two joints (a robot file's body with several joints) is
    // fine: the bodies it carries give its dofs their inertia.
    const bool massless_link = d.mass && *d.mass == 0.0 && body.inertia.isZero() && carries_body[static_cast<size_t>(b)];
    if (dynamic && !massless_link) {
      require(body.mass > 0.0, w, "mass must be positive, got " + show(body.mass) +
                                      (d.mass ? "" : " (no mass given and no solid geoms to compute it from)"));
      validate_inertia(body.inertia, w);
    } else if (!body.inertia.isZero()) {  // a welded point mass (zero inertia) is fine
      validate_inertia(body.inertia, w);
    }
  }

  // Contact materials: the common properties; each formulation checks its own part, named
  // by `source` (validate_formulation).
  m->default_contact.material_a = m->default_contact.material_b = 0;
  if (m->default_contact.source.empty()) m->default_contact.source = "default contact material";
  auto check_contact = [&](const ContactMaterial& c) {
    const std::string& w = c.source;
    require(std::isfinite(c.friction) && c.friction >= 0.0, w, "friction must be >= 0");
    require(std::isfinite(c.restitution) && c.restitution >= 0.0 && c.restitution <= 1.0, w, "restitution must be in [0, 1]");
  };
  check_contact(m->default_contact);
  for (const auto& cd : contact_materials_) {
    const std::string w = where("contact material", cd.material_a + "/" + cd.material_b, cd.source);
    ContactMaterial c = cd.props;
    c.source = w;
    c.material_a = material_id(cd.material_a, w);
    c.material_b = material_id(cd.material_b, w);
    c.spook.primary_direction.normalize();  // (a zero direction stays zero: validate_spook rejects it)
    check_contact(c);
    for (const auto& other : m->contact_materials)
      require(!((other.material_a == c.material_a && other.material_b == c.material_b) ||
                (other.material_a == c.material_b && other.material_b == c.material_a)),
              w, "defined twice");
    m->contact_materials.push_back(c);
  }
  // The default applies to the pairs of used materials without an entry (its formulation
  // parts are checked only then).
  std::set<int> used_materials;
  for (const Geom& g : m->geoms) used_materials.insert(g.material);
  for (int a : used_materials)
    for (int b : used_materials)
      m->default_contact_used = m->default_contact_used || &m->contact_material(a, b) == &m->default_contact;

  // Tendons, then actuators (which may drive them).
  auto joint_id_of = [&](const std::string& name) {
    for (int k = 0; k < m->njoint(); ++k)
      if (m->joints[k].name == name) return k;
    return -1;
  };
  std::set<std::string> tendon_names;
  for (const auto& td : tendons_) {
    const std::string w = where("tendon", td.name, td.source);
    require(!td.name.empty(), td.source, "a tendon has no name");
    require(tendon_names.insert(td.name).second, w, "defined twice");
    require(!td.joints.empty(), w, "a tendon needs at least one joint");
    Tendon t;
    t.name = td.name;
    for (const auto& [jname, coef] : td.joints) {
      const int k = joint_id_of(jname);
      require(k >= 0, w, "unknown joint '" + jname + "'");
      const Joint& j = m->joints[k];
      require(j.nq == 1 && j.nv == 1, w, "joint '" + jname + "' is not revolute or prismatic");
      require_finite(coef, w, "coefficient of joint '" + jname + "'");
      t.terms.push_back({k, j.qadr, j.vadr, coef});
    }
    m->tendons.push_back(std::move(t));
  }

  std::set<std::string> actuator_names;
  for (const auto& ad : actuators_) {
    const std::string w = where("actuator", ad.name, ad.source);
    require(!ad.name.empty(), ad.source, "an actuator has no name");
    require(actuator_names.insert(ad.name).second, w, "defined twice");
    require(ad.joint.empty() != ad.tendon.empty(), w, "needs exactly one of a joint and a tendon");
    require(std::isfinite(ad.gear) && ad.gear != 0.0, w, "gear must be finite and nonzero");
    Actuator a;
    a.name = ad.name;
    a.type = ad.type;
    if (!ad.joint.empty()) {
      a.joint = joint_id_of(ad.joint);
      require(a.joint >= 0, w, "unknown joint '" + ad.joint + "'");
      const Joint& j = m->joints[a.joint];
      require(ad.dof >= 0 && ad.dof < j.nv, w, "dof " + std::to_string(ad.dof) + " does not exist on joint '" + j.name + "'");
      require(!m->bodies[j.body].kinematic, w, "joint '" + j.name + "' belongs to a kinematic body");
      require(ad.type != ActuatorType::Position || j.nq == j.nv, w, "a position servo needs a revolute or prismatic joint");
      a.dof = ad.dof;
      a.transmission.push_back({a.joint, j.qadr + ad.dof, j.vadr + ad.dof, ad.gear});
    } else {
      for (int k = 0; k < static_cast<int>(m->tendons.size()); ++k)
        if (m->tendons[k].name == ad.tendon) a.tendon = k;
      require(a.tendon >= 0, w, "unknown tendon '" + ad.tendon + "'");
      for (TransmissionTerm t : m->tendons[a.tendon].terms) {
        require(!m->bodies[m->joints[t.joint].body].kinematic, w, "tendon '" + ad.tendon + "' moves a kinematic body");
        t.coef *= ad.gear;
        a.transmission.push_back(t);
      }
    }
    require(std::isfinite(ad.kp) && ad.kp >= 0.0 && std::isfinite(ad.kv) && ad.kv >= 0.0, w, "gains must be >= 0");
    require(std::isfinite(ad.ctrl_gain) && std::isfinite(ad.ctrl_bias), w, "control gain and bias must be finite");
    for (auto [lo, hi, what] : {std::tuple{ad.effort_min, ad.effort_max, "effort"}, {ad.ctrl_min, ad.ctrl_max, "control"}})
      require(!std::isnan(lo) && !std::isnan(hi) && lo <= hi, w, std::string(what) + " limits must satisfy min <= max");
    for (double y : ad.command.y) require(std::isfinite(y), w, "command is not finite");
    a.kp = ad.kp;
    a.kv = ad.kv;
    a.ctrl_gain = ad.ctrl_gain;
    a.ctrl_bias = ad.ctrl_bias;
    a.ctrl_min = ad.ctrl_min;
    a.ctrl_max = ad.ctrl_max;
    a.effort_min = ad.effort_min;
    a.effort_max = ad.effort_max;
    a.command = ad.command;
    m->actuators.push_back(a);
  }

  std::set<std::string> equality_names;
  for (const auto& ed : equalities_) {
    const std::string w = where("equality", ed.name, ed.source);
    require(!ed.name.empty(), ed.source, "an equality has no name");
    require(equality_names.insert(ed.name).second, w, "defined twice");
    require(!std::isnan(ed.stiffness) && ed.stiffness > 0.0, w, "stiffness must be positive (inf = rigid)");
    require(std::isfinite(ed.damping) && ed.damping >= 0.0, w, "damping must be >= 0");
    Equality e;
    e.name = ed.name;
    e.type = ed.type;
    e.stiffness = ed.stiffness;
    e.damping = ed.damping;
    if (ed.type == EqualityType::Joint) {
      auto one_dof = [&](const std::string& name) {
        const int k = joint_id_of(name);
        require(k >= 0, w, "unknown joint '" + name + "'");
        require(m->joints[k].nq == 1, w, "joint '" + name + "' is not revolute or prismatic");
        return k;
      };
      e.joint_a = one_dof(ed.joint_a);
      if (!ed.joint_b.empty()) e.joint_b = one_dof(ed.joint_b);
      require(e.joint_a != e.joint_b, w, "joint_a and joint_b must differ");
      for (double c : ed.poly) require_finite(c, w, "polynomial coefficient");
      require_finite(ed.ref_a, w, "ref_a");
      require_finite(ed.ref_b, w, "ref_b");
      e.poly = ed.poly;
      e.ref_a = ed.ref_a;
      e.ref_b = ed.ref_b;
      m->equalities.push_back(e);
      continue;
    }
    require(body_ids.count(ed.body_a), w, "unknown body '" + ed.body_a + "'");
    require(body_ids.count(ed.body_b), w, "unknown body '" + ed.body_b + "'");
    require(ed.body_a != ed.body_b, w, "body_a and body_b must differ");
    require(all_finite(ed.anchor_a) && all_finite(ed.anchor_b) && all_finite(ed.relative.coeffs()) &&
                ed.relative.norm() > 1e-9,
            w, "anchors and orientation must be finite");
    e.body_a = body_ids.at(ed.body_a);
    e.body_b = body_ids.at(ed.body_b);
    e.anchor_a = ed.anchor_a;
    e.anchor_b = ed.anchor_b;
    e.relative = ed.relative.normalized();
    m->equalities.push_back(e);
  }

  std::vector<std::pair<const KeyframeDef*, size_t>> starts;  // (definition, index in m->keyframes)
  for (const auto& kd : keyframes_) {
    const std::string w = where("keyframe", kd.key.name, kd.source);
    if (kd.start) starts.emplace_back(&kd, m->keyframes.size());
    Keyframe k = kd.key;
    if (!kd.joints.empty()) k = expand_keyframe(*m, kd, w);
    auto sized = [&](VecX& x, const VecX& fallback, const char* what) {
      if (x.size() == 0) x = fallback;
      require(x.size() == fallback.size(), w,
              std::string(what) + " has " + std::to_string(x.size()) + " values, the model needs " + std::to_string(fallback.size()));
      require(all_finite(x), w, std::string(what) + " is not finite");
    };
    sized(k.q, m->q0, "q");
    for (const Joint& j : m->joints)  // orientations are unit quaternions (as MuJoCo makes them)
      if (j.type == JointType::Free || j.type == JointType::Ball) {
        auto quat = k.q.segment<4>(j.qadr + (j.type == JointType::Free ? 3 : 0));
        require(quat.norm() > 1e-9, w, "joint '" + j.name + "': the orientation quaternion is zero");
        quat.normalize();
      }
    sized(k.v, m->v0, "v");
    sized(k.ctrl, VecX::Zero(static_cast<Eigen::Index>(m->actuators.size())), "ctrl");
    require_finite(k.time, w, "time");
    m->keyframes.push_back(std::move(k));
  }
  // After every keyframe is expanded: the others take the file's own initial values.
  for (const auto& [kd, index] : starts) {
    const Keyframe& k = m->keyframes[index];
    if (kd->joints.empty()) {
      m->q0 = k.q;
      m->v0 = k.v;
    }
    for (const auto& name : kd->joints) {
      const Joint& j = m->joints[m->find_joint(name)];
      m->q0.segment(j.qadr, j.nq) = k.q.segment(j.qadr, j.nq);
      m->v0.segment(j.vadr, j.nv) = k.v.segment(j.vadr, j.nv);
    }
  }

  // Computed starts win over the definitions and the start keyframes.
  for (const auto& [name, q, source] : initial_q_) {
    const std::string w = where("joint", name, source);
    const Joint& j = m->joints[static_cast<size_t>(m->joint_id(name))];
    require(q.size() == j.nq, w, "initial q has " + std::to_string(q.size()) + " values, the joint " + std::to_string(j.nq));
    require(all_finite(q), w, "initial q is not finite");
    m->q0.segment(j.qadr, j.nq) = q;
    if (j.type == JointType::Free || j.type == JointType::Ball) {
      auto quat = m->q0.segment<4>(j.qadr + (j.type == JointType::Free ? 3 : 0));
      require(quat.norm() > 1e-9, w, "initial orientation quaternion is zero");
      quat.normalize();
    }
  }

  for (const auto& [a, b, source] : exclusions_) {
    const std::string w = where("exclusion", a + "/" + b, source);
    require(body_ids.count(a), w, "unknown body '" + a + "'");
    require(body_ids.count(b), w, "unknown body '" + b + "'");
    const int ia = body_ids.at(a), ib = body_ids.at(b);
    m->excluded_body_pairs.emplace_back(std::min(ia, ib), std::max(ia, ib));
  }
  // Sorted once, so the broadphase's check per candidate pair is a binary search (robot
  // files add many exclusions).
  auto& ex = m->excluded_body_pairs;
  std::sort(ex.begin(), ex.end());
  ex.erase(std::unique(ex.begin(), ex.end()), ex.end());
  return m;
}

void ModelBuilder::map_convex_meshes(const std::function<std::shared_ptr<const Mesh>(const std::shared_ptr<const Mesh>&)>& f) {
  std::set<std::string> convex;
  for (const GeomDef& gd : geoms_)
    if (gd.type == GeomType::ConvexMesh) convex.insert(gd.mesh);
  for (auto& mesh : meshes_)
    if (mesh && convex.count(mesh->name)) mesh = f(mesh);
}

}  // namespace graspsim
