#include "robots/mjcf.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <numbers>
#include <optional>
#include <set>
#include <sstream>

#include "collision/mesh_io.h"
#include "collision/mesh_tools.h"
#include "core/error.h"
#include "model/mass_properties.h"
#include "robots/mjcf_parts.h"
#include "robots/warnings.h"
#include "robots/xml_tree.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;
using Attrs = std::map<std::string, std::string>;

// Elements that carry no physics graspsim uses: reported once each, as not used.
const std::set<std::string> kDrawingElements = {"visual", "statistic", "light", "camera", "material", "texture", "hfield",
                                                 "skin", "size", "custom", "extension", "sensor"};

const std::set<std::string> kActuatorTags = {"general", "position", "motor", "velocity"};
const std::set<std::string> kDefaultTags = {"joint", "geom", "site", "mesh", "general", "position", "motor", "velocity",
                                            "equality", "tendon", "camera", "light", "material", "pair"};

// ---- default classes ------------------------------------------------------------------
// Each class holds, per element kind, the attributes it sets (its parent's merged in).
// Actuator shortcuts share one kind, as in MuJoCo (one actuator default per class).
std::string default_kind(const std::string& tag) { return kActuatorTags.count(tag) ? "actuator" : tag; }

struct DefaultClass {
  std::map<std::string, Attrs> kinds;
};

// ---- numbers --------------------------------------------------------------------------
std::vector<double> numbers(const std::string& text, const std::string& what, const XmlElement& e) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string tok;
  while (in >> tok) {
    char* end = nullptr;
    const double x = std::strtod(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0' || std::isnan(x))
      throw InputError(e.where() + ": <" + e.tag + "> attribute '" + what + "': '" + tok + "' is not a number");
    out.push_back(x);
  }
  return out;
}

struct Context;

// One element's attributes with its class defaults behind them.
struct View {
  const XmlElement& e;
  const Attrs* defaults = nullptr;

  const std::string* raw(const std::string& name) const {
    if (const std::string* v = e.find(name)) return v;
    if (defaults) {
      auto it = defaults->find(name);
      if (it != defaults->end()) return &it->second;
    }
    return nullptr;
  }
  std::optional<std::vector<double>> nums(const std::string& name, size_t min_count, size_t max_count) const {
    const std::string* v = raw(name);
    if (!v) return std::nullopt;
    auto x = numbers(*v, name, e);
    if (x.size() < min_count || x.size() > max_count) {
      const std::string want = min_count == max_count ? std::to_string(min_count)
                                                      : std::to_string(min_count) + " to " + std::to_string(max_count);
      throw InputError(e.where() + ": <" + e.tag + "> attribute '" + name + "' needs " + want + " numbers, got " +
                       std::to_string(x.size()));
    }
    return x;
  }
  double num(const std::string& name, double fallback) const {
    auto x = nums(name, 1, 1);
    return x ? (*x)[0] : fallback;
  }
  Vec3 vec3(const std::string& name, const Vec3& fallback) const {
    auto x = nums(name, 3, 3);
    return x ? Vec3((*x)[0], (*x)[1], (*x)[2]) : fallback;
  }
  std::string str(const std::string& name, const std::string& fallback = "") const {
    const std::string* v = raw(name);
    return v ? *v : fallback;
  }
  bool has(const std::string& name) const { return raw(name) != nullptr; }
};

// ---- the loader -----------------------------------------------------------------------
struct BodyInfo {
  std::string name;     // graspsim name (prefixed), of the body carrying the geoms (the
                        // last of a multi-joint chain)
  int weld = 0;         // MuJoCo weld group: index of the nearest ancestor-or-self with a joint
  int parent_index = -1;
  Pose X_world;         // body frame in the robot's world at q0 (for connect anchors)
};

struct Context {
  Context(ModelBuilder& b, const RobotPlacement& p, fs::path dir) : builder(b), placement(p), model_dir(std::move(dir)) {}
  ModelBuilder& builder;
  const RobotPlacement& placement;
  fs::path model_dir;
  RobotSummary summary;
  Warnings warnings;

  // compiler
  bool degrees = true;
  bool autolimits = false;
  std::string inertia_from_geom = "auto";
  std::string euler_seq = "xyz";
  fs::path mesh_dir, asset_dir;
  int inertia_group_min = 0, inertia_group_max = 5;
  bool exact_mesh_inertia = false;
  bool in_worldbody = false;  // reading the worldbody's own geoms and sites

  std::map<std::string, DefaultClass> classes;
  std::map<std::string, std::pair<std::string, Vec3>> mesh_assets;  // name → file, scale
  std::map<std::string, std::shared_ptr<const Mesh>> meshes;        // loaded, by name
  std::map<std::string, std::shared_ptr<const Mesh>> hulls;         // collision meshes, by name
  std::set<std::string> visual_meshes;                              // meshes added as drawn
  std::vector<BodyInfo> bodies{BodyInfo{"world", 0, -1, Pose::Identity()}};
  std::map<std::string, int> body_index;  // MJCF body name → index in bodies
  std::map<std::string, double> joint_ref;  // every joint (graspsim name) → its qpos0 (`ref`; 0 if none)
  std::vector<std::string> joint_order;                    // graspsim joint names, MuJoCo's order
  std::vector<std::string> actuator_order;                 // graspsim actuator names, file order
  std::map<std::string, std::string> materials;  // key → material name
  std::vector<std::tuple<std::string, double, int, bool>> material_list;  // name, friction, priority, new here
  std::set<std::string> geom_names;

  std::string name(const std::string& n) const { return placement.prefix + n; }

