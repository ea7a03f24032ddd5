#include "contact/contact_kinematics.h"

#include <algorithm>
#include <cmath>

namespace graspsim {

ContactFrame contact_frame(const Vec3& n) {
  // World x projected on the contact plane, or world y when x is nearly parallel to n.
  const Vec3 a = std::abs(n.x()) > 0.9 ? Vec3::UnitY() : Vec3::UnitX();
  const Vec3 t1 = (a - n.dot(a) * n).normalized();
  return {n, t1, n.cross(t1)};
}

namespace {

// The chain of `body`'s dofs from its root, in dof order, each with column(d): counted
// first, so it is written in place (no reverse).
template <class Column>
void fill_chain(const KinematicsData& kin, int body, PointChain& chain, Column column) {
  chain.clear();
  if (body == 0) return;
  int n = 0;
  for (int d = kin.body_last_dof[body]; d >= 0; d = kin.dof_parent[d]) ++n;
  chain.resize(static_cast<size_t>(n));
  for (int d = kin.body_last_dof[body]; d >= 0; d = kin.dof_parent[d]) chain[static_cast<size_t>(--n)] = {d, column(d)};
}

}  // namespace

void point_chain(const KinematicsData& kin, int body, const Vec3& c, PointChain& chain) {
  fill_chain(kin, body, chain, [&](int d) -> Vec3 { return kin.S.col(d).tail<3>() + kin.S.col(d).head<3>().cross(c); });
}

void angular_chain(const KinematicsData& kin, int body, PointChain& chain) {
  fill_chain(kin, body, chain, [&](int d) -> Vec3 { return kin.S.col(d).head<3>(); });
}

Vec3 chain_velocity(const PointChain& chain, const VecX& v) {
  Vec3 u = Vec3::Zero();
  for (const auto& [d, col] : chain) u += col * v[d];
  return u;
}

void dense_jacobian(const PointChain& chain, Eigen::Ref<MatX> J) {
  J.setZero();
  for (const auto& [d, col] : chain) J.col(d) = col;
}

double relative_row_at(const KinematicsData& kin, int body_a, const Vec3& c_a, int body_b, const Vec3& c_b,
                       const Vec3& u, const VecX& v, bool angular, RowEntries& entries) {
  double jv = 0.0;
  const size_t row_begin = entries.size();
  size_t b_end = row_begin;
  for (const auto& [body, sign, c] : {std::tuple{body_b, 1.0, c_b}, std::tuple{body_a, -1.0, c_a}}) {
    b_end = entries.size();  // (after the loop: where A's entries begin)
    if (body == 0) continue;
    const Vec3 cxu = c.cross(u);
    const size_t first = entries.size();
    for (int d = kin.body_last_dof[body]; d >= 0; d = kin.dof_parent[d]) {
      const double val = angular ? sign * u.dot(kin.S.col(d).head<3>())
                                 : sign * (u.dot(kin.S.col(d).tail<3>()) + cxu.dot(kin.S.col(d).head<3>()));
      entries.emplace_back(d, val);
      jv += val * v[d];
    }
    // Walked leaf to root (dofs descending): each run is reversed to ascending.
    std::reverse(entries.begin() + static_cast<std::ptrdiff_t>(first), entries.end());
  }
  // When all of A's dofs precede B's (two trees) the row is in column order once the runs swap.
  if (b_end > row_begin && entries.size() > b_end && entries.back().first < entries[row_begin].first) {
    const auto begin = entries.begin();
    std::rotate(begin + static_cast<std::ptrdiff_t>(row_begin), begin + static_cast<std::ptrdiff_t>(b_end), entries.end());
  }
  return jv;
}

void add_generalized_force(const PointChain& chain, const Vec3& f, VecX& tau) {
  for (const auto& [d, col] : chain) tau[d] += col.dot(f);
}

void add_contact_wrench(const KinematicsData& kin, int body_a, const Vec3& p_a, int body_b, const Vec3& p_b,
                        const Vec3& f, const Vec3& torque, VecX& tau, PointChain& scratch) {
  point_chain(kin, body_b, p_b, scratch);
  add_generalized_force(scratch, f, tau);
  point_chain(kin, body_a, p_a, scratch);
  add_generalized_force(scratch, -f, tau);
  if (torque.isZero(0.0)) return;
  angular_chain(kin, body_b, scratch);
  add_generalized_force(scratch, torque, tau);
  angular_chain(kin, body_a, scratch);
  add_generalized_force(scratch, -torque, tau);
}

}  // namespace graspsim
