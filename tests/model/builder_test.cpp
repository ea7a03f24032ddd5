#include "model/builder.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "../common/temp_dir.h"
#include "core/error.h"
#include "model/state.h"

namespace graspsim {
namespace {

BodyDef box_body(const std::string& name, const std::string& parent = "world", JointType joint = JointType::Free) {
  BodyDef b;
  b.name = name;
  b.parent = parent;
  b.joint.type = joint;
  b.source = "test.yaml:7";
  return b;
}

GeomDef box_geom(const std::string& body, double half = 0.05) {
  GeomDef g;
  g.body = body;
  g.type = GeomType::Box;
  g.size = Vec3::Constant(half);
  return g;
}

TEST(ModelBuilder, MassFromGeomDensity) {
  ModelBuilder b;
  b.add_body(box_body("box"));
  b.add_geom(box_geom("box", 0.05));  // 0.1 m cube of water: 1 kg
  auto m = b.build();
  const Body& body = m->bodies[m->body_id("box")];
  EXPECT_NEAR(body.mass, 1.0, 1e-12);
  EXPECT_NEAR(body.inertia(0, 0), 1.0 * (0.01 + 0.01) / 12.0, 1e-15);
  EXPECT_EQ(m->nq, 7);
  EXPECT_EQ(m->nv, 6);
}

TEST(ModelBuilder, ExplicitMassScalesGeomInertia) {
  ModelBuilder b;
  BodyDef body = box_body("box");
  body.mass = 0.837;
  b.add_body(body);
  b.add_geom(box_geom("box", 0.045));
  auto m = b.build();
  EXPECT_NEAR(m->bodies[1].inertia(2, 2), 0.837 * (0.09 * 0.09 * 2) / 12.0, 1e-15);
}

TEST(ModelBuilder, NegativeMassNamesTheBody) {
  ModelBuilder b;
  BodyDef body = box_body("heavy_box");
  body.mass = -1.0;
  b.add_body(body);
  b.add_geom(box_geom("heavy_box"));
  const std::string msg = test::input_error([&] { b.build(); });
  EXPECT_NE(msg.find("heavy_box"), std::string::npos) << msg;
  EXPECT_NE(msg.find("test.yaml:7"), std::string::npos) << msg;
  EXPECT_NE(msg.find("mass"), std::string::npos) << msg;
}

TEST(ModelBuilder, DynamicBodyWithoutMassIsAnError) {
  ModelBuilder b;
  b.add_body(box_body("ghost"));
  EXPECT_NE(test::input_error([&] { b.build(); }).find("ghost"), std::string::npos);
}

TEST(ModelBuilder, InertiaTriangleInequality) {
  ModelBuilder b;
  BodyDef body = box_body("rod");
  body.mass = 1.0;
  body.inertia = Vec3(1.0, 1.0, 3.0).asDiagonal().toDenseMatrix();  // 1 + 1 < 3
  b.add_body(body);
  EXPECT_NE(test::input_error([&] { b.build(); }).find("triangle inequality"), std::string::npos);
}

TEST(ModelBuilder, InertiaNotPositiveDefinite) {
  ModelBuilder b;
  BodyDef body = box_body("flat");
  body.mass = 1.0;
  body.inertia = Vec3(1.0, 1.0, 0.0).asDiagonal().toDenseMatrix();
  b.add_body(body);
  EXPECT_NE(test::input_error([&] { b.build(); }).find("positive definite"), std::string::npos);
}

TEST(ModelBuilder, NaNIsRejected) {
  ModelBuilder b;
  BodyDef body = box_body("nan_box");
  body.pose.p.x() = std::numeric_limits<double>::quiet_NaN();
  b.add_body(body);
  b.add_geom(box_geom("nan_box"));
  EXPECT_NE(test::input_error([&] { b.build(); }).find("nan_box"), std::string::npos);
}

TEST(ModelBuilder, UnknownParentAndCycle) {
  {
    ModelBuilder b;
    b.add_body(box_body("a", "nowhere", JointType::Revolute));
    EXPECT_NE(test::input_error([&] { b.build(); }).find("unknown parent body 'nowhere'"), std::string::npos);
  }
  {
    ModelBuilder b;
    b.add_body(box_body("a", "b", JointType::Revolute));
    b.add_body(box_body("b", "a", JointType::Revolute));
    EXPECT_NE(test::input_error([&] { b.build(); }).find("cycle"), std::string::npos);
  }
}

TEST(ModelBuilder, ParentsPrecedeChildrenAndAddressesAreContiguous) {
  ModelBuilder b;
  // Declared child first on purpose.
  BodyDef child = box_body("child", "parent", JointType::Ball);
  BodyDef parent = box_body("parent", "world", JointType::Revolute);
  b.add_body(child);
  b.add_body(parent);
  b.add_geom(box_geom("child"));
  b.add_geom(box_geom("parent"));
  auto m = b.build();
  ASSERT_EQ(m->nbody(), 3);
  EXPECT_EQ(m->bodies[1].name, "parent");
  EXPECT_EQ(m->bodies[2].parent, 1);
  EXPECT_EQ(m->joints[1].qadr, 1);
  EXPECT_EQ(m->joints[1].vadr, 1);
  EXPECT_EQ(m->nq, 5);
  EXPECT_EQ(m->nv, 4);
  const State s = make_state(*m);
  EXPECT_EQ(s.q[1], 1.0);  // ball joint starts at the identity quaternion
}

TEST(ModelBuilder, FreeJointOnlyUnderWorld) {
  ModelBuilder b;
  b.add_body(box_body("base", "world", JointType::Revolute));
  b.add_body(box_body("floating", "base", JointType::Free));
  b.add_geom(box_geom("base"));
  b.add_geom(box_geom("floating"));
  EXPECT_NE(test::input_error([&] { b.build(); }).find("free joint"), std::string::npos);
}

TEST(ModelBuilder, UnknownNamesInGeomsActuatorsMaterials) {
  {
    ModelBuilder b;
    GeomDef g = box_geom("missing_body");
    EXPECT_NE(test::input_error([&] { b.add_geom(g), b.build(); }).find("missing_body"), std::string::npos);
  }
  {
    ModelBuilder b;
    b.add_body(box_body("box"));
    GeomDef g = box_geom("box");
    g.material = "unobtainium";
    b.add_geom(g);
    EXPECT_NE(test::input_error([&] { b.build(); }).find("unobtainium"), std::string::npos);
  }
  {
    ModelBuilder b;
    ActuatorDef a;
    a.name = "motor";
    a.joint = "no_such_joint";
    b.add_actuator(a);
    EXPECT_NE(test::input_error([&] { b.build(); }).find("no_such_joint"), std::string::npos);
  }
}

TEST(ModelBuilder, ContactMaterialLookupIsSymmetric) {
  ModelBuilder b;
  b.add_material("steel");
  b.add_material("rubber");
  ContactMaterialDef c;
  c.material_a = "steel";
  c.material_b = "rubber";
  c.props.friction = 0.9;
  b.add_contact_material(c);
  auto m = b.build();
  EXPECT_EQ(m->contact_material(1, 2).friction, 0.9);
  EXPECT_EQ(m->contact_material(2, 1).friction, 0.9);
  EXPECT_EQ(m->contact_material(1, 1).friction, m->default_contact.friction);
}

TEST(ModelBuilder, CollisionFilterKeepsWorldChildren) {
  ModelBuilder b;
  b.add_body(box_body("a", "world", JointType::Revolute));
  b.add_body(box_body("b", "a", JointType::Revolute));
  b.add_body(box_body("c", "world", JointType::Free));
  for (auto n : {"a", "b", "c"}) b.add_geom(box_geom(n));
  b.exclude_pair("a", "c");
  auto m = b.build();
  EXPECT_TRUE(m->bodies_may_collide(0, 1));   // world and its child: yes (things land on the ground)
  EXPECT_FALSE(m->bodies_may_collide(1, 2));  // parent and child: no
  EXPECT_FALSE(m->bodies_may_collide(1, 3));  // excluded by the user
  EXPECT_TRUE(m->bodies_may_collide(2, 3));
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

TEST(ModelBuilder, SubtreesAreContiguousDepthFirst) {
  // Declared breadth-first: a, b, then their children. Depth-first order keeps each
  // subtree's dofs together: a, a1, a2, b, b1.
  ModelBuilder builder;
  for (auto [name, parent] : std::vector<std::pair<std::string, std::string>>{
           {"a", "world"}, {"b", "world"}, {"a1", "a"}, {"b1", "b"}, {"a2", "a1"}}) {
    BodyDef d;
    d.name = name;
    d.parent = parent;
    d.joint.type = JointType::Revolute;
    d.mass = 1.0;
    d.inertia = Mat3::Identity();
    builder.add_body(d);
  }
  auto m = builder.build();
  std::vector<std::string> names;
  for (int i = 1; i < m->nbody(); ++i) names.push_back(m->bodies[i].name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "a1", "a2", "b", "b1"}));
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// Huge but finite directions normalise (their squared norm overflows: the axis became 0 and
// the mass matrix "not positive definite"); a patch grid past the limit is bad input.
TEST(ModelBuilder, HugeAxesAndQuaternionsNormaliseAndPatchGridIsBounded) {
  ModelBuilder mb;
  BodyDef slider = box_body("slider", "world", JointType::Prismatic);
  slider.mass = 1.0;
  slider.inertia = Mat3::Identity();
  slider.joint.axis = Vec3(1e200, 0, 0);
  mb.add_body(slider);
  BodyDef free = box_body("free");
  free.mass = 1.0;
  free.inertia = Mat3::Identity();
  VecX q(7);
  q << 0, 0, 1, 1e300, 1e300, 0, 0;
  free.joint.q_init = q;
  mb.add_body(free);
  auto m = mb.build();
  EXPECT_EQ(m->joints[0].axis, Vec3(1, 0, 0));
  EXPECT_NEAR(m->q0.segment<4>(4).norm(), 1.0, 1e-15);
  EXPECT_NEAR(m->q0[4], std::sqrt(0.5), 1e-15);

  ModelBuilder big;
  big.add_body(box_body("b"));
  big.options().patch_grid = 100000;
  const std::string msg = test::input_error([&] { big.build(); });
  EXPECT_NE(msg.find("patch_grid must be 0 or from 2 to 64"), std::string::npos) << msg;
}

}  // namespace
}  // namespace graspsim