  const Attrs* defaults_for(const std::string& cls, const std::string& tag) const {
    auto it = classes.find(cls);
    if (it == classes.end()) return nullptr;
    auto k = it->second.kinds.find(default_kind(tag));
    return k == it->second.kinds.end() ? nullptr : &k->second;
  }
  // The element's class: its own, else the enclosing childclass, else "main".
  // `defaults_tag`: the kind of default that applies when it is not the tag (an
  // <equality><joint> takes <default><equality>, not <default><joint>).
  View view(const XmlElement& e, const std::string& childclass, const std::string& rules_key = "",
            const std::string& defaults_tag = "") {
    check_attributes(e, rules_key.empty() ? e.tag : rules_key);
    std::string cls = childclass.empty() ? "main" : childclass;
    if (const std::string* c = e.find("class")) cls = *c;
    if (!classes.count(cls)) throw InputError(e.where() + ": <" + e.tag + "> uses unknown default class '" + cls + "'");
    return View{e, defaults_for(cls, defaults_tag.empty() ? e.tag : defaults_tag)};
  }

  void check_attributes(const XmlElement& e, const std::string& key) {
    auto it = mjcf::element_rules().find(key);
    if (it == mjcf::element_rules().end()) return;
    const mjcf::ElementRules& r = it->second;
    for (const auto& [attr, value] : e.attributes) {
      if (r.used.count(attr)) continue;
      if (r.drawing.count(attr)) {
        warnings.add(e, "<" + e.tag + "> attribute '" + attr + "' is not used (drawing only)");
      } else if (auto a = r.approximated.find(attr); a != r.approximated.end()) {
        warnings.add(e, "<" + e.tag + "> attribute '" + attr + "' " + a->second);
      } else {
        warnings.add(e, "<" + e.tag + "> attribute '" + attr + "' is not supported (ignored)");
      }
    }
  }
  void unsupported_element(const XmlElement& e, const std::string& why = "is not supported (ignored)") {
    warnings.add(e, "<" + e.tag + "> " + why);
  }

  double angle(double x) const { return degrees ? x * std::numbers::pi / 180.0 : x; }
};

// ---- frames ---------------------------------------------------------------------------
Quat euler_quat(const Context& c, const std::vector<double>& a, const XmlElement& e) {
  const std::string& seq = c.euler_seq;
  if (seq.size() != 3) throw InputError(e.where() + ": compiler eulerseq must have 3 letters, got '" + seq + "'");
  Quat q = Quat::Identity();
  for (int i = 0; i < 3; ++i) {
    const char ch = seq[static_cast<size_t>(i)];
    const int axis = std::tolower(ch) - 'x';
    if (axis < 0 || axis > 2) throw InputError(e.where() + ": compiler eulerseq letter '" + std::string(1, ch) + "'");
    const Quat r(Eigen::AngleAxisd(c.angle(a[static_cast<size_t>(i)]), Vec3::Unit(axis)));
    q = std::islower(ch) ? q * r : r * q;  // lower case: rotating axes (intrinsic)
  }
  return q;
}

Quat orientation(const Context& c, const View& v) {
  if (auto q = v.nums("quat", 4, 4)) {
    Quat r((*q)[0], (*q)[1], (*q)[2], (*q)[3]);
    if (r.norm() < 1e-12) throw InputError(v.e.where() + ": <" + v.e.tag + "> quat is zero");
    return r.normalized();
  }
  if (auto a = v.nums("axisangle", 4, 4)) {
    const Vec3 axis((*a)[0], (*a)[1], (*a)[2]);
    if (axis.norm() < 1e-12) throw InputError(v.e.where() + ": <" + v.e.tag + "> axisangle axis is zero");
    return Quat(Eigen::AngleAxisd(c.angle((*a)[3]), axis.normalized()));
  }
  if (auto eu = v.nums("euler", 3, 3)) return euler_quat(c, *eu, v.e);
  if (auto xy = v.nums("xyaxes", 6, 6)) {
    Vec3 x((*xy)[0], (*xy)[1], (*xy)[2]), y((*xy)[3], (*xy)[4], (*xy)[5]);
    x.normalize();
    y = (y - y.dot(x) * x).normalized();
    Mat3 R;
    R << x, y, x.cross(y);
    return Quat(R);
  }
  if (auto z = v.nums("zaxis", 3, 3)) return Quat::FromTwoVectors(Vec3::UnitZ(), Vec3((*z)[0], (*z)[1], (*z)[2]).normalized());
  return Quat::Identity();
}

Pose frame(const Context& c, const View& v) { return {v.vec3("pos", Vec3::Zero()), orientation(c, v)}; }

// ---- compiler, option, defaults, assets ----------------------------------------------
void read_compiler(Context& c, const XmlElement& e) {
  c.check_attributes(e, "compiler");
  const View v{e};
  const std::string angle = v.str("angle", "degree");
  if (angle != "degree" && angle != "radian")
    throw InputError(e.where() + ": <compiler> angle must be degree or radian, got '" + angle + "'");
  c.degrees = angle == "degree";
  c.autolimits = v.str("autolimits", "false") == "true";
  c.inertia_from_geom = v.str("inertiafromgeom", "auto");
  c.euler_seq = v.str("eulerseq", "xyz");
  c.exact_mesh_inertia = v.str("exactmeshinertia", "false") == "true";
  if (v.str("coordinate", "local") != "local")
    throw InputError(e.where() + ": <compiler coordinate=\"global\"> is not supported (MuJoCo 2.2.2 removed it too)");
  if (v.has("assetdir")) c.asset_dir = c.model_dir / v.str("assetdir");
  if (v.has("meshdir")) c.mesh_dir = c.model_dir / v.str("meshdir");
  if (auto g = v.nums("inertiagrouprange", 2, 2)) {
    c.inertia_group_min = static_cast<int>((*g)[0]);
    c.inertia_group_max = static_cast<int>((*g)[1]);
  }
}

void read_option(Context& c, const XmlElement& e) {
  c.check_attributes(e, "option");
  const View v{e};
  Options& o = c.builder.options();
  o.dt = v.num("timestep", 0.002);
  o.gravity = v.vec3("gravity", Vec3(0, 0, -9.81));
  for (const auto& child : e.children) c.unsupported_element(child, "is not used (MuJoCo solver flags)");
}

