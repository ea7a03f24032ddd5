// The resolved scene tree (includes merged, parameters substituted) into a ModelBuilder.
// Every section checks its keys, so a typo is an error and not a silent default.

#include <cmath>
#include <filesystem>
#include <numbers>
#include <set>

#include "core/error.h"
#include "io/scene_fields.h"
#include "io/scene_internal.h"
#include "robots/robot_file.h"
#include "collision/extrusion.h"
#include "collision/mesh_io.h"

namespace graspsim::scene_detail {
namespace {

const std::vector<std::string> kContactKeys = {"friction", "young_modulus", "damping", "restitution", "friction_model",
                                               "solver", "tangents", "primary_direction", "area", "torsional_friction"};

// The items of a list section; an absent or empty section has none.
const std::vector<YamlNode>& items(const YamlNode& root, const std::string& key) {
  static const std::vector<YamlNode> kNone;
  const YamlNode* n = root.find(key);
  if (!n || n->is_null()) return kNone;
  expect_sequence(*n, key);
  return n->items;
}

// "body 'box'" when the item has a name, else "bodies item 2".
std::string section_name(const YamlNode& item, const std::string& kind, const std::string& list, size_t index) {
  const YamlNode* name = item.is_map() ? item.find("name") : nullptr;
  if (name && name->is_scalar()) return kind + " '" + name->scalar + "'";
  return list + " item " + std::to_string(index + 1);
}

void read_contact(const YamlNode& m, ContactMaterial& c) {
  for (const auto& e : m.entries) {
    const YamlNode& v = e.value;
    const std::string& k = e.key;
    if (k == "friction") c.friction = as_number(v, k);
    else if (k == "young_modulus") c.spook.young_modulus = as_number(v, k);
    else if (k == "damping") c.spook.damping = as_number(v, k);
    else if (k == "restitution") c.restitution = as_number(v, k);
    else if (k == "tangents") c.spook.tangents = as_int(v, k, 2);
    else if (k == "torsional_friction") c.spook.torsional_friction = as_number(v, k);
    else if (k == "primary_direction") c.spook.primary_direction = as_vec3(v, k);
    else if (k == "solver") c.spook.solver = as_enum<SolverType>(v, k);
    else if (k == "area") c.spook.area = as_enum<ContactArea>(v, k);
    else if (k == "friction_model") c.spook.friction_model = as_enum<FrictionModel>(v, k);
  }
}

void read_quasistatic(const YamlNode& m, QuasistaticOptions& o) {
  expect_map(m, "quasistatic");
  check_keys(m, "options: quasistatic", {"tangent_directions", "stiffness", "big_m", "penetration", "miqp_solver", "miqp_max_nodes", "miqp_gap_rel", "closed_gap", "stabilize", "objective_scale",
                                         "regularization", "contact_points", "max_points_per_pair", "point_spacing", "support_tilt",
                                         "persistent_points", "joint_stiffness"});
  for (const auto& e : m.entries) {
    const YamlNode& v = e.value;
    const std::string& k = e.key;
    if (k == "tangent_directions") o.tangent_directions = as_int(v, k, 2);
    else if (k == "stiffness") o.stiffness = as_number(v, k);
    else if (k == "big_m") o.big_m = as_number(v, k);
    else if (k == "penetration") o.penetration = as_enum<PenetrationBound>(v, k);
    else if (k == "miqp_solver") o.miqp_solver = as_enum<MiqpSolver>(v, k);
    else if (k == "miqp_max_nodes") o.miqp_max_nodes = as_int(v, k, 1);
    else if (k == "miqp_gap_rel") o.miqp_gap_rel = as_number(v, k);
    else if (k == "closed_gap") o.closed_gap = as_number(v, k);
    else if (k == "stabilize") o.stabilize = as_bool(v, k);
    else if (k == "objective_scale") o.objective_scale = as_number(v, k);
    else if (k == "regularization") o.regularization = as_number(v, k);
    else if (k == "contact_points") o.contact_points = as_enum<ContactPoints>(v, k);
    else if (k == "max_points_per_pair") o.max_points_per_pair = as_int(v, k, 0);
    else if (k == "point_spacing") o.point_spacing = as_number(v, k);
    else if (k == "support_tilt") o.support_tilt = as_number(v, k);
    else if (k == "persistent_points") o.persistent_points = as_bool(v, k);
    else if (k == "joint_stiffness") {
      expect_map(v, "joint_stiffness");
      for (const auto& j : v.entries) o.joint_stiffness.emplace_back(j.key, as_number(j.value, j.key));
    }
  }
}

void read_penalty(const YamlNode& m, PenaltyOptions& o) {
  expect_map(m, "penalty");
  const std::vector<std::pair<const char*, double*>> fields = {
      {"stiffness", &o.stiffness},         {"damping", &o.damping},
      {"impact_gain", &o.impact_gain},     {"target_depth", &o.target_depth},
      {"impact_delay", &o.impact_delay},   {"filter_frequency", &o.filter_frequency},
      {"filter_damping", &o.filter_damping}, {"friction_smoothing", &o.friction_smoothing},
      {"viscous_friction", &o.viscous_friction}, {"atol", &o.atol},
      {"limit_frequency", &o.limit_frequency}, {"limit_damping", &o.limit_damping},
      {"joint_friction_smoothing", &o.joint_friction_smoothing}, {"stick_length", &o.stick_length},
      {"rtol", &o.rtol},                   {"max_step", &o.max_step}};
  std::vector<std::string> keys{"direction", "rate", "friction"};
  for (const auto& f : fields) keys.emplace_back(f.first);
  check_keys(m, "options: penalty", keys);
  for (const auto& e : m.entries) {
    if (e.key == "direction") o.direction = as_enum<PenaltyDirection>(e.value, e.key);
    if (e.key == "rate") o.rate = as_enum<PenaltyRate>(e.value, e.key);
    if (e.key == "friction") o.friction = as_enum<PenaltyFriction>(e.value, e.key);
    for (const auto& f : fields)
      if (e.key == f.first) *f.second = as_number(e.value, e.key);
  }
}

// `sleep: false`, or a map of SleepOptions' fields.
void read_sleep(const YamlNode& m, SleepOptions& o) {
  if (!m.is_map()) {
    o.enabled = as_bool(m, "sleep");
    return;
  }
  check_keys(m, "sleep", {"enabled", "time", "linear", "angular"});
  if (const YamlNode* v = m.find("enabled")) o.enabled = as_bool(*v, "enabled");
  if (const YamlNode* v = m.find("time")) o.time = as_number(*v, "time");
  if (const YamlNode* v = m.find("linear")) o.linear = as_number(*v, "linear");
  if (const YamlNode* v = m.find("angular")) o.angular = as_number(*v, "angular");
}

void read_options(const YamlNode& m, Options& o) {
  expect_map(m, "options");
  check_keys(m, "options", {"gravity", "dt", "stepper", "integrator", "solver", "iterations", "relax_sweeps", "tolerance", "threads",
                                 "seed", "contact_margin", "patch_grid", "scheme", "quasistatic", "penalty", "sleep"});
  for (const auto& e : m.entries) {
    const YamlNode& v = e.value;
    const std::string& k = e.key;
    if (k == "gravity") o.gravity = as_vec3(v, k);
    else if (k == "dt") o.dt = as_number(v, k);
    else if (k == "iterations") o.spook.iterations = as_int(v, k, 1);
    else if (k == "relax_sweeps") o.spook.relax_sweeps = as_int(v, k, 0);
    else if (k == "tolerance") o.spook.tolerance = as_number(v, k);
    else if (k == "threads") o.spook.threads = as_int(v, k, 1);
    else if (k == "seed") o.seed = as_uint64(v, k);
    else if (k == "contact_margin") o.contact_margin = as_number(v, k);
    else if (k == "patch_grid") o.patch_grid = as_int(v, k, 0);
    else if (k == "solver") o.spook.solver = as_enum<SolverType>(v, k);
    else if (k == "stepper") o.stepper = as_enum<StepperType>(v, k);
    else if (k == "integrator") o.dynamics.integrator = as_enum<Integrator>(v, k);
    else if (k == "scheme") o.quasistatic.scheme = as_enum<QuasistaticScheme>(v, k);
    else if (k == "quasistatic") read_quasistatic(v, o.quasistatic);
    else if (k == "penalty") read_penalty(v, o.penalty);
    else if (k == "sleep") read_sleep(v, o.spook.sleep);
  }
}

void read_recording(const YamlNode& m, RecordingOptions& r) {
  expect_map(m, "recording");
  check_keys(m, "recording", {"every", "bodies", "joints", "contacts", "normal_forces", "configuration", "object",
                              "holders", "carrier"});
  if (const YamlNode* v = m.find("normal_forces")) {
    expect_sequence(*v, "normal_forces");
    for (size_t i = 0; i < v->items.size(); ++i) {
      const auto pair = as_strings(v->items[i], "normal_forces[" + std::to_string(i) + "]", 2);
      r.normal_forces.emplace_back(pair[0], pair[1]);
    }
  }
  if (const YamlNode* v = m.find("configuration")) {
    expect_sequence(*v, "configuration");
    r.configuration = as_strings(*v, "configuration", v->items.size());
  }
  if (const YamlNode* v = m.find("object")) r.object = as_string(*v, "object");
  if (const YamlNode* v = m.find("carrier")) r.carrier = as_string(*v, "carrier");
  if (const YamlNode* v = m.find("holders")) {
    expect_sequence(*v, "holders");
    r.holders = as_strings(*v, "holders", v->items.size());
  }
  if (const YamlNode* v = m.find("every")) r.every = as_int(*v, "every", 1);
  if (const YamlNode* v = m.find("bodies")) r.bodies = as_bool(*v, "bodies");
  if (const YamlNode* v = m.find("joints")) r.joints = as_bool(*v, "joints");
  if (const YamlNode* v = m.find("contacts")) r.contacts = as_bool(*v, "contacts");
}

template <class T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const T& x : items) out.push_back(x.name);
  return out;
}

