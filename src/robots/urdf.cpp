#include "robots/urdf.h"

#include <algorithm>
#include <cctype>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include <console_bridge/console.h>
#include <tinyxml2.h>
#include <urdf_model/model.h>
#include <urdf_parser/urdf_parser.h>

#include "collision/mesh_io.h"
#include "core/error.h"
#include "robots/warnings.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;
using tinyxml2::XMLElement;

std::string format_number(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

Pose to_pose(const urdf::Pose& p) {
  double x = 0, y = 0, z = 0, w = 1;
  p.rotation.getQuaternion(x, y, z, w);
  return {Vec3(p.position.x, p.position.y, p.position.z), Quat(w, x, y, z).normalized()};
}

Vec3 to_vec3(const urdf::Vector3& v) { return {v.x, v.y, v.z}; }

// tinyxml2's error in words: "Error=XML_ERROR_MISMATCHED_ELEMENT ErrorID=14 (0xe) Line
// number=2: XMLElement name=link" becomes "mismatched element <link>".
std::string xml_error(const tinyxml2::XMLDocument& doc) {
  std::string name = doc.ErrorName() ? doc.ErrorName() : "error";
  if (name.rfind("XML_ERROR_", 0) == 0) name = name.substr(10);
  if (name.rfind("XML_", 0) == 0) name = name.substr(4);
  std::transform(name.begin(), name.end(), name.begin(), [](char c) { return c == '_' ? ' ' : static_cast<char>(std::tolower(c)); });
  const std::string full = doc.ErrorStr() ? doc.ErrorStr() : "";
  const auto at = full.find("Line number=");
  if (at != std::string::npos) {
    const auto colon = full.find(": ", at);
    if (colon != std::string::npos && colon + 2 < full.size()) {
      std::string detail = full.substr(colon + 2);
      const std::string element = "XMLElement name=";
      if (detail.rfind(element, 0) == 0) detail = "<" + detail.substr(element.size()) + ">";
      return name + " " + detail;  // "mismatched element <link>"
    }
  }
  return name;
}

// urdfdom reports why it fails only through console_bridge; this catches those messages
// (and keeps urdfdom's chatter off the console). console_bridge's handler is process-wide,
// hence the lock: parses from several threads take turns.
urdf::ModelInterfaceSharedPtr parse_with_urdfdom(const std::string& text, std::vector<std::string>& errors) {
  struct Capture : console_bridge::OutputHandler {
    std::vector<std::string> errors;
    void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
      if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
    }
  };
  static std::mutex mutex;
  std::lock_guard lock(mutex);
  Capture capture;
  console_bridge::useOutputHandler(&capture);
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(text);
  } catch (const std::exception& e) {
    capture.errors.emplace_back(e.what());
    model.reset();
  }
  console_bridge::restorePreviousOutputHandler();
  errors = std::move(capture.errors);
  return model;
}

// Where a mesh file named in the URDF is; else the places tried, or why there were none.
struct MeshLookup {
  std::optional<fs::path> file;
  std::vector<std::string> looked;
  std::string why_not;
};

MeshLookup find_mesh_file(const std::string& uri, const fs::path& dir) {
  MeshLookup r;
  auto try_path = [&](const fs::path& p) {
    const fs::path n = p.lexically_normal();
    r.looked.push_back(n.string());
    std::error_code ec;
    if (fs::is_regular_file(n, ec)) r.file = n;
    return r.file.has_value();
  };
  const std::string package = "package://", file = "file://";
  if (uri.rfind(package, 0) == 0) {
    const std::string rest = uri.substr(package.size());
    const auto slash = rest.find('/');
    const std::string pkg = rest.substr(0, slash);
    const std::string rel = slash == std::string::npos ? "" : rest.substr(slash + 1);
    if (pkg.empty() || rel.empty()) {
      r.why_not = "expected package://<package>/<path>";
      return r;
    }
    // The URDF's directory, then each parent: a directory named `pkg`, or one holding it.
    for (fs::path d = dir;; d = d.parent_path()) {
      std::error_code ec;
      if (d.filename() == pkg && try_path(d / rel)) return r;
      if (fs::is_directory(d / pkg, ec) && try_path(d / pkg / rel)) return r;
      if (d.empty() || d == d.parent_path()) break;
    }
    if (r.looked.empty()) r.why_not = "no directory '" + pkg + "' in or above " + dir.string();
    return r;
  }
  if (uri.rfind(file, 0) == 0) {
    const fs::path p = uri.substr(file.size());
    try_path(p.is_absolute() ? p : dir / p);
    return r;
  }
  if (uri.find("://") != std::string::npos) {
    r.why_not = "only package://, file:// and plain paths are supported";
    return r;
  }
  const fs::path p = uri;
  try_path(p.is_absolute() ? p : dir / p);
  return r;
}