void read_default(Context& c, const XmlElement& e, const std::string& parent) {
  const std::string* cls = e.find("class");
  const std::string name = parent.empty() ? (cls ? *cls : "main") : (cls ? *cls : "");
  if (name.empty()) throw InputError(e.where() + ": a nested <default> needs a class");
  if (c.classes.count(name))
    throw InputError(e.where() + ": default class '" + name + "' is defined twice (classes must be unique)");
  DefaultClass d = parent.empty() ? DefaultClass{} : c.classes.at(parent);
  for (const auto& child : e.children) {
    if (child.tag == "default") continue;
    if (!kDefaultTags.count(child.tag)) {
      c.unsupported_element(child, "is not supported in <default> (ignored)");
      continue;
    }
    const std::string key = kActuatorTags.count(child.tag) ? "actuator" : child.tag;
    if (mjcf::element_rules().count(key)) c.check_attributes(child, key);
    Attrs& a = d.kinds[default_kind(child.tag)];
    for (const auto& [k, val] : child.attributes) a[k] = val;
  }
  c.classes.emplace(name, d);
  for (const auto& child : e.children)
    if (child.tag == "default") read_default(c, child, name);
}

void read_asset(Context& c, const XmlElement& e) {
  for (const auto& child : e.children) {
    if (child.tag != "mesh") {
      c.unsupported_element(child, "is not used (drawing only)");
      continue;
    }
    const View v = c.view(child, "");
    const std::string file = v.str("file");
    if (file.empty()) throw InputError(child.where() + ": <mesh> needs a file (inline meshes are not supported)");
    const std::string name = v.str("name", fs::path(file).stem().string());
    if (!c.mesh_assets.emplace(name, std::pair{file, v.vec3("scale", Vec3::Ones())}).second)
      throw InputError(child.where() + ": mesh '" + name + "' is defined twice");
  }
}

std::shared_ptr<const Mesh> mesh_named(Context& c, const std::string& name, const XmlElement& at) {
  if (auto it = c.meshes.find(name); it != c.meshes.end()) return it->second;
  auto asset = c.mesh_assets.find(name);
  if (asset == c.mesh_assets.end()) throw InputError(at.where() + ": <geom> uses unknown mesh '" + name + "'");
  const auto& [file, scale] = asset->second;
  const fs::path dir = !c.mesh_dir.empty() ? c.mesh_dir : !c.asset_dir.empty() ? c.asset_dir : c.model_dir;
  const fs::path path = fs::path(file).is_absolute() ? fs::path(file) : dir / file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(at.where() + ": mesh '" + name + "': file '" + path.string() + "' not found");
  auto mesh = load_mesh(path.string(), c.name(name), scale);
  c.meshes[name] = mesh;
  return mesh;
}

// MuJoCo collides the convex hull of a mesh.
std::shared_ptr<const Mesh> hull_named(Context& c, const std::string& name, const XmlElement& at) {
  if (auto it = c.hulls.find(name); it != c.hulls.end()) return it->second;
  auto mesh = mesh_named(c, name, at);
  auto hull = std::make_shared<Mesh>(convex_hull(mesh->vertices, c.name(name) + ":hull"));
  c.builder.add_mesh(hull);
  c.hulls[name] = hull;
  return hull;
}

// ---- geoms and their mass -------------------------------------------------------------
struct GeomShape {
  GeomType type = GeomType::Sphere;
  Vec3 size = Vec3::Zero();
  Pose pose;
  bool ellipsoid = false;
  Vec3 radii = Vec3::Zero();  // ellipsoid semi-axes
};

GeomShape geom_shape(Context& c, const View& v) {
  const XmlElement& e = v.e;
  GeomShape s;
  const std::string type = v.str("type", "sphere");
  auto size = v.nums("size", 0, 3).value_or(std::vector<double>{});
  auto need = [&](size_t n) {
    if (size.size() < n)
      throw InputError(e.where() + ": <geom type=\"" + type + "\"> needs " + std::to_string(n) + " size values, got " +
                       std::to_string(size.size()));
  };
  s.pose = frame(c, v);
  auto fromto = v.nums("fromto", 6, 6);
  if (fromto) {
    const Vec3 a((*fromto)[0], (*fromto)[1], (*fromto)[2]), b((*fromto)[3], (*fromto)[4], (*fromto)[5]);
    if ((b - a).norm() < 1e-12) throw InputError(e.where() + ": <geom> fromto has zero length");
    s.pose = {0.5 * (a + b), Quat::FromTwoVectors(Vec3::UnitZ(), (b - a).normalized())};
  }
  auto half_length = [&](size_t i) { return fromto ? 0.5 * (Vec3((*fromto)[3], (*fromto)[4], (*fromto)[5]) - Vec3((*fromto)[0], (*fromto)[1], (*fromto)[2])).norm() : size[i]; };
  if (type == "sphere") {
    need(1);
    s.type = GeomType::Sphere;
    s.size.x() = size[0];
  } else if (type == "capsule" || type == "cylinder") {
    need(fromto ? 1 : 2);
    s.type = type == "capsule" ? GeomType::Capsule : GeomType::Cylinder;
    s.size = Vec3(size[0], half_length(1), 0.0);
  } else if (type == "box") {
    need(3);
    s.type = GeomType::Box;
    s.size = Vec3(size[0], size[1], size[2]);
  } else if (type == "plane") {
    s.type = GeomType::Plane;
  } else if (type == "ellipsoid") {
    need(3);
    s.ellipsoid = true;
    s.radii = Vec3(size[0], size[1], size[2]);
    s.type = GeomType::Sphere;  // collides as its largest sphere (warned)
    s.size.x() = s.radii.maxCoeff();
    c.warnings.add(e, "<geom type=\"ellipsoid\"> collides as the sphere of its largest radius (mass is exact)");
  } else if (type == "mesh") {
    s.type = GeomType::ConvexMesh;
  } else {
    throw InputError(e.where() + ": <geom> type '" + type + "' is not supported (sphere, capsule, cylinder, box, plane, "
                     "ellipsoid, mesh)");
  }
  return s;
}