// A name under `recording:` that the model lacks, told at the name's own line.
void require_name(const YamlNode& node, const std::string& key, const char* kind, int index,
                  const std::vector<std::string>& names) {
  if (index >= 0) return;
  throw InputError(node.loc.str() + ": recording: " + key + ": no " + kind + " named '" + node.scalar + "'" +
                   did_you_mean(node.scalar, names));
}

void read_geom_common(const YamlNode& g, GeomDef& d) {
  d.pose = read_pose(g);
  if (const YamlNode* v = g.find("material")) d.material = as_string(*v, "material");
  if (const YamlNode* v = g.find("density")) d.density = as_number(*v, "density");
  if (const YamlNode* v = g.find("group")) d.group = as_uint32(*v, "group");
  if (const YamlNode* v = g.find("mask")) d.mask = as_uint32(*v, "mask");
  if (const YamlNode* v = g.find("margin")) d.margin = as_number(*v, "margin");
}

// `type: extrusion`: an outline in the geom's xy plane extruded over `height`, centred on z = 0.
// It becomes convex_mesh geoms, one per convex piece of the outline (collision/extrusion.h):
// `name` when the outline is convex, `name/0`, `name/1`, ... when it is not.
void add_extrusion(const YamlNode& g, const std::string& body, const std::string& section, ModelBuilder& builder) {
  check_keys(g, section, {"name", "type", "outline", "height", "pos", "quat", "euler_deg", "material", "density",
                          "group", "mask", "margin"});
  GeomDef d;
  d.body = body;
  d.source = g.loc.str();
  d.type = GeomType::ConvexMesh;
  if (const YamlNode* v = g.find("name")) d.name = as_string(*v, "name");
  read_geom_common(g, d);
  const YamlNode& h = require_key(g, "height", section + " of type extrusion");
  const double height = as_number(h, "height");
  if (!(height > 0)) throw InputError(h.loc.str() + ": key 'height' must be positive, got " + show(height));
  const YamlNode& o = require_key(g, "outline", section + " of type extrusion");
  expect_sequence(o, "outline");
  Outline points;
  for (const YamlNode& p : o.items) {
    const auto xy = as_numbers(p, "outline", {2});
    points.emplace_back(xy[0], xy[1]);
  }
  std::vector<Outline> pieces;
  try {
    pieces = convex_pieces(simple_outline(points));
  } catch (const InputError& e) {
    throw InputError(o.loc.str() + ": " + section + ": " + e.what());
  }
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    GeomDef piece = d;
    if (pieces.size() > 1 && !d.name.empty()) piece.name = d.name + "/" + std::to_string(k);
    piece.mesh = "extrusion " + body + " " + d.source + " " + std::to_string(k);
    builder.add_mesh(std::make_shared<const Mesh>(extrude(pieces[k], height, piece.mesh)));
    builder.add_geom(std::move(piece));
  }
}