const char* joint_type_name(int type) {
  switch (type) {
    case urdf::Joint::REVOLUTE: return "revolute";
    case urdf::Joint::CONTINUOUS: return "continuous";
    case urdf::Joint::PRISMATIC: return "prismatic";
    case urdf::Joint::FLOATING: return "floating";
    case urdf::Joint::PLANAR: return "planar";
    case urdf::Joint::FIXED: return "fixed";
    default: return "unknown";
  }
}

class UrdfReader {
 public:
  UrdfReader(ModelBuilder& builder, const std::string& path, const RobotPlacement& placement)
      : builder_(builder), path_(path), placement_(placement) {}

  RobotSummary read() {
    parse();
    index_elements();
    find_fixed_groups();
    for (const XMLElement* e : link_elements_) add_link(e);
    for (const XMLElement* e : joint_elements_) add_mimic(e);
    add_exclusions();
    // In file order, one line per kind of message with its count (robots/warnings.h).
    std::stable_sort(warnings_.begin(), warnings_.end(), [](const auto& a, const auto& b) { return a.line < b.line; });
    Warnings list;
    for (const auto& w : warnings_) list.add(w.where, w.what);
    summary_.warnings = list.list();
    return std::move(summary_);
  }

 private:
  // ---- messages ------------------------------------------------------------------------
  std::string at(const XMLElement* e) const {
    return e && e->GetLineNum() > 0 ? path_ + ":" + std::to_string(e->GetLineNum()) : path_;
  }
  void warn(const XMLElement* e, const std::string& text) { warnings_.push_back({e ? e->GetLineNum() : 0, at(e), text}); }
  [[noreturn]] void fail(const XMLElement* e, const std::string& text) const { throw InputError(at(e) + ": " + text); }

  // ---- parsing -------------------------------------------------------------------------
  void parse() {
    std::error_code ec;
    require(fs::is_regular_file(path_, ec), path_, "file not found");
    std::ifstream in(path_, std::ios::binary);
    require(static_cast<bool>(in), path_, "cannot open the file");
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();

    // tinyxml2 first: it knows lines, for malformed XML and for every warning below.
    if (doc_.Parse(text.c_str(), text.size()) != tinyxml2::XML_SUCCESS) {
      const int line = doc_.ErrorLineNum();
      throw InputError(path_ + (line > 0 ? ":" + std::to_string(line) : "") + ": malformed XML: " + xml_error(doc_));
    }
    robot_ = doc_.RootElement();
    require(robot_ && std::string(robot_->Name()) == "robot", path_,
            std::string("not a URDF file: the root element is <") + (robot_ ? robot_->Name() : "") + ">, not <robot>");

    std::vector<std::string> errors;
    model_ = parse_with_urdfdom(text, errors);
    if (!model_) {
      // urdfdom ends with generic lines ("joint xml is not initialized correctly"); its
      // first message is the specific one, and all are kept.
      throw InputError(path_ + ": not a valid URDF: " + (errors.empty() ? "urdfdom gave no reason" : join(errors, "; ")));
    }
    root_ = model_->getRoot();
    require(root_ != nullptr, path_, "not a valid URDF: no root link");
    world_root_ = root_->name == "world";
  }

  void index_elements() {
    for (const XMLElement* e = robot_->FirstChildElement("link"); e; e = e->NextSiblingElement("link")) {
      link_elements_.push_back(e);
      if (const char* n = e->Attribute("name")) link_xml_.emplace(n, e);
    }
    for (const XMLElement* e = robot_->FirstChildElement("joint"); e; e = e->NextSiblingElement("joint")) {
      joint_elements_.push_back(e);
      if (const char* n = e->Attribute("name")) joint_xml_.emplace(n, e);
    }
    for (const XMLElement* e = robot_->FirstChildElement("transmission"); e; e = e->NextSiblingElement("transmission"))
      warn(e, "<transmission> is not read (URDF has no actuators: define them in the scene)");
  }

