#pragma once
// ModelBuilder: collects definitions with defaults, then build() validates them and
// freezes a Model. Every definition carries `source` ("scene.yaml:12" or a robot file
// name) so a validation error points at the place the user wrote it.
//
// build() checks what every formulation reads (common options, contact friction and
// restitution, bodies, geoms, ...). Each formulation's own part of the options and of the
// contact materials (Options::spook, ContactMaterial::spook, ...) is checked by its stepper:
// validate_formulation (steppers/step.h), which load_scene calls after build().

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/model.h"

namespace graspsim {

struct JointDef {
  std::string name;                // defaults to "<body>_joint"
  JointType type = JointType::Fixed;
  Vec3 axis = Vec3::UnitZ();
  std::optional<std::pair<double, double>> limits;
  double damping = 0.0, armature = 0.0, stiffness = 0.0, spring_ref = 0.0;
  double frictionloss = 0.0;       // dry friction, N·m or N
  Vec3 anchor = Vec3::Zero();      // revolute and ball: the point turned about (body frame)
  std::optional<VecX> q_init;      // default: zero motion (free: the body pose)
  std::optional<VecX> v_init;      // default: zero
};

struct BodyDef {
  std::string name;
  std::string parent = "world";
  Pose pose;                       // in the parent at zero joint motion; free: initial world pose
  JointDef joint;
  // Mass properties: given explicitly, or computed from the body's geoms and density.
  std::optional<double> mass;
  std::optional<Vec3> com;
  std::optional<Mat3> inertia;     // about com, body frame
  bool kinematic = false;
  std::vector<Signal> velocity;    // kinematic: one signal per joint dof
  std::string source;
};

struct GeomDef {
  std::string name;
  std::string body = "world";
  GeomType type = GeomType::Sphere;
  Vec3 size = Vec3::Zero();
  Pose pose;                       // in the body frame
  std::string mesh;                // name of a mesh added with add_mesh
  std::string material = "default";
  double density = 1000.0;         // kg/m³, for bodies without explicit mass
  std::uint32_t group = 1, mask = 0xffffffffu;
  double margin = 0.0;
  std::string source;
};

struct SiteDef {
  std::string name;
  std::string body = "world";
  Pose pose;                       // in the body frame
  std::string source;
};

struct ContactMaterialDef {
  std::string material_a, material_b;
  ContactMaterial props;           // material indices and source are filled in by build()
  std::string source;
};

struct TendonDef {
  std::string name;
  std::vector<std::pair<std::string, double>> joints;  // joint name, coefficient
  std::string source;
};

struct ActuatorDef {
  std::string name;
  std::string joint;               // a joint, or
  std::string tendon;              // a tendon (exactly one of the two)
  ActuatorType type = ActuatorType::Force;
  int dof = 0;
  double gear = 1.0;
  double kp = 0.0, kv = 0.0;
  double ctrl_gain = 1.0, ctrl_bias = 0.0;
  double ctrl_min = -kInf, ctrl_max = kInf;
  double effort_min = -kInf, effort_max = kInf;
  Signal command;
  std::string source;
};

struct EqualityDef {
  std::string name;
  EqualityType type = EqualityType::Connect;
  std::string body_a = "world", body_b;
  Vec3 anchor_a = Vec3::Zero(), anchor_b = Vec3::Zero();
  Quat relative = Quat::Identity();
  std::string joint_a, joint_b;    // type Joint (joint_b may be empty)
  std::array<double, 5> poly{0.0, 1.0, 0.0, 0.0, 0.0};
  double ref_a = 0.0, ref_b = 0.0;
  double stiffness = kInf, damping = 0.0;
  std::string source;
};

struct KeyframeDef {
  Keyframe key;                    // empty q, v or ctrl: the model's initial values (ctrl 0)
  // When set, key.q and key.v cover only these joints (in this order) and key.ctrl only
  // these actuators ("" for a value to skip): a robot file's keyframe in a larger model.
  std::vector<std::string> joints, actuators;
  std::string source;
  bool start = false;              // the model starts here: q0 and v0 of the joints it covers
};

class ModelBuilder {
 public:
  ModelBuilder();
  void add_body(BodyDef def) { bodies_.push_back(std::move(def)); }
  void add_geom(GeomDef def) { geoms_.push_back(std::move(def)); }
  void add_site(SiteDef def) { sites_.push_back(std::move(def)); }
  // A site added so far, or null (robot files attach to the sites of those loaded before).
  const SiteDef* find_site(const std::string& name) const {
    for (const auto& s : sites_)
      if (s.name == name) return &s;
    return nullptr;
  }
  void add_mesh(std::shared_ptr<const Mesh> mesh) { meshes_.push_back(std::move(mesh)); }
  // Replaces each mesh that a convex_mesh geom uses by f(mesh): the loaders attach the
  // collision layer's climb index this way (the model layer cannot build it).
  void map_convex_meshes(const std::function<std::shared_ptr<const Mesh>(const std::shared_ptr<const Mesh>&)>& f);
  void add_material(const std::string& name, const std::string& source = "");
  bool has_material(const std::string& name) const {
    for (const auto& [n, s] : materials_)
      if (n == name) return true;
    return false;
  }
  void add_contact_material(ContactMaterialDef def) { contact_materials_.push_back(std::move(def)); }
  void add_tendon(TendonDef def) { tendons_.push_back(std::move(def)); }
  void add_actuator(ActuatorDef def) { actuators_.push_back(std::move(def)); }
  void add_equality(EqualityDef def) { equalities_.push_back(std::move(def)); }
  void add_keyframe(KeyframeDef def) { keyframes_.push_back(std::move(def)); }
  size_t keyframe_count() const { return keyframes_.size(); }
  // Makes the keyframe `name` among those added from index `first` on (one robot file's)
  // the model's start: the joints it covers begin at its q and v. Throws InputError naming
  // `source` and the names there are when none is called `name`.
  void start_at_keyframe(size_t first, const std::string& name, const std::string& source);
  // Sets the command of an actuator added earlier (a robot file's, driven by a scene);
  // throws InputError naming `source` when there is no such actuator.
  void set_command(const std::string& actuator, Signal command, const std::string& source);
  // Starts the joint `joint` (of a body added earlier) at q, whatever its definition or a
  // start keyframe says (a scene's trajectory starts the arm at its first IK solution).
  // build() checks the size and values; an unknown joint throws InputError naming `source`.
  void set_initial_q(const std::string& joint, VecX q, const std::string& source);
  void exclude_pair(const std::string& body_a, const std::string& body_b, const std::string& source = "");
  Options& options() { return options_; }
  ContactMaterial& default_contact() { return default_contact_; }

  // Validates everything and returns the frozen model; throws InputError naming the
  // object (and its source) on the first problem found.
  std::shared_ptr<const Model> build() const;

 private:
  std::vector<BodyDef> bodies_;
  std::vector<GeomDef> geoms_;
  std::vector<SiteDef> sites_;
  std::vector<std::shared_ptr<const Mesh>> meshes_;
  std::vector<std::pair<std::string, std::string>> materials_;  // name, source
  std::vector<ContactMaterialDef> contact_materials_;
  std::vector<TendonDef> tendons_;
  std::vector<ActuatorDef> actuators_;
  std::vector<EqualityDef> equalities_;
  std::vector<KeyframeDef> keyframes_;
  std::vector<std::tuple<std::string, std::string, std::string>> exclusions_;
  std::vector<std::tuple<std::string, VecX, std::string>> initial_q_;  // joint, q, source
  Options options_;
  ContactMaterial default_contact_;
};

// Throws InputError unless the inertia (about the com) is symmetric positive definite
// and its principal moments satisfy the triangle inequality.
void validate_inertia(const Mat3& inertia, const std::string& where);

}  // namespace graspsim