void add_geom(const YamlNode& g, const std::string& body, const std::string& section, ModelBuilder& builder) {
  expect_map(g, "geoms");
  if (const YamlNode* t = g.find("type"); t && t->is_scalar() && t->scalar == "extrusion")
    return add_extrusion(g, body, section, builder);
  const YamlNode& type = require_key(g, "type", section);
  if (type.is_scalar() && !from_string<GeomType>(type.scalar)) {
    std::vector<std::string> names;
    for (const auto& [value, name] : EnumNames<GeomType>::table) names.emplace_back(name);
    names.emplace_back("extrusion");
    unknown_value(type, "type", type.scalar, names);
  }
  check_keys(g, section, {"name", "type", "size", "pos", "quat", "euler_deg", "mesh", "material", "density", "group",
                          "mask", "margin"});
  GeomDef d;
  d.body = body;
  d.source = g.loc.str();
  if (const YamlNode* v = g.find("name")) d.name = as_string(*v, "name");
  d.type = as_enum<GeomType>(type, "type");
  const bool is_mesh = d.type == GeomType::ConvexMesh || d.type == GeomType::TriangleMesh;
  const size_t nsize = d.type == GeomType::Sphere ? 1 : d.type == GeomType::Box ? 3 : is_mesh || d.type == GeomType::Plane ? 0 : 2;
  const YamlNode* size = g.find("size");
  if (nsize == 0 && size) throw InputError(size->loc.str() + ": key 'size': a " + std::string(to_string(d.type)) + " takes no size");
  if (nsize > 0) {
    const YamlNode& s = require_key(g, "size", section + " of type " + to_string(d.type));
    const auto v = (nsize == 1 && s.is_scalar()) ? std::vector<double>{as_number(s, "size")} : as_numbers(s, "size", {nsize});
    for (size_t i = 0; i < nsize; ++i) d.size[static_cast<Eigen::Index>(i)] = v[i];
  }
  const YamlNode* mesh = g.find("mesh");
  if (is_mesh) d.mesh = as_string(require_key(g, "mesh", section), "mesh");
  else if (mesh) throw InputError(mesh->loc.str() + ": key 'mesh' applies only to convex_mesh and mesh geoms");
  read_geom_common(g, d);
  builder.add_geom(std::move(d));
}

