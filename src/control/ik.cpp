#include "control/ik.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Cholesky>

#include "contact/contact_kinematics.h"
#include "core/error.h"
#include "kinematics/integrate.h"
#include "kinematics/kinematics.h"

namespace graspsim {
namespace {

// The frame's error at the configuration kin was computed for (world frame).
struct FrameError {
  Vec3 position, rotation;  // p* − p, log(R* Rᵀ)
  double cost = 0.0;        // ‖p* − p‖² + w² ‖log(R* Rᵀ)‖²
};

FrameError frame_error(const KinematicsData& kin, const IkTarget& target, const Pose& X_WT, double w) {
  const Pose X_WF = kin.X_WB[static_cast<size_t>(target.body)] * target.X_BF;
  FrameError e;
  e.position = X_WT.p - X_WF.p;
  e.rotation = quat_log(X_WT.q * X_WF.q.conjugate());
  e.cost = e.position.squaredNorm() + w * w * e.rotation.squaredNorm();
  return e;
}

// Limits of one selected dof: those of a limited revolute or prismatic joint, else none.
struct DofLimits {
  int qadr = -1;  // its q coordinate (1-dof joints), −1 for a dof of a free or ball joint
  double lower = -kInf, upper = kInf;
};

void clamp_to_limits(const std::vector<DofLimits>& limits, VecX& q) {
  for (const DofLimits& l : limits)
    if (l.qadr >= 0) q[l.qadr] = std::clamp(q[l.qadr], l.lower, l.upper);
}

}  // namespace

IkTarget ik_target(const Model& model, const std::string& name) {
  if (const int s = model.find_site(name); s >= 0) {
    const Site& site = model.sites[static_cast<size_t>(s)];
    return {site.body, site.X_body_site};
  }
  if (const int b = model.find_body(name); b >= 0) return {b, Pose::Identity()};
  throw InputError("no site or body named '" + name + "'");
}

Pose frame_pose(const Model& model, const IkTarget& target, const VecX& q) {
  KinematicsData kin;
  forward_kinematics(model, q, kin);
  return kin.X_WB[static_cast<size_t>(target.body)] * target.X_BF;
}

IkResult solve_ik(const Model& model, const IkTarget& target, const Pose& X_W_target, const std::vector<int>& dofs,
                  VecX q_seed, const IkOptions& options) {
  const IkOptions& o = options;
  require(target.body >= 0 && target.body < model.nbody(), "inverse kinematics",
          "target body " + std::to_string(target.body) + " does not exist");
  require(q_seed.size() == model.nq, "inverse kinematics",
          "the seed has " + std::to_string(q_seed.size()) + " values, the model " + std::to_string(model.nq));
  require(q_seed.allFinite(), "inverse kinematics", "the seed is not finite");
  require(X_W_target.p.allFinite() && X_W_target.q.coeffs().allFinite() && X_W_target.q.norm() > 1e-9,
          "inverse kinematics", "the target pose is not finite");
  require(std::isfinite(o.damping) && o.damping > 0.0, "inverse kinematics", "damping must be positive");
  require(std::isfinite(o.orientation_weight) && o.orientation_weight >= 0.0, "inverse kinematics",
          "orientation_weight must be >= 0");
  require(o.position_tolerance > 0.0 && o.rotation_tolerance > 0.0, "inverse kinematics", "tolerances must be positive");
  require(o.max_iterations >= 0, "inverse kinematics", "max_iterations must be >= 0");
  require(std::isfinite(o.max_step) && o.max_step > 0.0, "inverse kinematics", "max_step must be positive");

  // The selected dofs, their columns and limits.
  const int n = static_cast<int>(dofs.size());
  std::vector<int> column(static_cast<size_t>(model.nv), -1);
  std::vector<DofLimits> limits(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const int d = dofs[static_cast<size_t>(i)];
    require(d >= 0 && d < model.nv, "inverse kinematics", "dof " + std::to_string(d) + " does not exist");
    require(column[static_cast<size_t>(d)] < 0, "inverse kinematics", "dof " + std::to_string(d) + " is given twice");
    column[static_cast<size_t>(d)] = i;
  }
  for (const Joint& j : model.joints)
    if (j.nv > 0 && j.nq == 1 && column[static_cast<size_t>(j.vadr)] >= 0)
      limits[static_cast<size_t>(column[static_cast<size_t>(j.vadr)])] =
          j.limited ? DofLimits{j.qadr, j.lower, j.upper} : DofLimits{j.qadr, -kInf, kInf};

  const Pose X_WT{X_W_target.p, X_W_target.q.normalized()};
  const double w = o.orientation_weight;
  auto within_tolerance = [&](const FrameError& e) {
    return e.position.norm() <= o.position_tolerance && (w == 0.0 || e.rotation.norm() <= o.rotation_tolerance);
  };

  IkResult result;
  result.q = std::move(q_seed);
  clamp_to_limits(limits, result.q);
  KinematicsData kin;
  forward_kinematics(model, result.q, kin);
  FrameError err = frame_error(kin, target, X_WT, w);

  double lambda = o.damping;
  constexpr double kLambdaMax = 1e8;  // beyond it no step lowers the error: a local minimum
  MatX J(6, n), Jfull(3, model.nv);
  PointChain chain;
  std::vector<char> held(static_cast<size_t>(n));
  VecX step_v = VecX::Zero(model.nv), q_try;
  KinematicsData kin_try;
  while (!within_tolerance(err) && result.iterations < o.max_iterations && lambda <= kLambdaMax) {
    ++result.iterations;
    // J over the selected dofs, the angular rows weighted.
    const Pose X_WF = kin.X_WB[static_cast<size_t>(target.body)] * target.X_BF;
    J.setZero();
    point_chain(kin, target.body, X_WF.p, chain);
    for (const auto& [d, col] : chain)
      if (const int c = column[static_cast<size_t>(d)]; c >= 0) J.col(c).head<3>() = col;
    angular_chain(kin, target.body, chain);
    for (const auto& [d, col] : chain)
      if (const int c = column[static_cast<size_t>(d)]; c >= 0) J.col(c).tail<3>() = w * col;
    Vec6 e;
    e << err.position, w * err.rotation;

    // (JᵀJ + λ² I) Δ = Jᵀ e over the dofs not held at a limit they would cross.
    std::fill(held.begin(), held.end(), 0);
    VecX delta = VecX::Zero(n);
    for (int pass = 0; pass <= n; ++pass) {
      std::vector<int> active;
      for (int i = 0; i < n; ++i)
        if (!held[static_cast<size_t>(i)]) active.push_back(i);
      delta.setZero();
      if (active.empty()) break;
      MatX Ja(6, static_cast<Eigen::Index>(active.size()));
      for (size_t k = 0; k < active.size(); ++k) Ja.col(static_cast<Eigen::Index>(k)) = J.col(active[k]);
      MatX H = Ja.transpose() * Ja;
      H.diagonal().array() += lambda * lambda;
      const VecX da = H.ldlt().solve(Ja.transpose() * e);
      for (size_t k = 0; k < active.size(); ++k) delta[active[k]] = da[static_cast<Eigen::Index>(k)];
      bool blocked = false;
      for (int i : active) {
        const DofLimits& l = limits[static_cast<size_t>(i)];
        if (l.qadr < 0) continue;
        const double qi = result.q[l.qadr];
        if ((qi <= l.lower && delta[i] < 0.0) || (qi >= l.upper && delta[i] > 0.0)) {
          held[static_cast<size_t>(i)] = 1;
          blocked = true;
        }
      }
      if (!blocked) break;
    }
    const double largest = delta.cwiseAbs().maxCoeff();
    if (largest > o.max_step) delta *= o.max_step / largest;

    q_try = result.q;
    for (int i = 0; i < n; ++i) step_v[dofs[static_cast<size_t>(i)]] = delta[i];
    integrate_q(model, q_try, step_v, 1.0);
    for (int i = 0; i < n; ++i) step_v[dofs[static_cast<size_t>(i)]] = 0.0;
    clamp_to_limits(limits, q_try);
    forward_kinematics(model, q_try, kin_try);
    const FrameError err_try = frame_error(kin_try, target, X_WT, w);
    if (err_try.cost < err.cost) {
      result.q = q_try;
      std::swap(kin, kin_try);
      err = err_try;
      lambda = std::max(lambda / 4.0, o.damping);
    } else {
      lambda *= 4.0;
    }
  }
  result.position_error = err.position.norm();
  result.rotation_error = err.rotation.norm();
  result.converged = within_tolerance(err);
  return result;
}

}  // namespace graspsim