MassProperties shape_mass(Context& c, const GeomShape& s, const View& v, double density) {
  MassProperties mp;
  if (s.ellipsoid) {
    const Vec3& r = s.radii;
    mp.mass = density * 4.0 / 3.0 * std::numbers::pi * r.prod();
    mp.inertia = Vec3(r.y() * r.y() + r.z() * r.z(), r.x() * r.x() + r.z() * r.z(), r.x() * r.x() + r.y() * r.y())
                     .asDiagonal();
    mp.inertia *= mp.mass / 5.0;
    return mp;
  }
  switch (s.type) {
    case GeomType::Sphere: return sphere_mass_properties(s.size.x(), density);
    case GeomType::Box: return box_mass_properties(s.size, density);
    case GeomType::Capsule: return capsule_mass_properties(s.size.x(), s.size.y(), density);
    case GeomType::Cylinder: return cylinder_mass_properties(s.size.x(), s.size.y(), density);
    case GeomType::ConvexMesh: {
      auto mesh = mesh_named(c, v.str("mesh"), v.e);
      if (!c.exact_mesh_inertia) return mjcf::legacy_mesh_inertia(*mesh, density, v.e.where());
      if (is_closed(*mesh) && signed_volume(*mesh) > 0.0) return mesh_mass_properties(*mesh, density);
      // Open or inconsistently wound: no exact inertia exists; the hull's is the nearest.
      c.warnings.add(v.e, "<geom> mesh '" + v.str("mesh") + "' is not closed: its mass is that of its convex hull");
      return mesh_mass_properties(*hull_named(c, v.str("mesh"), v.e), density);
    }
    default: return {};
  }
}

std::string material_for(Context& c, double friction, int priority) {
  std::ostringstream key;
  key.precision(17);
  key << "mjcf_mu" << friction << "_p" << priority;
  auto it = c.materials.find(key.str());
  if (it != c.materials.end()) return it->second;
  std::ostringstream name;
  name << c.placement.prefix << "mu" << friction << (priority ? "_priority" + std::to_string(priority) : "");
  // Another robot file loaded before may have made it (and its pairs) already.
  const bool fresh = !c.builder.has_material(name.str());
  if (fresh) c.builder.add_material(name.str(), "");
  c.materials[key.str()] = name.str();
  c.material_list.emplace_back(name.str(), friction, priority, fresh);
  return name.str();
}

// What a geom's mass needs, computed only if its body takes its inertia from geoms.
struct GeomMass {
  const XmlElement* e;
  const Attrs* defaults;
  GeomShape shape;
  double density;
  std::optional<double> mass;
};

MassProperties geom_mass(Context& c, const GeomMass& g) {
  MassProperties mp = shape_mass(c, g.shape, View{*g.e, g.defaults}, g.density);
  if (g.mass) {
    if (mp.mass > 0.0) mp.inertia *= *g.mass / mp.mass;
    mp.mass = *g.mass;
  }
  return mp.transformed(g.shape.pose);
}

// Adds the geom to graspsim body `body`; returns what its mass needs when it counts for
// the body's inertia.
std::optional<GeomMass> read_geom(Context& c, const XmlElement& e, const std::string& childclass,
                                        const std::string& body, int index) {
  const View v = c.view(e, childclass);
  ++c.summary.geoms;
  const GeomShape s = geom_shape(c, v);
  GeomDef g;
  g.name = v.has("name") ? c.name(v.str("name")) : body + "_geom" + std::to_string(index);
  if (!c.geom_names.insert(g.name).second) throw InputError(e.where() + ": geom name '" + g.name + "' is used twice");
  g.body = body;
  g.type = s.type;
  g.size = s.size;
  g.pose = c.in_worldbody ? c.placement.pose * s.pose : s.pose;
  const int contype = static_cast<int>(v.num("contype", 1)), conaffinity = static_cast<int>(v.num("conaffinity", 1));
  const bool collides = contype != 0 || conaffinity != 0;
  if (contype != conaffinity && collides)
    c.warnings.add(e, "<geom> contype " + std::to_string(contype) + " and conaffinity " + std::to_string(conaffinity) +
                          " differ: graspsim collides two geoms only when each one's contype meets the other's "
                          "conaffinity (MuJoCo: either)");
  g.group = static_cast<std::uint32_t>(contype);
  g.mask = static_cast<std::uint32_t>(conaffinity);
  if (s.type == GeomType::ConvexMesh) {
    const std::string mesh = v.str("mesh");
    if (mesh.empty()) throw InputError(e.where() + ": <geom type=\"mesh\"> needs a mesh");
    if (collides) {
      g.mesh = hull_named(c, mesh, e)->name;
    } else {  // drawing only: the mesh as it is
      auto m = mesh_named(c, mesh, e);
      if (c.visual_meshes.insert(mesh).second) c.builder.add_mesh(m);
      g.type = GeomType::TriangleMesh;
      g.mesh = m->name;
    }
  }
  const auto friction = v.nums("friction", 1, 3).value_or(std::vector<double>{1.0});
  const int priority = static_cast<int>(v.num("priority", 0));
  const int condim = static_cast<int>(v.num("condim", 3));
  if (collides && condim != 3 && condim != 1)
    c.warnings.add(e, "<geom> condim " + std::to_string(condim) + ": torsional and rolling friction are not taken from "
                      "MJCF (the contact material's torsional_friction applies)");
  g.material = material_for(c, condim == 1 ? 0.0 : friction[0], priority);
  g.source = e.where();

  std::optional<GeomMass> mass;
  const int group = static_cast<int>(v.num("group", 0));
  if (s.type != GeomType::Plane && group >= c.inertia_group_min && group <= c.inertia_group_max)
    mass = GeomMass{&e, v.defaults, s, v.num("density", 1000.0), v.has("mass") ? std::optional(v.num("mass", 0.0)) : std::nullopt};
  g.density = 1000.0;
  c.builder.add_geom(std::move(g));
  return mass;
}

// ---- joints and bodies ----------------------------------------------------------------
bool limited(const Context& c, const View& v, const std::string& flag, const std::string& range) {
  const std::string l = v.str(flag, "auto");
  if (l == "true") return true;
  if (l == "false") return false;
  if (l != "auto") throw InputError(v.e.where() + ": <" + v.e.tag + "> " + flag + " must be true, false or auto, got '" + l + "'");
  return c.autolimits && v.has(range);
}