void read_joint(const YamlNode& j, const std::string& section, JointDef& d) {
  if (!j.is_map()) {
    d.type = as_enum<JointType>(j, "joint");
    return;
  }
  check_keys(j, section, {"type", "name", "axis", "limits", "damping", "armature", "stiffness", "spring_ref", "frictionloss",
                          "q", "v"});
  d.type = as_enum<JointType>(require_key(j, "type", section), "type");
  if (const YamlNode* v = j.find("name")) d.name = as_string(*v, "name");
  if (const YamlNode* v = j.find("axis")) d.axis = as_vec3(*v, "axis");
  if (const YamlNode* v = j.find("limits")) {
    const auto l = as_numbers(*v, "limits", {2}, true);
    d.limits = std::pair{l[0], l[1]};
  }
  if (const YamlNode* v = j.find("damping")) d.damping = as_number(*v, "damping");
  if (const YamlNode* v = j.find("armature")) d.armature = as_number(*v, "armature");
  if (const YamlNode* v = j.find("stiffness")) d.stiffness = as_number(*v, "stiffness");
  if (const YamlNode* v = j.find("spring_ref")) d.spring_ref = as_number(*v, "spring_ref");
  if (const YamlNode* v = j.find("frictionloss")) d.frictionloss = as_number(*v, "frictionloss");
  if (const YamlNode* v = j.find("q")) d.q_init = as_vecx(*v, "q");
  if (const YamlNode* v = j.find("v")) d.v_init = as_vecx(*v, "v");
}

Mat3 read_inertia(const YamlNode& n) {
  const auto v = as_numbers(n, "inertia", {3, 6});
  Mat3 I = Vec3(v[0], v[1], v[2]).asDiagonal();
  if (v.size() == 6) {
    I(0, 1) = I(1, 0) = v[3];
    I(0, 2) = I(2, 0) = v[4];
    I(1, 2) = I(2, 1) = v[5];
  }
  return I;
}

