#pragma once
// Forward kinematics and Jacobians over the kinematic forest, in generalized coordinates.
// Conventions of q and v are in model/model.h (JointType); spatial vectors in spatial.h.

#include <vector>

#include "core/types.h"
#include "kinematics/spatial.h"
#include "model/model.h"

namespace graspsim {

using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic>;

// Per-body and per-dof kinematic quantities; computed by forward_kinematics from q only.
// Sizes are kept between calls, so a reused KinematicsData allocates nothing.
struct KinematicsData {
  std::vector<Pose> X_WB;          // body frame in the world (nbody)
  std::vector<Vec3> p_WCom;        // body centre of mass in the world (nbody)
  std::vector<Mat3> R_WB;          // rotation of X_WB as a matrix (nbody)
  Mat6X S;                         // motion subspace of each dof, world frame about O (6 x nv):
                                   //   the body's spatial velocity is the sum of S_i v_i over
                                   //   the dofs of the body and of its ancestors
  std::vector<SpatialInertia> I_W;   // body inertia, world frame about O (nbody)
  std::vector<SpatialInertia> Ic_W;  // composite inertia of the body's subtree (nbody)
  std::vector<int> dof_body;       // body moved by each dof (nv)
  std::vector<int> dof_parent;     // previous dof on the path to the root, −1 at a root (nv)
  std::vector<int> body_last_dof;  // last dof on the path from the body to the root, −1 if none (nbody)
  std::vector<char> dof_fixed_in_world;  // 1 for the linear dofs of free joints: their S_i
                                         // is constant in the world, so Ṡ_i = 0 (nv)

  // Scratch of the recursive Newton-Euler pass (bias_forces, inverse_dynamics,
  // kinetic_energy): body velocity, acceleration and force, world frame about O (nbody).
  // Mutable so those functions can take a const KinematicsData and still not allocate;
  // consequently one KinematicsData must not be shared between threads.
  mutable std::vector<Vec6> V, A, F;
};

void forward_kinematics(const Model& model, const VecX& q, KinematicsData& kin);

// Geom frame in the world (needs forward_kinematics first).
Pose geom_pose(const Model& model, const KinematicsData& kin, int geom);

// Point and contact Jacobians: contact/contact_kinematics.h (sparse over the dof chain).

// Angular velocity (world) of `body` and linear velocity of its frame origin (world).
void body_velocity(const Model& model, const KinematicsData& kin, const VecX& v, int body, Vec3& w_W,
                   Vec3& v_W);

// Spatial velocity [ω; v_O] of `body` (world frame about O): the sum of S_i v_i over the
// dofs on its path to the root.
Vec6 spatial_velocity(const Model& model, const KinematicsData& kin, const VecX& v, int body);

}  // namespace graspsim