JointDef read_joint(Context& c, const XmlElement& e, const std::string& childclass, const std::string& body, int k) {
  JointDef j;
  if (e.tag == "freejoint") {
    c.check_attributes(e, "freejoint");
    j.type = JointType::Free;
    j.name = e.find("name") ? c.name(*e.find("name")) : body + "_joint" + (k ? std::to_string(k) : "");
    return j;
  }
  const View v = c.view(e, childclass);
  const std::string type = v.str("type", "hinge");
  if (type == "hinge") j.type = JointType::Revolute;
  else if (type == "slide") j.type = JointType::Prismatic;
  else if (type == "ball") j.type = JointType::Ball;
  else if (type == "free") j.type = JointType::Free;
  else throw InputError(e.where() + ": <joint> type '" + type + "' is unknown (hinge, slide, ball, free)");
  j.name = v.has("name") ? c.name(v.str("name")) : body + "_joint" + (k ? std::to_string(k) : "");
  j.axis = v.vec3("axis", Vec3::UnitZ());
  if (j.axis.norm() < 1e-12) throw InputError(e.where() + ": <joint> '" + j.name + "' has a zero axis");
  j.anchor = v.vec3("pos", Vec3::Zero());
  const bool angular = j.type == JointType::Revolute;
  auto scaled = [&](double x) { return angular ? c.angle(x) : x; };
  if (limited(c, v, "limited", "range")) {
    auto r = v.nums("range", 2, 2);
    if (!r) throw InputError(e.where() + ": <joint> '" + j.name + "' is limited but has no range");
    if (j.type == JointType::Ball) {
      c.warnings.add(e, "<joint type=\"ball\"> range is not supported (ignored)");
    } else if (j.type == JointType::Free) {
      c.warnings.add(e, "<joint type=\"free\"> range is meaningless (ignored)");
    } else {
      if ((*r)[0] > (*r)[1]) throw InputError(e.where() + ": <joint> '" + j.name + "' range must satisfy lower <= upper");
      j.limits = std::pair{scaled((*r)[0]), scaled((*r)[1])};
    }
  }
  j.damping = v.num("damping", 0.0);
  j.armature = v.num("armature", 0.0);
  j.frictionloss = v.num("frictionloss", 0.0);
  j.stiffness = v.num("stiffness", 0.0);
  j.spring_ref = scaled(v.num("springref", 0.0));
  if (v.has("ref")) j.q_init = VecX::Constant(1, scaled(v.num("ref", 0.0)));
  return j;
}

// The body's motion when its joint moves by x from zero (for `ref`, MuJoCo's qpos0).
Pose joint_motion(const JointDef& j, double x) {
  if (j.type == JointType::Prismatic) return {j.axis.normalized() * x, Quat::Identity()};
  const Quat r(Eigen::AngleAxisd(x, j.axis.normalized()));
  return {j.anchor - r * j.anchor, r};
}

MassProperties read_inertial(const Context& c, const XmlElement& e) {
  const View v{e};
  MassProperties mp;
  mp.mass = v.num("mass", 0.0);
  if (!v.has("mass")) throw InputError(e.where() + ": <inertial> needs a mass");
  const Pose X = frame(c, v);
  mp.com = X.p;
  if (auto d = v.nums("diaginertia", 3, 3)) {
    const Mat3 R = X.q.toRotationMatrix();
    mp.inertia = R * Vec3((*d)[0], (*d)[1], (*d)[2]).asDiagonal() * R.transpose();
  } else if (auto f = v.nums("fullinertia", 6, 6)) {
    const auto& x = *f;
    mp.inertia << x[0], x[3], x[4], x[3], x[1], x[5], x[4], x[5], x[2];
  } else {
    throw InputError(e.where() + ": <inertial> needs diaginertia or fullinertia");
  }
  return mp;
}

void read_body(Context& c, const XmlElement& e, int parent_index, const std::string& parent_childclass);

void read_site(Context& c, const XmlElement& e, const std::string& childclass, const std::string& body, int index) {
  const View v = c.view(e, childclass);
  SiteDef d;
  d.name = v.has("name") ? c.name(v.str("name")) : body + "_site" + std::to_string(index);
  d.body = body;
  d.pose = c.in_worldbody ? c.placement.pose * frame(c, v) : frame(c, v);
  d.source = e.where();
  c.builder.add_site(std::move(d));
}

// Reads the body's geoms, inertial and markers (not its child bodies); returns its mass
// properties in its frame, from <inertial> or from its geoms as compiler inertiafromgeom says.
MassProperties read_body_parts(Context& c, const XmlElement& e, const std::string& body, const std::string& childclass) {
  std::vector<GeomMass> geoms;
  std::optional<MassProperties> inertial;
  int geom_index = 0, site_index = 0;
  for (const auto& child : e.children) {
    if (child.tag == "geom") {
      if (auto g = read_geom(c, child, childclass, body, geom_index++)) geoms.push_back(*g);
    } else if (child.tag == "inertial") {
      c.check_attributes(child, "inertial");
      inertial = read_inertial(c, child);
    } else if (child.tag == "site") {
      read_site(c, child, childclass, body, site_index++);
    } else if (child.tag == "camera" || child.tag == "light") {
      c.unsupported_element(child, "is not used (drawing only)");
    } else if (child.tag != "body" && child.tag != "joint" && child.tag != "freejoint") {
      c.unsupported_element(child);
    }
  }
  const bool use_geoms = c.inertia_from_geom == "true" || (c.inertia_from_geom == "auto" && !inertial);
  if (!use_geoms) return inertial.value_or(MassProperties{});
  MassProperties sum;
  for (const GeomMass& g : geoms) sum = sum + geom_mass(c, g);
  return sum;
}

