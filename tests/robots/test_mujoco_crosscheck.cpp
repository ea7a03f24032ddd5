// The MJCF loader cross-checked against MuJoCo 2.2.2 on the menagerie robots in
// shared/data/models: the summary's counts, the coordinate layout, and at the same
// configurations (q0, every keyframe, seeded random ones) the world positions of every
// named body, the joint-space mass matrix and the actuators' generalized forces.

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numbers>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "dynamics/actuation.h"
#include "dynamics/dynamics.h"
#include "kinematics/kinematics.h"
#include "model/input.h"
#include "mujoco_reference.h"
#include "robots/robot_file.h"

namespace graspsim {
namespace {

using test::MjJointType;
using test::MujocoReference;

constexpr std::uint64_t kSeed = 0x6a3d2f85u;
constexpr int kRandomConfigurations = 20;
constexpr double kPositionTolerance = 1e-9;  // m, per body
constexpr double kRelativeTolerance = 1e-9;  // of the largest |entry| of MuJoCo's matrix or vector
constexpr int kMaxReported = 10;             // mismatches listed one by one per test

// Menagerie files by their folder; graspsim's own fixtures by their path under the source tree.
std::string model_path(const std::string& file) {
  if (file.rfind("tests/", 0) == 0) return std::string(GRASPSIM_SOURCE_DIR) + "/" + file;
  return std::string(GRASPSIM_SHARED_DIR) + "/data/models/" + file;
}

// Both models of one file, loaded once per test program.
struct Robot {
  LoadedRobot graspsim;
  std::unique_ptr<MujocoReference> mujoco;
};

Robot& robot(const std::string& file) {
  static std::map<std::string, std::unique_ptr<Robot>> cache;
  std::unique_ptr<Robot>& slot = cache[file];
  if (!slot) {
    auto r = std::make_unique<Robot>();
    r->graspsim = load_robot(model_path(file));
    r->mujoco = std::make_unique<MujocoReference>(model_path(file));
    slot = std::move(r);
  }
  return *slot;
}

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}

std::string fmt(const Vec3& v) { return "(" + fmt(v.x()) + ", " + fmt(v.y()) + ", " + fmt(v.z()) + ")"; }

std::string fmt(const VecX& v) {
  std::string s = "[";
  for (Eigen::Index i = 0; i < v.size(); ++i) s += (i ? ", " : "") + fmt(v[i]);
  return s + "]";
}

// Lists the first kMaxReported mismatches as failures, then how many more there were.
class Mismatches {
 public:
  void add(const std::string& message) {
    if (++count_ <= kMaxReported) ADD_FAILURE() << message;
  }
  ~Mismatches() {
    if (count_ > kMaxReported) ADD_FAILURE() << (count_ - kMaxReported) << " more mismatches not listed";
  }

 private:
  int count_ = 0;
};

struct Configuration {
  std::string label;
  VecX q;
};

Quat random_unit_quat(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0.0, 1.0);
  Quat r(n(rng), n(rng), n(rng), n(rng));
  r.normalize();
  return r;
}

// MuJoCo's qpos0 with every joint drawn at random: hinges and slides uniform in their range
// (in [−π, π] when unlimited), ball and free rotations uniform unit quaternions, free
// positions uniform in [−1, 1] m.
VecX random_configuration(const MujocoReference& ref, std::mt19937_64& rng) {
  VecX q = ref.qpos0();
  for (const test::MjJointInfo& j : ref.joints()) {
    const auto put_quat = [&](int at) {
      const Quat r = random_unit_quat(rng);
      q.segment<4>(at) << r.w(), r.x(), r.y(), r.z();
    };
    switch (j.type) {
      case MjJointType::Hinge:
      case MjJointType::Slide: {
        const double lo = j.limited ? j.lower : -std::numbers::pi;
        const double hi = j.limited ? j.upper : std::numbers::pi;
        q[j.qposadr] = std::uniform_real_distribution<double>(lo, hi)(rng);
        break;
      }
      case MjJointType::Ball: put_quat(j.qposadr); break;
      case MjJointType::Free: {
        std::uniform_real_distribution<double> u(-1.0, 1.0);
        for (int k = 0; k < 3; ++k) q[j.qposadr + k] = u(rng);
        put_quat(j.qposadr + 3);
        break;
      }
    }
  }
  return q;
}

// q0, every keyframe, then kRandomConfigurations seeded random ones.
std::vector<Configuration> configurations(const MujocoReference& ref) {
  std::vector<Configuration> out;
  out.push_back({"q0 (MuJoCo qpos0)", ref.qpos0()});
  for (int k = 0; k < ref.nkey(); ++k)
    out.push_back({"keyframe " + std::to_string(k) + " '" + ref.key_name(k) + "'", ref.key_qpos(k)});
  std::mt19937_64 rng(kSeed);
  for (int i = 0; i < kRandomConfigurations; ++i)
    out.push_back({"random configuration " + std::to_string(i), random_configuration(ref, rng)});
  return out;
}