  // ---- names and frames ----------------------------------------------------------------
  bool is_world_root(const std::string& link) const { return world_root_ && link == root_->name; }
  std::string body_name(const std::string& link) const {
    return is_world_root(link) ? placement_.parent : placement_.prefix + link;
  }
  // Pose of the link's frame in the frame of its body (only the "world" root link is not
  // a body of its own: it is the placement's frame in placement.parent).
  Pose link_offset(const std::string& link) const { return is_world_root(link) ? placement_.pose : Pose::Identity(); }

  // ---- links welded together by fixed joints ------------------------------------------
  // Union-find over link names, plus kPlacement for placement.parent when the root link is
  // a body of its own (a root link named "world" stands for placement.parent itself).
  static constexpr const char* kPlacement = "\x01placement";
  std::string placement_key() const { return world_root_ ? root_->name : kPlacement; }
  std::string group_of(const std::string& key) {
    std::string g = key;
    while (group_parent_.count(g) && group_parent_[g] != g) g = group_parent_[g];
    return g;
  }
  void unite(const std::string& a, const std::string& b) {
    const std::string ga = group_of(a), gb = group_of(b);
    if (ga != gb) group_parent_[gb] = ga;
  }
  void find_fixed_groups() {
    for (const XMLElement* e : link_elements_)
      if (const char* n = e->Attribute("name")) group_parent_[n] = n;
    if (!world_root_) {
      group_parent_[kPlacement] = kPlacement;
      unite(kPlacement, root_->name);  // the root link hangs from placement.parent by a fixed joint
    }
    for (const XMLElement* e : joint_elements_) {
      const auto j = model_->getJoint(e->Attribute("name") ? e->Attribute("name") : "");
      if (j && j->type == urdf::Joint::FIXED) unite(j->parent_link_name, j->child_link_name);
    }
  }

  // ---- links and joints ----------------------------------------------------------------
  void add_link(const XMLElement* link_el) {
    const std::string name = link_el->Attribute("name") ? link_el->Attribute("name") : "";
    const urdf::LinkConstSharedPtr link = model_->getLink(name);
    if (!link) fail(link_el, "link '" + name + "' is not in the parsed robot");

    if (is_world_root(name)) {
      // The placement's parent stands in for it; its geoms go there, its mass cannot.
      if (link->inertial) warn(link_el->FirstChildElement("inertial"), "link 'world' stands for the body the robot is placed on: its <inertial> is ignored");
      add_geoms(*link, link_el);
      return;
    }

    BodyDef d;
    d.name = placement_.prefix + name;
    d.source = at(link_el);
    JointDef& jd = d.joint;
    if (name == root_->name) {
      d.parent = placement_.parent;
      d.pose = placement_.pose;
      jd.type = JointType::Fixed;
      jd.name = root_joint_name(d.name);
    } else {
      const urdf::JointSharedPtr& j = link->parent_joint;
      if (!j) fail(link_el, "link '" + name + "' has no parent joint");
      const XMLElement* joint_el = joint_xml_.count(j->name) ? joint_xml_.at(j->name) : nullptr;
      d.parent = body_name(j->parent_link_name);
      d.pose = link_offset(j->parent_link_name) * to_pose(j->parent_to_joint_origin_transform);
      jd.name = placement_.prefix + j->name;
      read_joint(*j, joint_el, d);
    }

    // Mass properties: the inertial's, or none at all.
    const XMLElement* inertial_el = link_el->FirstChildElement("inertial");
    if (link->inertial && link->inertial->mass != 0.0) {
      const urdf::Inertial& in = *link->inertial;
      const Pose X = to_pose(in.origin);
      Mat3 I;
      I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      const Mat3 R = X.R();
      d.mass = in.mass;
      d.com = X.p;
      d.inertia = R * I * R.transpose();
    } else {
      d.mass = 0.0;
      d.com = link->inertial ? to_pose(link->inertial->origin).p : Vec3::Zero();
      if (jd.type != JointType::Fixed)
        warn(inertial_el ? inertial_el : link_el,
             "link '" + name + "' has " + (link->inertial ? "mass 0" : "no <inertial>") + " but moves (joint '" +
                 link->parent_joint->name + "'): a massless moving link makes the mass matrix singular");
    }

    summary_.bodies += 1;
    if (jd.type != JointType::Fixed) {
      summary_.joints += 1;
      summary_.dof += joint_nv(jd.type);
    }
    builder_.add_body(std::move(d));
    add_geoms(*link, link_el);
  }