void read_body(Context& c, const XmlElement& e, int parent_index, const std::string& parent_childclass) {
  c.check_attributes(e, "body");
  const View v{e};
  std::string childclass = parent_childclass;
  if (const std::string* cc = e.find("childclass")) {
    if (!c.classes.count(*cc)) throw InputError(e.where() + ": <body> childclass '" + *cc + "' is not a default class");
    childclass = *cc;
  }
  const int index = static_cast<int>(c.bodies.size());
  ++c.summary.bodies;
  const std::string mj_name = v.str("name", "body" + std::to_string(index));
  if (c.body_index.count(mj_name)) throw InputError(e.where() + ": body name '" + mj_name + "' is used twice");
  const BodyInfo parent = c.bodies[static_cast<size_t>(parent_index)];
  const Pose X = frame(c, v);
  const std::string name = c.name(mj_name);

  std::vector<JointDef> joints;
  for (const auto& child : e.children)
    if (child.tag == "joint" || child.tag == "freejoint")
      joints.push_back(read_joint(c, child, childclass, name, static_cast<int>(joints.size())));
  for (const auto& j : joints) {
    ++c.summary.joints;
    c.summary.dof += joint_nv(j.type);
    if (j.type == JointType::Free && (parent_index != 0 || joints.size() > 1))
      throw InputError(e.where() + ": body '" + mj_name + "': a free joint must be the only joint of a child of the worldbody");
    const double ref = j.q_init && j.q_init->size() == 1 ? (*j.q_init)[0] : 0.0;
    if (!c.joint_ref.emplace(j.name, ref).second) throw InputError(e.where() + ": joint name '" + j.name + "' is used twice");
    c.joint_order.push_back(j.name);
  }

  // One graspsim body per joint: massless links carry all but the last joint.
  std::vector<BodyDef> chain(std::max<size_t>(joints.size(), 1));
  std::string up = parent.name == "world" ? c.placement.parent : parent.name;
  for (size_t k = 0; k < chain.size(); ++k) {
    BodyDef& b = chain[k];
    const bool last = k + 1 == chain.size();
    b.name = last ? name : name + ":" + joints[k].name;
    b.parent = up;
    b.pose = k > 0 ? Pose::Identity() : parent_index == 0 ? c.placement.pose * X : X;
    if (!joints.empty()) {
      b.joint = joints[k];
      if (b.joint.q_init && b.joint.type != JointType::Free && b.joint.type != JointType::Ball)
        b.pose = b.pose * joint_motion(b.joint, -(*b.joint.q_init)[0]);
    }
    b.mass = 0.0;
    b.com = Vec3::Zero();
    b.inertia = Mat3::Zero();
    b.source = e.where();
    up = b.name;
  }
  c.bodies.push_back(BodyInfo{name, joints.empty() ? parent.weld : index, parent_index, parent.X_world * X});
  c.body_index[mj_name] = index;

  const MassProperties mp = read_body_parts(c, e, name, childclass);
  chain.back().mass = mp.mass;
  chain.back().com = mp.com;
  chain.back().inertia = mp.inertia;
  for (auto& b : chain) c.builder.add_body(std::move(b));
  for (const auto& child : e.children)
    if (child.tag == "body") read_body(c, child, index, childclass);
}

// ---- contact, tendons, equalities, actuators, keyframes -------------------------------
int body_of(const Context& c, const XmlElement& e, const std::string& attr, bool world_ok) {
  const std::string* n = e.find(attr);
  if (!n) {
    if (world_ok) return 0;
    throw InputError(e.where() + ": <" + e.tag + "> needs " + attr);
  }
  if (*n == "world") return 0;
  auto it = c.body_index.find(*n);
  if (it == c.body_index.end()) throw InputError(e.where() + ": <" + e.tag + "> " + attr + " names no body: '" + *n + "'");
  return it->second;
}

void read_contact(Context& c, const XmlElement& e) {
  for (const auto& child : e.children) {
    if (child.tag == "exclude") {
      c.check_attributes(child, "exclude");
      const int a = body_of(c, child, "body1", false), b = body_of(c, child, "body2", false);
      c.builder.exclude_pair(c.bodies[static_cast<size_t>(a)].name, c.bodies[static_cast<size_t>(b)].name, child.where());
    } else {
      c.unsupported_element(child, "is not supported: graspsim collides every allowed pair with its contact "
                                   "material (the pair's own parameters are ignored)");
    }
  }
}

// MuJoCo never collides geoms of one weld group (bodies joined without joints), nor, unless
// one is the world's, geoms of a weld group and its parent's.
void exclude_welded(Context& c) {
  const auto& B = c.bodies;
  auto weld_parent = [&](int w) { return w == 0 ? -1 : B[static_cast<size_t>(B[static_cast<size_t>(w)].parent_index)].weld; };
  for (size_t a = 1; a < B.size(); ++a)
    for (size_t b = a + 1; b < B.size(); ++b) {
      const int wa = B[a].weld, wb = B[b].weld;
      const bool same = wa == wb;
      const bool family = wa != 0 && wb != 0 && (weld_parent(wa) == wb || weld_parent(wb) == wa);
      const bool direct = B[a].parent_index == static_cast<int>(b) || B[b].parent_index == static_cast<int>(a);
      if ((same || family) && !direct) c.builder.exclude_pair(B[a].name, B[b].name, "MuJoCo weld rule");
    }
  // Bodies welded to the world never collide with the world's geoms.
  for (size_t a = 1; a < B.size(); ++a)
    if (B[a].weld == 0 && B[a].parent_index != 0)
      c.builder.exclude_pair(c.placement.parent, B[a].name, "MuJoCo weld rule");
}

void read_tendon(Context& c, const XmlElement& e) {
  for (const auto& child : e.children) {
    ++c.summary.tendons;
    if (child.tag != "fixed") {
      c.unsupported_element(child, "is not supported (skipped): only fixed tendons are");
      continue;
    }
    const View v = c.view(child, "", "fixed", "tendon");
    TendonDef t;
    t.name = c.name(v.str("name", "tendon" + std::to_string(c.summary.tendons - 1)));
    t.source = child.where();
    for (const auto& term : child.children) {
      if (term.tag != "joint") {
        c.unsupported_element(term);
        continue;
      }
      c.check_attributes(term, "tendon_joint");
      const View tv{term};
      const std::string j = tv.str("joint");
      if (!c.joint_ref.count(c.name(j))) throw InputError(term.where() + ": <joint> names no joint: '" + j + "'");
      t.joints.emplace_back(c.name(j), tv.num("coef", 1.0));
    }
    c.builder.add_tendon(std::move(t));
  }
}