// "dof 7 (joint 'rh_FFJ3')", naming the dof within the joint when it has several.
std::string dof_label(const MujocoReference& ref, const std::vector<test::MjJointInfo>& joints, int dof) {
  const int j = ref.dof_joint(dof);
  const test::MjJointInfo& info = joints[static_cast<size_t>(j)];
  std::string s = "dof " + std::to_string(dof) + " (joint " + std::to_string(j) + " '" + info.name + "'";
  if (info.type == MjJointType::Ball || info.type == MjJointType::Free)
    s += ", its dof " + std::to_string(dof - info.dofadr);
  return s + ")";
}

const char* mujoco_type_name(MjJointType t) {
  switch (t) {
    case MjJointType::Free: return "free";
    case MjJointType::Ball: return "ball";
    case MjJointType::Slide: return "slide";
    case MjJointType::Hinge: return "hinge";
  }
  return "?";
}

JointType graspsim_joint_type(MjJointType t) {
  switch (t) {
    case MjJointType::Free: return JointType::Free;
    case MjJointType::Ball: return JointType::Ball;
    case MjJointType::Slide: return JointType::Prismatic;
    case MjJointType::Hinge: return JointType::Revolute;
  }
  return JointType::Fixed;
}

class MujocoCrosscheck : public ::testing::TestWithParam<std::string> {};

// (a) RobotSummary's counts are MuJoCo's.
TEST_P(MujocoCrosscheck, SummaryCountsMatchMujoco) {
  Robot& r = robot(GetParam());
  const RobotSummary& s = r.graspsim.summary;
  const test::MujocoCounts c = r.mujoco->counts();
  EXPECT_EQ(s.bodies, c.bodies) << "bodies (MuJoCo: nbody - 1)";
  EXPECT_EQ(s.joints, c.joints) << "joints (MuJoCo: njnt)";
  EXPECT_EQ(s.dof, c.dof) << "dof (MuJoCo: nv)";
  EXPECT_EQ(s.geoms, c.geoms) << "geoms (MuJoCo: ngeom)";
  EXPECT_EQ(s.actuators, c.actuators) << "actuators (MuJoCo: nu)";
  EXPECT_EQ(s.equality, c.equality) << "equality constraints (MuJoCo: neq)";
  EXPECT_EQ(s.tendons, c.tendons) << "tendons (MuJoCo: ntendon)";
  const Model& m = *r.graspsim.model;
  EXPECT_EQ(m.nq, r.mujoco->nq()) << "Model::nq (MuJoCo: nq)";
  EXPECT_EQ(m.nv, r.mujoco->nv()) << "Model::nv (MuJoCo: nv)";
  EXPECT_EQ(static_cast<int>(m.actuators.size()), r.mujoco->nu()) << "Model::actuators (MuJoCo: nu)";
}

