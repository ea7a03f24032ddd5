#pragma once
// MuJoCo 2.2.2 (Debian's libmujoco-dev) as the reference the MJCF loader is cross-checked
// against. Tests only: the engine libraries never link MuJoCo.
//
// MujocoReference owns one mjModel and one mjData. Its file is loaded from a rewritten
// copy (see rewrite_for_mujoco): MuJoCo 2.2.2 rejects integrator="implicitfast", which
// newer menagerie files use, and the copy lives in a temporary directory, so relative
// asset directories are made absolute.

#include <string>
#include <utility>
#include <vector>

#include "core/types.h"

struct mjModel_;
struct mjData_;

namespace graspsim::test {

// The counts RobotSummary reports, as MuJoCo has them.
struct MujocoCounts {
  int bodies = 0;     // nbody − 1 (the world is not counted)
  int joints = 0;     // njnt
  int dof = 0;        // nv
  int geoms = 0;      // ngeom
  int actuators = 0;  // nu
  int equality = 0;   // neq
  int tendons = 0;    // ntendon
};

// MuJoCo's joint types, with mjtJoint's values.
enum class MjJointType { Free = 0, Ball = 1, Slide = 2, Hinge = 3 };

struct MjJointInfo {
  std::string name;  // "" when unnamed
  MjJointType type = MjJointType::Hinge;
  int qposadr = 0, dofadr = 0;
  bool limited = false;
  double lower = 0.0, upper = 0.0;  // jnt_range (hinge, slide)
  // The joint's first dof: dof_damping, dof_armature, dof_frictionloss; jnt_stiffness.
  double damping = 0.0, armature = 0.0, frictionloss = 0.0, stiffness = 0.0;
};

class MujocoReference {
 public:
  // Loads the MJCF file at `path`; throws std::runtime_error with MuJoCo's message.
  explicit MujocoReference(const std::string& path);
  ~MujocoReference();
  MujocoReference(const MujocoReference&) = delete;
  MujocoReference& operator=(const MujocoReference&) = delete;

  const std::string& path() const { return path_; }
  MujocoCounts counts() const;
  int nq() const;
  int nv() const;
  int nu() const;
  int nbody() const;  // including the world, body 0

  std::string body_name(int body) const;  // "" when unnamed
  std::vector<MjJointInfo> joints() const;
  int dof_joint(int dof) const;            // dof_jntid
  std::string actuator_name(int actuator) const;
  bool ctrl_limited(int actuator) const;
  std::pair<double, double> ctrl_range(int actuator) const;

  VecX qpos0() const;
  int nkey() const;
  std::string key_name(int key) const;
  VecX key_qpos(int key) const;

  // World position of every body frame (xpos, nbody entries) after mj_kinematics.
  std::vector<Vec3> body_positions(const VecX& qpos);
  // Dense joint-space mass matrix (nv × nv, armature included): mj_kinematics, mj_comPos,
  // mj_crb, then mj_fullM.
  MatX mass_matrix(const VecX& qpos);
  // qfrc_actuator at (qpos, qvel, ctrl): mj_fwdPosition, mj_fwdVelocity, mj_fwdActuation
  // (contacts are disabled in this model: none of these outputs depends on them).
  VecX actuator_forces(const VecX& qpos, const VecX& qvel, const VecX& ctrl);

  const mjModel_* raw_model() const { return model_; }
  // Body b's inertia about its centre of mass in its frame, as MuJoCo holds it (principal
  // moments body_inertia in the frame body_iquat): MuJoCo diagonalises <inertial
  // fullinertia> with an iterative eigensolver, so this differs slightly from the file.
  Mat3 body_inertia(int b) const;

  // The text MuJoCo 2.2.2 loads in place of `xml`, a file that was in directory `dir`:
  // every integrator="implicitfast" attribute removed; meshdir, texturedir and assetdir made
  // absolute (relative ones taken from `dir`); and, with `add_dirs` (the main file) when the
  // file sets no assetdir, meshdir="<dir>" and texturedir="<dir>" added to <compiler> where
  // absent (a <compiler> element is inserted after <mujoco> if there is none). Files named
  // by <include file> (relative to the main file's directory, as MuJoCo resolves them) are
  // copied next to the rewritten main file, rewritten the same way without `add_dirs`.
  static std::string rewrite_for_mujoco(const std::string& xml, const std::string& dir, bool add_dirs = true);

 private:
  void set_qpos(const VecX& qpos);

  std::string path_;
  mjModel_* model_ = nullptr;
  mjData_* data_ = nullptr;
};

}  // namespace graspsim::test