void read_equality(Context& c, const XmlElement& e) {
  for (const auto& child : e.children) {
    ++c.summary.equality;
    const bool joint = child.tag == "joint";
    if (child.tag != "connect" && child.tag != "weld" && !joint) {
      c.unsupported_element(child, "is not supported (skipped)");
      continue;
    }
    const View v = c.view(child, "", joint ? "equality_joint" : child.tag, "equality");
    if (v.str("active", "true") == "false") c.warnings.add(child, "<" + child.tag + " active=\"false\"> is loaded active");
    EqualityDef d;
    d.name = c.name(v.str("name", "equality" + std::to_string(c.summary.equality - 1)));
    d.source = child.where();
    if (auto sr = v.nums("solref", 2, 2); sr && (*sr)[0] > 0.0) d.damping = (*sr)[0];  // relaxation time
    d.stiffness = mjcf::kEqualityStiffness;
    if (joint) {
      d.type = EqualityType::Joint;
      const std::string j1 = v.str("joint1"), j2 = v.str("joint2");
      for (const auto& j : {j1, j2})
        if (!j.empty() && !c.joint_ref.count(c.name(j)))
          throw InputError(child.where() + ": <joint> equality names no joint: '" + j + "'");
      if (j1.empty()) throw InputError(child.where() + ": <joint> equality needs joint1");
      d.joint_a = c.name(j1);
      d.joint_b = j2.empty() ? "" : c.name(j2);
      d.ref_a = c.joint_ref[d.joint_a];  // MuJoCo: q1 − qpos0₁ = poly(q2 − qpos0₂)
      if (!j2.empty()) d.ref_b = c.joint_ref[d.joint_b];
      auto p = v.nums("polycoef", 1, 5).value_or(std::vector<double>{0, 1, 0, 0, 0});
      d.poly = {0, 0, 0, 0, 0};
      for (size_t i = 0; i < p.size(); ++i) d.poly[i] = p[i];
      c.builder.add_equality(std::move(d));
      continue;
    }
    const int a = body_of(c, child, "body1", false), b = body_of(c, child, "body2", true);
    const BodyInfo &A = c.bodies[static_cast<size_t>(a)], &B = c.bodies[static_cast<size_t>(b)];
    d.type = child.tag == "weld" ? EqualityType::Weld : EqualityType::Connect;
    // Anchors are in body1's frame; body2's follows from the configuration as written
    // (the constraint holds at q0), as in MuJoCo.
    d.body_a = A.name;
    d.body_b = B.name;
    d.anchor_a = v.vec3("anchor", Vec3::Zero());
    d.anchor_b = B.X_world.inverse() * (A.X_world * d.anchor_a);
    d.relative = (A.X_world.q.conjugate() * B.X_world.q).normalized();
    if (auto rp = v.nums("relpose", 7, 7); rp && Eigen::Vector4d((*rp)[3], (*rp)[4], (*rp)[5], (*rp)[6]).norm() > 0) {
      // body2's pose in body1's frame, as given
      const Pose rel{Vec3((*rp)[0], (*rp)[1], (*rp)[2]), Quat((*rp)[3], (*rp)[4], (*rp)[5], (*rp)[6]).normalized()};
      d.relative = rel.q;
      d.anchor_b = rel.inverse() * d.anchor_a;
    }
    // graspsim reads "A" as the first body; MuJoCo's body1 carries the anchor.
    c.builder.add_equality(std::move(d));
  }
}

void read_actuator(Context& c, const XmlElement& e) {
  for (const auto& child : e.children) {
    ++c.summary.actuators;
    if (!kActuatorTags.count(child.tag)) {
      c.unsupported_element(child, "is not supported (skipped): general, position, motor and velocity are");
      c.actuator_order.emplace_back();
      continue;
    }
    const View v = c.view(child, "", "actuator");
    ActuatorDef a;
    a.name = c.name(v.str("name", "actuator" + std::to_string(c.summary.actuators - 1)));
    a.source = child.where();
    const std::string joint = v.str("joint"), tendon = v.str("tendon");
    if (joint.empty() == tendon.empty())
      throw InputError(child.where() + ": <" + child.tag + "> needs a joint or a tendon (site and body transmissions are "
                       "not supported)");
    if (!joint.empty()) {
      if (!c.joint_ref.count(c.name(joint))) throw InputError(child.where() + ": <" + child.tag + "> names no joint: '" + joint + "'");
      a.joint = c.name(joint);
    } else {
      a.tendon = c.name(tendon);
    }
    a.gear = v.nums("gear", 1, 6).value_or(std::vector<double>{1.0})[0];
    if (limited(c, v, "ctrllimited", "ctrlrange")) {
      auto r = v.nums("ctrlrange", 2, 2).value();
      a.ctrl_min = r[0];
      a.ctrl_max = r[1];
    }
    if (limited(c, v, "forcelimited", "forcerange")) {
      auto r = v.nums("forcerange", 2, 2).value();
      a.effort_min = r[0];
      a.effort_max = r[1];
    }
    // MuJoCo's force = gain·ctrl + b0 + b1·L + b2·L̇, read as a servo of L to (gain·ctrl + b0)/kp.
    double gain = 1.0, b0 = 0.0, b1 = 0.0, b2 = 0.0;
    if (child.tag == "position") {
      gain = v.num("kp", 1.0);
      b1 = -gain;
      b2 = -v.num("kv", 0.0);
    } else if (child.tag == "velocity") {
      gain = v.num("kv", 1.0);
      b2 = -gain;
    } else if (child.tag == "general") {
      if (v.str("dyntype", "none") != "none")
        c.warnings.add(child, "<general> dyntype '" + v.str("dyntype") + "' is not supported: no activation dynamics");
      if (v.str("gaintype", "fixed") != "fixed")
        c.warnings.add(child, "<general> gaintype '" + v.str("gaintype") + "' is not supported: read as fixed");
      gain = v.nums("gainprm", 1, 10).value_or(std::vector<double>{1.0})[0];
      const std::string bt = v.str("biastype", "none");
      if (bt == "affine") {
        auto b = v.nums("biasprm", 1, 10).value_or(std::vector<double>{0.0});
        b.resize(std::max<size_t>(b.size(), 3), 0.0);
        b0 = b[0];
        b1 = b[1];
        b2 = b[2];
      } else if (bt != "none") {
        c.warnings.add(child, "<general> biastype '" + bt + "' is not supported: read as none");
      }
    }
    if (b1 > 0.0 || b2 > 0.0)
      throw InputError(child.where() + ": <" + child.tag + "> biasprm with positive feedback (" + std::to_string(b1) + ", " +
                       std::to_string(b2) + ") is not supported");
    if (b1 < 0.0) {
      a.type = ActuatorType::Position;
      a.kp = -b1;
      a.kv = -b2;
      a.ctrl_gain = gain / a.kp;
      a.ctrl_bias = b0 / a.kp;
    } else if (b2 < 0.0) {
      a.type = ActuatorType::Velocity;
      a.kv = -b2;
      a.ctrl_gain = gain / a.kv;
      a.ctrl_bias = b0 / a.kv;
    } else {
      a.type = ActuatorType::Force;
      a.ctrl_gain = gain;
      a.ctrl_bias = b0;
    }
    c.actuator_order.push_back(a.name);
    c.builder.add_actuator(std::move(a));
  }
}