void read_body(const YamlNode& b, const std::string& section, ModelBuilder& builder) {
  expect_map(b, "bodies");
  check_keys(b, section, {"name", "parent", "pos", "quat", "euler_deg", "joint", "velocity", "mass", "com", "inertia",
                          "kinematic", "prescribed_velocity", "geoms"});
  BodyDef d;
  d.source = b.loc.str();
  d.name = as_string(require_key(b, "name", "a body"), "name");
  if (const YamlNode* v = b.find("parent")) d.parent = as_string(*v, "parent");
  d.pose = read_pose(b);
  if (const YamlNode* v = b.find("joint")) read_joint(*v, "joint of " + section, d.joint);
  if (const YamlNode* v = b.find("velocity")) {
    if (d.joint.v_init) throw InputError(v->loc.str() + ": give the initial velocity as 'velocity' or 'joint.v', not both");
    d.joint.v_init = as_vecx(*v, "velocity");
  }
  if (const YamlNode* v = b.find("mass")) d.mass = as_number(*v, "mass");
  if (const YamlNode* v = b.find("com")) d.com = as_vec3(*v, "com");
  if (const YamlNode* v = b.find("inertia")) d.inertia = read_inertia(*v);
  if (const YamlNode* v = b.find("kinematic")) d.kinematic = as_bool(*v, "kinematic");
  if (const YamlNode* v = b.find("prescribed_velocity")) {
    if (!d.kinematic) throw InputError(v->loc.str() + ": " + section + ": 'prescribed_velocity' needs 'kinematic: true'");
    expect_sequence(*v, "prescribed_velocity");
    for (size_t i = 0; i < v->items.size(); ++i)
      d.velocity.push_back(as_signal(v->items[i], "prescribed_velocity[" + std::to_string(i) + "]"));
  }
  if (const YamlNode* geoms = b.find("geoms"); geoms && !geoms->is_null()) {
    expect_sequence(*geoms, "geoms");
    for (size_t i = 0; i < geoms->items.size(); ++i)
      add_geom(geoms->items[i], d.name, section_name(geoms->items[i], "geom", "geoms of " + section, i), builder);
  }
  builder.add_body(std::move(d));
}

void read_mesh(const YamlNode& m, const std::string& section, const std::string& scene_path, ModelBuilder& builder) {
  namespace fs = std::filesystem;
  expect_map(m, "meshes");
  check_keys(m, section, {"name", "file", "scale"});
  const std::string name = as_string(require_key(m, "name", "a mesh"), "name");
  const YamlNode& file = require_key(m, "file", section);
  // Relative to the file that names it (an include may live elsewhere); --set values
  // are relative to the scene file.
  const fs::path base = fs::path(file.loc.line > 0 ? file.loc.file : scene_path).parent_path();
  const fs::path path = fs::path(as_string(file, "file")).is_absolute() ? fs::path(file.scalar) : base / file.scalar;
  Vec3 scale = Vec3::Ones();
  if (const YamlNode* s = m.find("scale")) {
    scale = s->is_scalar() ? Vec3::Constant(as_number(*s, "scale")) : as_vec3(*s, "scale");
    if ((scale.array() == 0.0).any()) throw InputError(s->loc.str() + ": key 'scale': must be nonzero");
  }
  try {
    builder.add_mesh(load_mesh(path.lexically_normal().string(), name, scale));
  } catch (const InputError& e) {
    throw InputError(m.loc.str() + ": " + e.what());  // load_mesh names the mesh and its file
  }
}

void read_actuator(const YamlNode& a, const std::string& section, ModelBuilder& builder) {
  expect_map(a, "actuators");
  check_keys(a, section, {"name", "joint", "type", "kp", "kv", "dof", "effort_limits", "command"});
  ActuatorDef d;
  d.source = a.loc.str();
  d.name = as_string(require_key(a, "name", "an actuator"), "name");
  d.joint = as_string(require_key(a, "joint", section), "joint");
  if (const YamlNode* v = a.find("type"))
    d.type = as_enum<ActuatorType>(*v, "type");
  if (const YamlNode* v = a.find("kp")) d.kp = as_number(*v, "kp");
  if (const YamlNode* v = a.find("kv")) d.kv = as_number(*v, "kv");
  if (const YamlNode* v = a.find("dof")) d.dof = as_int(*v, "dof", 0);
  if (const YamlNode* v = a.find("effort_limits")) {
    const auto l = as_numbers(*v, "effort_limits", {2}, true);
    d.effort_min = l[0];
    d.effort_max = l[1];
  }
  if (const YamlNode* v = a.find("command")) d.command = as_signal(*v, "command");
  builder.add_actuator(std::move(d));
}