  // The root link's fixed joint: "<body>_joint" unless the file has a joint of that name.
  std::string root_joint_name(const std::string& body) const {
    std::string n = body + "_joint";
    auto taken = [&](const std::string& s) {
      for (const auto& [jname, el] : joint_xml_)
        if (placement_.prefix + jname == s) return true;
      return false;
    };
    while (taken(n)) n += "_root";
    return n;
  }

  void read_joint(const urdf::Joint& j, const XMLElement* joint_el, BodyDef& d) {
    JointDef& jd = d.joint;
    const std::string what = "joint '" + j.name + "'";
    const XMLElement* limit_el = joint_el ? joint_el->FirstChildElement("limit") : nullptr;
    switch (j.type) {
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::PRISMATIC:
        jd.type = j.type == urdf::Joint::REVOLUTE ? JointType::Revolute : JointType::Prismatic;
        jd.axis = to_vec3(j.axis);
        if (!j.limits) fail(joint_el, what + ": a " + joint_type_name(j.type) + " joint needs <limit lower upper>");
        jd.limits = std::pair{j.limits->lower, j.limits->upper};
        if (limit_el && !limit_el->Attribute("lower") && !limit_el->Attribute("upper"))
          warn(limit_el, what + ": <limit> has no lower or upper, so its range is [0, 0] (URDF's default): the joint cannot move");
        break;
      case urdf::Joint::CONTINUOUS:
        jd.type = JointType::Revolute;
        jd.axis = to_vec3(j.axis);
        break;
      case urdf::Joint::FIXED: jd.type = JointType::Fixed; break;
      case urdf::Joint::FLOATING: {
        const bool from_root = j.parent_link_name == root_->name;
        if (!from_root || placement_.parent != "world")
          fail(joint_el, what + ": a floating joint must join the root link to the world (" +
                             (from_root ? "this robot is placed on body '" + placement_.parent + "'"
                                        : "its parent '" + j.parent_link_name + "' is not the root link '" + root_->name + "'") +
                             ")");
        jd.type = JointType::Free;
        d.parent = "world";
        d.pose = placement_.pose * to_pose(j.parent_to_joint_origin_transform);  // the root link is at placement.pose
        break;
      }
      case urdf::Joint::PLANAR: fail(joint_el, what + ": planar joints are not supported");
      default: fail(joint_el, what + ": unknown joint type");
    }
    const bool moves = jd.type != JointType::Fixed;
    if (j.dynamics) {
      jd.damping = j.dynamics->damping;
      jd.frictionloss = j.dynamics->friction;  // Coulomb friction of the joint, N·m or N
    }
    if (moves && limit_el) {
      const double effort = limit_el->DoubleAttribute("effort", 0.0), velocity = limit_el->DoubleAttribute("velocity", 0.0);
      if (effort != 0.0 || velocity != 0.0)
        warn(limit_el, "<limit> effort and velocity are ignored unless an actuator uses them "
                       "(URDF has no actuators: define them in the scene)");
    }
    if (joint_el)
      for (const char* tag : {"safety_controller", "calibration"})
        if (const XMLElement* e = joint_el->FirstChildElement(tag))
          warn(e, std::string("<") + tag + "> is not supported (ignored)");
  }

