// ModelBuilder::set_initial_q: a computed start (a scene trajectory's first IK solution)
// wins over the joint's definition and over a start keyframe.

#include <gtest/gtest.h>

#include "../common/temp_dir.h"
#include "core/error.h"
#include "model/builder.h"

namespace graspsim {
namespace {

ModelBuilder two_hinges() {
  ModelBuilder b;
  for (const char* name : {"a", "b"}) {
    BodyDef d;
    d.name = name;
    d.parent = name[0] == 'a' ? "world" : "a";
    d.joint.type = JointType::Revolute;
    d.joint.name = std::string(name) + "_hinge";
    d.joint.q_init = VecX::Constant(1, 0.1);
    d.mass = 1.0;
    d.inertia = Mat3::Identity();
    d.source = "test.yaml:3";
    b.add_body(d);
  }
  return b;
}

TEST(InitialQ, WinsOverTheDefinitionAndAStartKeyframe) {
  ModelBuilder b = two_hinges();
  KeyframeDef k;
  k.key.name = "home";
  k.key.q = VecX::Constant(2, 0.5);
  k.joints = {"a_hinge", "b_hinge"};
  b.add_keyframe(k);
  b.start_at_keyframe(0, "home", "");
  b.set_initial_q("b_hinge", VecX::Constant(1, -0.3), "test.yaml:9");
  const auto m = b.build();
  EXPECT_EQ(m->q0[0], 0.5);   // the keyframe's
  EXPECT_EQ(m->q0[1], -0.3);  // the computed start's
}

TEST(InitialQ, UnknownJointAndWrongSizeAreInputErrors) {
  ModelBuilder b = two_hinges();
  EXPECT_NE(test::input_error([&] { b.set_initial_q("c_hinge", VecX::Zero(1), "test.yaml:9"); })
                .find("test.yaml:9: no joint 'c_hinge'"),
            std::string::npos);
  b.set_initial_q("a_hinge", VecX::Zero(2), "test.yaml:9");
  EXPECT_NE(test::input_error([&] { b.build(); }).find("test.yaml:9: joint 'a_hinge': initial q has 2 values, the joint 1"),
            std::string::npos);
}

}  // namespace
}  // namespace graspsim