void read_keyframes(Context& c, const XmlElement& e) {
  int k = 0;
  for (const auto& child : e.children) {
    if (child.tag != "key") {
      c.unsupported_element(child);
      continue;
    }
    c.check_attributes(child, "key");
    const View v{child};
    KeyframeDef d;
    d.key.name = v.str("name", "key" + std::to_string(k++));
    d.key.time = v.num("time", 0.0);
    auto vec = [&](const std::string& a) {
      auto x = v.nums(a, 0, 100000).value_or(std::vector<double>{});
      return VecX(Eigen::Map<const VecX>(x.data(), static_cast<Eigen::Index>(x.size())));
    };
    d.key.q = vec("qpos");
    d.key.v = vec("qvel");
    d.key.ctrl = vec("ctrl");
    d.source = child.where();
    d.joints = c.joint_order;
    d.actuators = c.actuator_order;
    c.builder.add_keyframe(std::move(d));
  }
}

// MuJoCo's friction combination: the higher priority wins, else the larger coefficient.
void add_contact_materials(Context& c) {
  const auto& M = c.material_list;
  for (size_t i = 0; i < M.size(); ++i)
    for (size_t j = i; j < M.size(); ++j) {
      const auto& [na, fa, pa, new_a] = M[i];
      const auto& [nb, fb, pb, new_b] = M[j];
      if (!new_a && !new_b) continue;  // that pair came with the earlier file
      ContactMaterialDef d;
      d.material_a = na;
      d.material_b = nb;
      d.props = c.builder.default_contact();
      d.props.friction = pa > pb ? fa : pb > pa ? fb : std::max(fa, fb);
      d.source = "MJCF friction " + na + "/" + nb;
      c.builder.add_contact_material(std::move(d));
    }
}

}  // namespace

RobotSummary add_mjcf(ModelBuilder& builder, const XmlElement& root, const std::string& path,
                      const RobotPlacement& placement) {
  Context c(builder, placement, fs::path(path).parent_path());
  if (root.tag != "mujoco") throw InputError(root.where() + ": the root element is <" + root.tag + ">, not <mujoco>");
  c.classes["main"] = {};
  // Order matters: compiler and defaults first, then assets, bodies, and what names them.
  for (const auto& e : root.children)
    if (e.tag == "compiler") read_compiler(c, e);
  for (const auto& e : root.children)
    if (e.tag == "default") {
      c.classes.erase("main");
      read_default(c, e, "");
    }
  builder.options().dt = 0.002;  // MuJoCo's default time step, unless <option> sets one
  for (const auto& e : root.children) {
    if (e.tag == "option") read_option(c, e);
    else if (e.tag == "asset") read_asset(c, e);
  }
  for (const auto& e : root.children)
    if (e.tag == "worldbody") {
      for (const auto& child : e.children) {
        if (child.tag == "body") read_body(c, child, 0, "");
      }
      // The worldbody's own geoms and sites belong to the placement's parent, placed.
      c.in_worldbody = true;
      int k = 0, ks = 0;
      for (const auto& child : e.children)
        if (child.tag == "geom") read_geom(c, child, "", placement.parent, k++);
        else if (child.tag == "site") read_site(c, child, "", placement.parent, ks++);
        else if (child.tag == "light" || child.tag == "camera")
          c.unsupported_element(child, "is not used (drawing only)");
        else if (child.tag != "body") c.unsupported_element(child);
      c.in_worldbody = false;
    }
  for (const auto& e : root.children) {
    if (e.tag == "contact") read_contact(c, e);
    else if (e.tag == "tendon") read_tendon(c, e);
  }
  for (const auto& e : root.children) {
    if (e.tag == "equality") read_equality(c, e);
    else if (e.tag == "actuator") read_actuator(c, e);
    else if (e.tag == "keyframe") continue;  // after the actuators, whatever the file's order
    else if (kDrawingElements.count(e.tag)) c.unsupported_element(e, "is not used");
    else if (e.tag != "compiler" && e.tag != "default" && e.tag != "option" && e.tag != "asset" && e.tag != "worldbody" &&
             e.tag != "contact" && e.tag != "tendon")
      c.unsupported_element(e);
  }
  for (const auto& e : root.children)
    if (e.tag == "keyframe") read_keyframes(c, e);
  exclude_welded(c);
  add_contact_materials(c);
  c.summary.warnings = c.warnings.list();
  return c.summary;
}

}  // namespace graspsim