// q and v follow qpos and qvel: each named joint at MuJoCo's addresses with the matching
// type, actuators in MuJoCo's order, q0 = qpos0, keyframes = key_qpos.
TEST_P(MujocoCrosscheck, CoordinatesFollowMujocoLayout) {
  Robot& r = robot(GetParam());
  const Model& m = *r.graspsim.model;
  const MujocoReference& ref = *r.mujoco;
  ASSERT_EQ(m.nq, ref.nq());
  ASSERT_EQ(m.nv, ref.nv());
  Mismatches bad;
  for (const test::MjJointInfo& j : ref.joints()) {
    if (j.name.empty()) continue;
    const int gj = m.find_joint(j.name);
    if (gj < 0) {
      bad.add("MuJoCo joint '" + j.name + "' has no graspsim joint of that name");
      continue;
    }
    const Joint& g = m.joints[static_cast<size_t>(gj)];
    if (g.qadr != j.qposadr || g.vadr != j.dofadr || g.type != graspsim_joint_type(j.type))
      bad.add("joint '" + j.name + "': graspsim " + to_string(g.type) + " at q " + std::to_string(g.qadr) + ", v " +
              std::to_string(g.vadr) + "; MuJoCo " + mujoco_type_name(j.type) + " at qpos " +
              std::to_string(j.qposadr) + ", qvel " + std::to_string(j.dofadr));
    for (auto [ours, theirs, what] : {std::tuple{g.damping, j.damping, "damping"}, {g.armature, j.armature, "armature"},
                                      {g.frictionloss, j.frictionloss, "frictionloss"},
                                      {g.stiffness, j.stiffness, "stiffness"}})
      if (std::abs(ours - theirs) > 1e-12 * std::max(1.0, std::abs(theirs)))
        bad.add("joint '" + j.name + "': " + what + " " + fmt(ours) + " in graspsim, " + fmt(theirs) + " in MuJoCo");
  }
  for (int a = 0; a < ref.nu(); ++a) {
    const std::string name = ref.actuator_name(a);
    if (name.empty()) continue;
    const int ga = m.find_actuator(name);
    if (ga != a)
      bad.add("actuator '" + name + "' is MuJoCo's actuator " + std::to_string(a) + " but graspsim's " +
              std::to_string(ga));
  }
  if (m.q0.size() == ref.nq() && (m.q0 - ref.qpos0()).cwiseAbs().maxCoeff() > 1e-12)
    bad.add("Model::q0 " + fmt(m.q0) + " differs from MuJoCo's qpos0 " + fmt(ref.qpos0()));
  if (static_cast<int>(m.keyframes.size()) != ref.nkey()) {
    bad.add(std::to_string(m.keyframes.size()) + " keyframes in graspsim, " + std::to_string(ref.nkey()) +
            " in MuJoCo");
  } else {
    for (int k = 0; k < ref.nkey(); ++k) {
      const VecX& q = m.keyframes[static_cast<size_t>(k)].q;
      if (q.size() != ref.nq() || (q - ref.key_qpos(k)).cwiseAbs().maxCoeff() > 1e-12)
        bad.add("keyframe '" + ref.key_name(k) + "': graspsim q " + fmt(q) + ", MuJoCo key_qpos " +
                fmt(ref.key_qpos(k)));
    }
  }
}

// (b) Every named MuJoCo body is where MuJoCo puts it, within 1e-9 m.
TEST_P(MujocoCrosscheck, BodyPositionsMatchMujoco) {
  Robot& r = robot(GetParam());
  const Model& m = *r.graspsim.model;
  MujocoReference& ref = *r.mujoco;
  ASSERT_EQ(m.nq, ref.nq()) << "q and qpos must have one layout";

  // MuJoCo body -> graspsim body, for the named ones.
  std::vector<std::pair<int, int>> pairs;
  Mismatches bad;
  for (int b = 0; b < ref.nbody(); ++b) {
    const std::string name = ref.body_name(b);
    if (name.empty()) continue;
    const int gb = m.find_body(name);
    if (gb < 0) {
      bad.add("MuJoCo body '" + name + "' has no graspsim body of that name");
      continue;
    }
    pairs.emplace_back(b, gb);
  }

  KinematicsData kin;
  for (const Configuration& c : configurations(ref)) {
    forward_kinematics(m, c.q, kin);
    const std::vector<Vec3> xpos = ref.body_positions(c.q);
    for (const auto& [b, gb] : pairs) {
      const Vec3& p = kin.X_WB[static_cast<size_t>(gb)].p;
      const double err = (p - xpos[static_cast<size_t>(b)]).norm();
      if (!(err <= kPositionTolerance))
        bad.add(c.label + ": body '" + ref.body_name(b) + "' at " + fmt(p) + " in graspsim, " +
                fmt(xpos[static_cast<size_t>(b)]) + " in MuJoCo (off by " + fmt(err) + " m)\n  q = " + fmt(c.q));
    }
  }
}