void read_equality(const YamlNode& e, const std::string& section, ModelBuilder& builder) {
  expect_map(e, "equalities");
  check_keys(e, section, {"name", "type", "body_a", "body_b", "anchor_a", "anchor_b", "quat", "euler_deg", "stiffness",
                          "damping"});
  EqualityDef d;
  d.source = e.loc.str();
  d.name = as_string(require_key(e, "name", "an equality"), "name");
  if (const YamlNode* v = e.find("type"))
    d.type = as_enum<EqualityType>(*v, "type");
  if (const YamlNode* v = e.find("body_a")) d.body_a = as_string(*v, "body_a");
  d.body_b = as_string(require_key(e, "body_b", section), "body_b");
  if (const YamlNode* v = e.find("anchor_a")) d.anchor_a = as_vec3(*v, "anchor_a");
  if (const YamlNode* v = e.find("anchor_b")) d.anchor_b = as_vec3(*v, "anchor_b");
  d.relative = read_pose(e).q;  // quat / euler_deg: B's orientation in A (weld)
  if (const YamlNode* v = e.find("stiffness")) d.stiffness = as_number(*v, "stiffness", true);
  if (const YamlNode* v = e.find("damping")) d.damping = as_number(*v, "damping");
  builder.add_equality(std::move(d));
}

// A robot file (MJCF or URDF), placed on a body of the scene (default the world).
void read_robot(const YamlNode& r, const std::string& section, const std::string& scene_path, ModelBuilder& builder,
                Scene& scene) {
  expect_map(r, section);
  check_keys(r, section, {"file", "prefix", "parent", "site", "pos", "quat", "euler_deg", "keyframe"});
  RobotPlacement placement;
  const std::string file = as_string(require_key(r, "file", section), "file");
  if (const YamlNode* v = r.find("prefix")) placement.prefix = as_string(*v, "prefix");
  if (const YamlNode* v = r.find("parent")) placement.parent = as_string(*v, "parent");
  if (const YamlNode* v = r.find("site")) placement.site = as_string(*v, "site");
  if (r.find("parent") && r.find("site")) throw InputError(r.loc.str() + ": " + section + ": give either 'parent' or 'site', not both");
  placement.pose = read_pose(r);
  const std::filesystem::path path = std::filesystem::path(file).is_absolute()
                                         ? std::filesystem::path(file)
                                         : std::filesystem::path(scene_path).parent_path() / file;
  try {
    const size_t first_keyframe = builder.keyframe_count();
    scene.robots.push_back(add_robot(builder, path.string(), placement));
    if (const YamlNode* v = r.find("keyframe"))
      builder.start_at_keyframe(first_keyframe, as_string(*v, "keyframe"), "keyframe");
  } catch (const InputError& e) {
    throw InputError(r.loc.str() + ": " + section + ": " + e.what());
  }
}

}  // namespace

void check_recording(const YamlNode& root, const Model& model) {
  const YamlNode* r = root.find("recording");
  if (!r || !r->is_map()) return;
  const auto bodies = names_of(model.bodies), geoms = names_of(model.geoms), joints = names_of(model.joints);
  for (const char* key : {"object", "carrier"})
    if (const YamlNode* v = r->find(key)) require_name(*v, key, "body", model.find_body(v->scalar), bodies);
  if (const YamlNode* v = r->find("holders"))
    for (const YamlNode& h : v->items) require_name(h, "holders", "body", model.find_body(h.scalar), bodies);
  if (const YamlNode* v = r->find("configuration"))
    for (const YamlNode& j : v->items) require_name(j, "configuration", "joint", model.find_joint(j.scalar), joints);
  if (const YamlNode* v = r->find("normal_forces"))
    for (const YamlNode& pair : v->items)
      for (const YamlNode& g : pair.items) require_name(g, "normal_forces", "geom", model.find_geom(g.scalar), geoms);
}

