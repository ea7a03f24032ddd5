#include "model/model.h"

#include <algorithm>

#include "core/error.h"

namespace graspsim {

int joint_nq(JointType t) {
  switch (t) {
    case JointType::Free: return 7;
    case JointType::Ball: return 4;
    case JointType::Revolute:
    case JointType::Prismatic: return 1;
    case JointType::Fixed: return 0;
  }
  return 0;
}

int joint_nv(JointType t) {
  switch (t) {
    case JointType::Free: return 6;
    case JointType::Ball: return 3;
    case JointType::Revolute:
    case JointType::Prismatic: return 1;
    case JointType::Fixed: return 0;
  }
  return 0;
}

namespace {
// Each table lists the values in declaration order (0, 1, 2, ...), so the scene reader's
// "expected a | b | c" messages list them as the enum does.
template <NamedEnum E>
constexpr bool in_declaration_order() {
  for (size_t i = 0; i < EnumNames<E>::table.size(); ++i)
    if (static_cast<size_t>(EnumNames<E>::table[i].first) != i) return false;
  return true;
}
static_assert(in_declaration_order<JointType>() && in_declaration_order<GeomType>() &&
              in_declaration_order<FrictionModel>() && in_declaration_order<SolverType>() &&
              in_declaration_order<ContactArea>() && in_declaration_order<ActuatorType>() &&
              in_declaration_order<EqualityType>() && in_declaration_order<StepperType>() &&
              in_declaration_order<Integrator>());
static_assert(EnumNames<GeomType>::table.size() == kNumGeomTypes);

template <typename T>
int find_by_name(const std::vector<T>& items, const std::string& name) {
  for (size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<int>(i);
  return -1;
}
}  // namespace

int Model::find_body(const std::string& name) const { return find_by_name(bodies, name); }
int Model::find_joint(const std::string& name) const { return find_by_name(joints, name); }
int Model::find_geom(const std::string& name) const { return find_by_name(geoms, name); }
int Model::find_actuator(const std::string& name) const { return find_by_name(actuators, name); }
int Model::find_site(const std::string& name) const { return find_by_name(sites, name); }

int Model::body_id(const std::string& name) const {
  const int id = find_body(name);
  require(id >= 0, "", "unknown body '" + name + "'");
  return id;
}
int Model::joint_id(const std::string& name) const {
  const int id = find_joint(name);
  require(id >= 0, "", "unknown joint '" + name + "'");
  return id;
}

const ContactMaterial& Model::contact_material(int a, int b) const {
  for (const auto& c : contact_materials)
    if ((c.material_a == a && c.material_b == b) || (c.material_a == b && c.material_b == a)) return c;
  return default_contact;
}

bool Model::bodies_may_collide(int a, int b) const {
  if (a == b) return false;
  // Parent and child touch at their joint by construction; the world is exempt so that
  // free bodies still land on the ground.
  if ((bodies[a].parent == b && b != 0) || (bodies[b].parent == a && a != 0)) return false;
  const std::pair<int, int> key{std::min(a, b), std::max(a, b)};
  return !std::binary_search(excluded_body_pairs.begin(), excluded_body_pairs.end(), key);
}

}  // namespace graspsim
