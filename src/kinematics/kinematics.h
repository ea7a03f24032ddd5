#pragma once
// Forward kinematics and Jacobians over the kinematic forest, in generalized coordinates.
// Conventions of q and v are in model/model.h (JointType).

#include <vector>

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

// Per-body kinematic quantities; computed by forward_kinematics from q only.
struct KinematicsData {
  std::vector<Pose> X_WB;          // body frame in the world (nbody)
  std::vector<Vec3> p_WCom;        // body centre of mass in the world (nbody)
};

void forward_kinematics(const Model& model, const VecX& q, KinematicsData& kin);

// Geom frame in the world (needs forward_kinematics first).
Pose geom_pose(const Model& model, const KinematicsData& kin, int geom);

// J (3 x nv): linear velocity of the point of `body` now at p_W, v_point = J v.
void point_jacobian(const Model& model, const KinematicsData& kin, int body, const Vec3& p_W,
                    Eigen::Ref<MatX> J);
// J (3 x nv): angular velocity of `body` in world coordinates, w_W = J v.
void angular_jacobian(const Model& model, const KinematicsData& kin, int body, Eigen::Ref<MatX> J);

// Angular velocity (world) of `body` and linear velocity of its frame origin (world).
void body_velocity(const Model& model, const KinematicsData& kin, const VecX& v, int body, Vec3& w_W,
                   Vec3& v_W);

}  // namespace graspsim