  // ---- geometry ------------------------------------------------------------------------
  void add_geoms(const urdf::Link& link, const XMLElement* link_el) {
    std::vector<const XMLElement*> collision_els, visual_els;
    for (const XMLElement* e = link_el->FirstChildElement("collision"); e; e = e->NextSiblingElement("collision"))
      collision_els.push_back(e);
    for (const XMLElement* e = link_el->FirstChildElement("visual"); e; e = e->NextSiblingElement("visual"))
      visual_els.push_back(e);
    for (size_t k = 0; k < link.collision_array.size(); ++k) {
      const auto& c = link.collision_array[k];
      if (c) add_geom(link.name, c->geometry.get(), c->origin, c->name, k, k < collision_els.size() ? collision_els[k] : link_el, false);
    }
    for (size_t k = 0; k < link.visual_array.size(); ++k) {
      const auto& v = link.visual_array[k];
      if (v) add_geom(link.name, v->geometry.get(), v->origin, v->name, k, k < visual_els.size() ? visual_els[k] : link_el, true);
    }
  }

  void add_geom(const std::string& link, const urdf::Geometry* geometry, const urdf::Pose& origin,
                const std::string& given_name, size_t k, const XMLElement* el, bool visual) {
    const std::string what = std::string(visual ? "visual" : "collision");
    if (!geometry) fail(el, "link '" + link + "': <" + what + "> has no geometry");
    GeomDef g;
    g.name = placement_.prefix + given_name;
    if (given_name.empty() || geom_names_.count(g.name)) g.name = placement_.prefix + link + "_" + what + std::to_string(k);
    geom_names_.insert(g.name);
    g.body = body_name(link);
    g.pose = link_offset(link) * to_pose(origin);
    g.source = at(el);
    if (visual) g.group = g.mask = 0;
    switch (geometry->type) {
      case urdf::Geometry::SPHERE: {
        const auto& s = static_cast<const urdf::Sphere&>(*geometry);
        g.type = GeomType::Sphere;
        g.size = Vec3(s.radius, 0.0, 0.0);
        break;
      }
      case urdf::Geometry::BOX: {
        const auto& b = static_cast<const urdf::Box&>(*geometry);
        g.type = GeomType::Box;
        g.size = 0.5 * to_vec3(b.dim);
        break;
      }
      case urdf::Geometry::CYLINDER: {
        const auto& c = static_cast<const urdf::Cylinder&>(*geometry);
        g.type = GeomType::Cylinder;
        g.size = Vec3(c.radius, 0.5 * c.length, 0.0);
        break;
      }
      case urdf::Geometry::MESH: {
        const auto& m = static_cast<const urdf::Mesh&>(*geometry);
        const XMLElement* geometry_el = el->FirstChildElement("geometry");
        const XMLElement* mesh_el = geometry_el ? geometry_el->FirstChildElement("mesh") : nullptr;
        g.type = visual ? GeomType::TriangleMesh : GeomType::ConvexMesh;
        g.mesh = load_mesh_once(link, m.filename, to_vec3(m.scale), mesh_el ? mesh_el : el);
        break;
      }
      default: fail(el, "link '" + link + "': unknown <" + what + "> geometry");
    }
    summary_.geoms += 1;
    builder_.add_geom(std::move(g));
  }

  // Resolves the file, loads each (file, scale) once and returns the mesh's name.
  std::string load_mesh_once(const std::string& link, const std::string& uri, const Vec3& scale, const XMLElement* el) {
    const MeshLookup found = find_mesh_file(uri, dir_);
    if (!found.file)
      fail(el, "link '" + link + "': mesh '" + uri + "' not found (" +
                   (found.looked.empty() ? found.why_not : "looked in " + join(found.looked, ", ")) + ")");
    std::string name = placement_.prefix + found.file->string();
    if (scale != Vec3::Ones())
      name += "@" + format_number(scale.x()) + "," + format_number(scale.y()) + "," + format_number(scale.z());
    if (mesh_names_.insert(name).second) {
      try {
        builder_.add_mesh(load_mesh(found.file->string(), name, scale));
      } catch (const InputError& e) {
        fail(el, "link '" + link + "': " + e.what());
      }
    }
    return name;
  }

