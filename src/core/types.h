#pragma once
// Scalar and geometric types shared by every layer. SI units, right-handed, z up.

#include <Eigen/Core>
#include <Eigen/Geometry>
#include <limits>

namespace graspsim {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

using Vec3 = Eigen::Vector3d;
using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat3 = Eigen::Matrix3d;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;
using Mat3X = Eigen::Matrix<double, 3, Eigen::Dynamic>;
using Quat = Eigen::Quaterniond;  // stored (x, y, z, w) by Eigen; q vectors use (w, x, y, z)

// A rigid transform X_AB: the pose of frame B measured in frame A.
struct Pose {
  Vec3 p = Vec3::Zero();
  Quat q = Quat::Identity();

  static Pose Identity() { return {}; }
  Vec3 operator*(const Vec3& x) const { return q * x + p; }
  Pose operator*(const Pose& other) const { return {q * other.p + p, (q * other.q).normalized()}; }
  Pose inverse() const {
    Quat qi = q.conjugate();
    return {-(qi * p), qi};
  }
  Mat3 R() const { return q.toRotationMatrix(); }
};

// Skew-symmetric cross-product matrix: skew(a) * b == a.cross(b).
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// Unit quaternion of the rotation by angle |w| about w (the exponential map).
inline Quat quat_exp(const Vec3& w) {
  const double angle = w.norm();
  if (angle < 1e-12) return Quat(1.0, 0.5 * w.x(), 0.5 * w.y(), 0.5 * w.z()).normalized();
  const Vec3 axis = w / angle;
  return Quat(Eigen::AngleAxisd(angle, axis));
}

// Rotation vector of a unit quaternion (inverse of quat_exp), angle in [0, pi].
inline Vec3 quat_log(Quat q) {
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const Vec3 v = q.vec();
  const double s = v.norm();
  if (s < 1e-12) return 2.0 * v;
  return 2.0 * std::atan2(s, q.w()) * v / s;
}

}  // namespace graspsim
