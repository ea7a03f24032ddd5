#pragma once
// Contact kinematics, shared by every contact formulation: contact frames, Jacobian rows of
// a contact at each body's own witness point, sparse over the kinematic chain, and contact
// forces mapped to generalized forces. A row costs O(depth of the bodies), not O(nv).

#include <utility>
#include <vector>

#include "core/types.h"
#include "kinematics/kinematics.h"

namespace graspsim {

// An orthonormal right-handed frame (n, t1, t2) at a contact; n from A towards B.
struct ContactFrame {
  Vec3 n, t1, t2;
};
// t1 is world x projected on the contact plane, or world y when |n·x| > 0.9 (x nearly
// parallel to n: its projection would be short and ill-defined); t2 = n × t1.
ContactFrame contact_frame(const Vec3& n);

// The Jacobian of one point of one body: for each dof on the body's path to the root
// (ascending), the point's velocity per unit dof velocity (linear chain) or the body's
// angular velocity per unit dof velocity (angular chain). Empty for the world.
using PointChain = std::vector<std::pair<int, Vec3>>;
void point_chain(const KinematicsData& kin, int body, const Vec3& p_W, PointChain& chain);
void angular_chain(const KinematicsData& kin, int body, PointChain& chain);

// J·v of a chain.
Vec3 chain_velocity(const PointChain& chain, const VecX& v);

// The dense 3 × nv Jacobian of a chain (zero elsewhere): for tests and small problems.
void dense_jacobian(const PointChain& chain, Eigen::Ref<MatX> J);

// The row u·(x_B − x_A) of two chains (x: point velocity or angular velocity), as
// emit(dof, value) in ascending dofs when the two bodies' dofs do not interleave (two
// trees); a dof on both paths is emitted twice (the caller sums).
template <typename Emit>
void relative_row(const PointChain& a, const PointChain& b, const Vec3& u, Emit&& emit) {
  auto emit_b = [&] { for (const auto& [d, col] : b) emit(d, u.dot(col)); };
  auto emit_a = [&] { for (const auto& [d, col] : a) emit(d, -u.dot(col)); };
  if (!a.empty() && !b.empty() && a.back().first < b.front().first) {
    emit_a();  // two trees, A's first: already in column order
    emit_b();
  } else {
    emit_b();
    emit_a();
  }
}

// One row u·(v_B(c_b) − v_A(c_a)) (or u·(ω_B − ω_A) with `angular`) for points c_a fixed to
// A and c_b fixed to B, without building chains: the cheaper form for a lone row (a loop
// closure, a torsion row). Appends (dof, value) to `entries` in the order of relative_row;
// returns J·v.
using RowEntries = std::vector<std::pair<int, double>>;
double relative_row_at(const KinematicsData& kin, int body_a, const Vec3& c_a, int body_b, const Vec3& c_b,
                       const Vec3& u, const VecX& v, bool angular, RowEntries& entries);

// Adds the generalized force of a force f (world) applied at the chain's point (linear
// chain) or of a torque (angular chain) to tau: tau += Jᵀ f.
void add_generalized_force(const PointChain& chain, const Vec3& f, VecX& tau);

// The generalized force of a contact: f on B at its witness point p_b, −f on A at p_a,
// and the torque τ on B (−τ on A) about the normal, added to tau. Uses `scratch` for chains.
void add_contact_wrench(const KinematicsData& kin, int body_a, const Vec3& p_a, int body_b, const Vec3& p_b,
                        const Vec3& f, const Vec3& torque, VecX& tau, PointChain& scratch);

}  // namespace graspsim