void read_scene(const YamlNode& root, const std::string& scene_path, ModelBuilder& builder, Scene& scene) {
  check_keys(root, "the scene",
             {"parameters", "duration", "options", "recording", "materials", "contact_materials", "default_contact",
              "meshes", "geoms", "bodies", "actuators", "equalities", "exclude", "robots", "controls", "trajectories"});
  if (const YamlNode* v = root.find("duration")) {
    scene.duration = as_number(*v, "duration");
    if (scene.duration <= 0) throw InputError(v->loc.str() + ": key 'duration': must be positive");
  }
  // Robot files after the default contact (their materials' pairs start from it) and
  // before the options (their <option> sets dt and gravity, which the scene's override).
  if (const YamlNode* v = root.find("default_contact"); v && !v->is_null()) {
    expect_map(*v, "default_contact");
    check_keys(*v, "default_contact", kContactKeys);
    read_contact(*v, builder.default_contact());
  }
  const auto& robots = items(root, "robots");
  for (size_t i = 0; i < robots.size(); ++i) read_robot(robots[i], "robots item " + std::to_string(i + 1), scene_path, builder, scene);
  if (const YamlNode* v = root.find("options"); v && !v->is_null()) read_options(*v, builder.options());
  if (const YamlNode* v = root.find("recording"); v && !v->is_null()) read_recording(*v, scene.recording);
  for (const auto& m : items(root, "materials")) builder.add_material(as_string(m, "materials"), m.loc.str());
  const auto& cms = items(root, "contact_materials");
  for (size_t i = 0; i < cms.size(); ++i) {
    const YamlNode& c = cms[i];
    const std::string section = "contact_materials item " + std::to_string(i + 1);
    expect_map(c, "contact_materials");
    std::vector<std::string> keys = kContactKeys;
    keys.push_back("materials");
    check_keys(c, section, keys);
    const auto pair = as_strings(require_key(c, "materials", section), "materials", 2);
    ContactMaterialDef d{pair[0], pair[1], builder.default_contact(), c.loc.str()};
    read_contact(c, d.props);
    builder.add_contact_material(std::move(d));
  }
  const auto& meshes = items(root, "meshes");
  std::set<std::string> mesh_names;  // checked here: the builder's Mesh carries no source line
  for (size_t i = 0; i < meshes.size(); ++i) {
    const std::string section = section_name(meshes[i], "mesh", "meshes", i);
    read_mesh(meshes[i], section, scene_path, builder);
    if (!mesh_names.insert(meshes[i].find("name")->scalar).second)
      throw InputError(meshes[i].loc.str() + ": " + section + " is defined twice");
  }
  const auto& geoms = items(root, "geoms");
  for (size_t i = 0; i < geoms.size(); ++i) add_geom(geoms[i], "world", section_name(geoms[i], "geom", "geoms", i), builder);
  const auto& bodies = items(root, "bodies");
  for (size_t i = 0; i < bodies.size(); ++i) read_body(bodies[i], section_name(bodies[i], "body", "bodies", i), builder);
  const auto& acts = items(root, "actuators");
  for (size_t i = 0; i < acts.size(); ++i) read_actuator(acts[i], section_name(acts[i], "actuator", "actuators", i), builder);
  const auto& eqs = items(root, "equalities");
  for (size_t i = 0; i < eqs.size(); ++i) read_equality(eqs[i], section_name(eqs[i], "equality", "equalities", i), builder);
  // Commands for actuators defined elsewhere (a robot file's): {actuator, command}.
  const auto& controls = items(root, "controls");
  for (size_t i = 0; i < controls.size(); ++i) {
    const YamlNode& c = controls[i];
    const std::string section = "controls item " + std::to_string(i + 1);
    expect_map(c, "controls");
    check_keys(c, section, {"actuator", "command"});
    builder.set_command(as_string(require_key(c, "actuator", section), "actuator"),
                        as_signal(require_key(c, "command", section), "command"), c.loc.str());
  }
  for (const auto& pair : items(root, "exclude")) {
    const auto names = as_strings(pair, "exclude", 2);
    builder.exclude_pair(names[0], names[1], pair.loc.str());
  }
  // Last: IK along the trajectories needs the model everything above defines.
  read_trajectories(root, builder);
}

}  // namespace graspsim::scene_detail
