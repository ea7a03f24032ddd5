#pragma once
// Seeded random kinematic trees for cross-checking kinematics and dynamics.

#include <memory>
#include <random>
#include <string>

#include "../common/test_bodies.h"
#include "model/builder.h"
#include "model/model.h"

namespace graspsim::test {

inline Quat random_quat(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  return Quat(n(rng), n(rng), n(rng), n(rng)).normalized();
}

inline Vec3 random_vec(std::mt19937_64& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return {u(rng), u(rng), u(rng)};
}

// Inertia of a random box, rotated: symmetric positive definite, triangle inequality holds.
inline Mat3 random_inertia(std::mt19937_64& rng, double mass) {
  std::uniform_real_distribution<double> u(0.1, 0.5);
  const double a = u(rng), b = u(rng), c = u(rng);
  const Vec3 d = mass / 12.0 * Vec3(b * b + c * c, a * a + c * c, a * a + b * b);
  const Mat3 R = random_quat(rng).toRotationMatrix();
  return R * d.asDiagonal() * R.transpose();
}

// "b<i>" (appended rather than "b" + string, which trips GCC 12's -Wrestrict false positive).
inline std::string body_name(int i) {
  std::string s = "b";
  s += std::to_string(i);
  return s;
}

// A tree of `n` bodies with random joints (free only under the world; with
// holonomic_only just revolute, prismatic and fixed), poses, axes, masses and inertias.
inline std::shared_ptr<const Model> random_tree(std::uint64_t seed, int n, bool holonomic_only = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  ModelBuilder mb;
  for (int i = 1; i <= n; ++i) {
    BodyDef b;
    b.name = body_name(i);
    const int parent = static_cast<int>(u01(rng) * i);  // 0 = world
    b.parent = parent == 0 ? "world" : body_name(parent);
    const double r = u01(rng);
    if (holonomic_only)
      b.joint.type = r < 0.5 ? JointType::Revolute : r < 0.85 ? JointType::Prismatic : JointType::Fixed;
    else if (parent == 0 && r < 0.3)
      b.joint.type = JointType::Free;
    else
      b.joint.type = r < 0.5 ? JointType::Ball : r < 0.8 ? JointType::Revolute : r < 0.95 ? JointType::Prismatic
                                                                                          : JointType::Fixed;
    b.joint.axis = random_vec(rng, 1.0).normalized();
    b.joint.armature = 0.1 * u01(rng);
    b.pose = {random_vec(rng, 0.5), random_quat(rng)};
    b.mass = 0.5 + 1.5 * u01(rng);
    b.com = random_vec(rng, 0.2);
    b.inertia = random_inertia(rng, *b.mass);
    mb.add_body(b);
  }
  return mb.build();
}

inline VecX random_q(const Model& m, std::mt19937_64& rng) {
  VecX q(m.nq);
  for (const Joint& j : m.joints) {
    if (j.type == JointType::Free) q.segment<3>(j.qadr) = random_vec(rng, 1.0);
    if (j.type == JointType::Free || j.type == JointType::Ball) {
      const Quat r = random_quat(rng);
      q.segment<4>(j.qadr + j.nq - 4) << r.w(), r.x(), r.y(), r.z();
    }
    if (j.nq == 1) q[j.qadr] = random_vec(rng, 1.0).x();
  }
  return q;
}

inline VecX random_v(const Model& m, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX v(m.nv);
  for (int i = 0; i < m.nv; ++i) v[i] = u(rng);
  return v;
}

}  // namespace graspsim::test