  // ---- mimic joints and collision exclusions -------------------------------------------
  void add_mimic(const XMLElement* joint_el) {
    const XMLElement* mimic_el = joint_el->FirstChildElement("mimic");
    if (!mimic_el) return;
    const auto j = model_->getJoint(joint_el->Attribute("name") ? joint_el->Attribute("name") : "");
    if (!j || !j->mimic) return;
    const std::string what = "joint '" + j->name + "'";
    if (!model_->getJoint(j->mimic->joint_name))
      fail(mimic_el, what + ": mimics unknown joint '" + j->mimic->joint_name + "'");
    if (j->mimic->joint_name == j->name) fail(mimic_el, what + ": mimics itself");
    EqualityDef e;
    e.name = placement_.prefix + j->name + "_mimic";
    e.type = EqualityType::Joint;
    e.joint_a = placement_.prefix + j->name;
    e.joint_b = placement_.prefix + j->mimic->joint_name;
    e.poly = {j->mimic->offset, j->mimic->multiplier, 0.0, 0.0, 0.0};
    e.source = at(mimic_el);
    summary_.equality += 1;
    builder_.add_equality(std::move(e));
  }

  // Links welded by fixed joints act as one body (MuJoCo fuses them): no contacts inside
  // such a group, nor between the two groups a moving joint connects (graspsim already
  // keeps a parent and its child apart, unless the parent is the world). The world is left
  // out: what is welded to it is static, and moving links must still hit the floor.
  void add_exclusions() {
    const bool placed_in_world = placement_.parent == "world";
    std::map<std::string, std::vector<std::string>> members;  // group → its keys
    for (const auto& [key, up] : group_parent_)
      if (!(placed_in_world && key == placement_key())) members[group_of(key)].push_back(key);
    auto body_of_key = [&](const std::string& k) { return k == kPlacement ? placement_.parent : body_name(k); };
    // The key of the body graspsim hangs `k` from ("" for placement.parent's).
    auto parent_key = [&](const std::string& k) -> std::string {
      if (k == placement_key()) return "";
      if (k == root_->name) return kPlacement;
      const auto l = model_->getLink(k);
      if (!l || !l->parent_joint) return "";
      return l->parent_joint->type == urdf::Joint::FLOATING ? placement_key() : l->parent_joint->parent_link_name;
    };
    std::set<std::pair<std::string, std::string>> done;
    auto exclude = [&](const std::string& a, const std::string& b, const std::string& source) {
      if (a == b || parent_key(a) == b || parent_key(b) == a) return;  // itself, or parent and child
      const std::string ba = body_of_key(a), bb = body_of_key(b);
      if (ba == bb || !done.emplace(std::min(ba, bb), std::max(ba, bb)).second) return;
      builder_.exclude_pair(ba, bb, source);
    };
    auto where_link = [&](const std::string& k) { return at(link_xml_.count(k) ? link_xml_.at(k) : nullptr); };
    for (const auto& [group, keys] : members)
      for (size_t a = 0; a < keys.size(); ++a)
        for (size_t b = a + 1; b < keys.size(); ++b) exclude(keys[a], keys[b], where_link(keys[b] == kPlacement ? keys[a] : keys[b]));
    for (const XMLElement* e : joint_elements_) {
      const auto j = model_->getJoint(e->Attribute("name") ? e->Attribute("name") : "");
      if (!j || j->type == urdf::Joint::FIXED) continue;
      const auto& parents = members[group_of(j->parent_link_name)];
      const auto& children = members[group_of(j->child_link_name)];
      for (const std::string& a : parents)
        for (const std::string& b : children) exclude(a, b, at(e));
    }
  }

  ModelBuilder& builder_;
  const std::string path_;
  const RobotPlacement& placement_;
  const fs::path dir_ = fs::absolute(fs::path(path_)).parent_path().lexically_normal();

  tinyxml2::XMLDocument doc_;
  const XMLElement* robot_ = nullptr;
  std::vector<const XMLElement*> link_elements_, joint_elements_;
  std::map<std::string, const XMLElement*> link_xml_, joint_xml_;

  urdf::ModelInterfaceSharedPtr model_;
  urdf::LinkConstSharedPtr root_;
  bool world_root_ = false;

  std::map<std::string, std::string> group_parent_;
  std::set<std::string> geom_names_, mesh_names_;
  struct Warning {
    int line;
    std::string where, what;
  };
  std::vector<Warning> warnings_;
  RobotSummary summary_;
};

}  // namespace

RobotSummary add_urdf(ModelBuilder& builder, const std::string& path, const RobotPlacement& placement) {
  return UrdfReader(builder, path, placement).read();
}

}  // namespace graspsim