// (c) The joint-space mass matrix is mj_fullM's, within 1e-9 of its largest entry.
TEST_P(MujocoCrosscheck, MassMatrixMatchesMujoco) {
  Robot& r = robot(GetParam());
  const Model& m = *r.graspsim.model;
  MujocoReference& ref = *r.mujoco;
  ASSERT_EQ(m.nq, ref.nq());
  ASSERT_EQ(m.nv, ref.nv());
  const auto joints = ref.joints();
  // MuJoCo keeps each body inertia as principal moments in a frame it finds iteratively;
  // for <inertial fullinertia> (the Panda) that is off the file's tensor by up to ~5e-7
  // kg·m² (relative 1e-6). The loaded tensors must agree to that; M is then compared on
  // the same tensors, so the 1e-9 tolerance tests the dynamics, not MuJoCo's eigensolver.
  Model same = *r.graspsim.model;
  for (int b = 1; b < ref.nbody(); ++b) {
    const int gb = same.find_body(ref.body_name(b));
    if (gb < 0) continue;
    bool moves = false;  // bodies welded to the world never enter M
    for (int a = gb; a > 0; a = same.bodies[a].parent) moves = moves || same.joints[same.bodies[a].joint].nv > 0;
    if (!moves) continue;
    const Mat3 I_ref = ref.body_inertia(b);
    const double scale = std::max(I_ref.cwiseAbs().maxCoeff(), 1e-300);
    EXPECT_LE((I_ref - same.bodies[gb].inertia).cwiseAbs().maxCoeff(), 2e-6 * scale) << "body " << ref.body_name(b);
    same.bodies[gb].inertia = I_ref;
  }
  KinematicsData kin;
  MatX M;
  Mismatches bad;
  for (const Configuration& c : configurations(ref)) {
    forward_kinematics(same, c.q, kin);
    mass_matrix(same, kin, M);
    const MatX M_ref = ref.mass_matrix(c.q);
    if (M_ref.size() == 0) continue;
    const double scale = M_ref.cwiseAbs().maxCoeff();
    Eigen::Index i = 0, j = 0;
    const double err = (M - M_ref).cwiseAbs().maxCoeff(&i, &j);
    if (!(err <= kRelativeTolerance * scale)) {
      bad.add(c.label + ": worst entry M(" + std::to_string(i) + ", " + std::to_string(j) + "), row " +
              dof_label(ref, joints, static_cast<int>(i)) + ", column " + dof_label(ref, joints, static_cast<int>(j)) +
              ": graspsim " + fmt(M(i, j)) + ", MuJoCo " + fmt(M_ref(i, j)) + "; |dM|max " + fmt(err) +
              " > 1e-9 * |M|max = " + fmt(kRelativeTolerance * scale) + "\n  diagonal, graspsim " +
              fmt(VecX(M.diagonal())) + "\n  diagonal, MuJoCo   " + fmt(VecX(M_ref.diagonal())) +
              "\n  q = " + fmt(c.q));
    }
  }
}

// (d) The actuators' generalized forces at random velocities and controls are
// qfrc_actuator, within 1e-9 of its largest entry.
TEST_P(MujocoCrosscheck, ActuatorForcesMatchMujoco) {
  Robot& r = robot(GetParam());
  const Model& m = *r.graspsim.model;
  MujocoReference& ref = *r.mujoco;
  ASSERT_EQ(m.nq, ref.nq());
  ASSERT_EQ(m.nv, ref.nv());
  ASSERT_EQ(static_cast<int>(m.actuators.size()), ref.nu());
  if (ref.nu() == 0) GTEST_SKIP() << "no actuators";
  const auto joints = ref.joints();
  std::mt19937_64 rng(kSeed + 1);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  Input input = make_input(m);
  Mismatches bad;
  for (const Configuration& c : configurations(ref)) {
    VecX v(ref.nv());
    for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = unit(rng);
    VecX ctrl(ref.nu());
    for (int a = 0; a < ref.nu(); ++a) {
      const auto [lo, hi] = ref.ctrl_limited(a) ? ref.ctrl_range(a) : std::pair<double, double>(-1.0, 1.0);
      ctrl[a] = std::uniform_real_distribution<double>(lo, hi)(rng);
    }
    input.ctrl = ctrl;
    VecX tau = VecX::Zero(m.nv);
    add_actuator_forces(m, input, c.q, v, nullptr, tau);
    const VecX tau_ref = ref.actuator_forces(c.q, v, ctrl);
    const double scale = tau_ref.cwiseAbs().maxCoeff();
    Eigen::Index i = 0;
    const double err = (tau - tau_ref).cwiseAbs().maxCoeff(&i);
    if (!(err <= kRelativeTolerance * scale + 1e-300)) {
      bad.add(c.label + ": worst " + dof_label(ref, joints, static_cast<int>(i)) + ": graspsim " + fmt(tau[i]) +
              ", MuJoCo " + fmt(tau_ref[i]) + "; |dtau|max " + fmt(err) + " > 1e-9 * |tau|max = " +
              fmt(kRelativeTolerance * scale) + "\n  tau, graspsim " + fmt(tau) + "\n  tau, MuJoCo   " +
              fmt(tau_ref) + "\n  q = " + fmt(c.q) + "\n  v = " + fmt(v) + "\n  ctrl = " + fmt(ctrl));
    }
  }
}

// "shadow_hand/right_hand.xml" -> "shadow_hand_right_hand".
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  if (name.size() > 4 && name.ends_with(".xml")) name.resize(name.size() - 4);
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Menagerie, MujocoCrosscheck,
                         ::testing::Values(std::string("shadow_hand/right_hand.xml"),
                                           std::string("robotiq_2f85/2f85.xml"),
                                           std::string("kuka_iiwa_14/iiwa14.xml"),
                                           std::string("franka_emika_panda/panda.xml")),
                         test_name);
INSTANTIATE_TEST_SUITE_P(Fixture, MujocoCrosscheck, ::testing::Values(std::string("tests/robots/data/features.xml")),
                         test_name);

}  // namespace
}  // namespace graspsim
