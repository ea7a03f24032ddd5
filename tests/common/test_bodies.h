#pragma once
// Body definitions shared by the tests of several layers.

#include <string>

#include "model/builder.h"

namespace graspsim::test {

// A body with explicit mass properties (avoids designated initializers, which -Wextra flags).
inline BodyDef make_body(const std::string& name, const std::string& parent, JointType type, double mass,
                         const Mat3& inertia, const Vec3& com = Vec3::Zero()) {
  BodyDef b;
  b.name = name;
  b.parent = parent;
  b.joint.type = type;
  b.mass = mass;
  b.inertia = inertia;
  b.com = com;
  return b;
}

}  // namespace graspsim::test
