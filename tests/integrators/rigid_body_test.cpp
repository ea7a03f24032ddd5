// The integrators on a model: a rigid body on a free joint tumbling torque-free (about
// its unstable intermediate axis). Its quaternion must stay unit, energy and angular
// momentum must be conserved to the tolerance, and the Runge-Kutta methods must keep
// their order on the rotation group (the Munthe-Kaas local coordinate).

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "integrators/integrators.h"
#include "kinematics/integrate.h"
#include "ode_systems.h"

namespace graspsim {
namespace {

const Vec3 kInertia(0.02, 0.05, 0.06);  // principal moments (kg·m²), com at the body origin

std::shared_ptr<const Model> body() {
  return test::tumbling_body(kInertia, Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized())));
}

// Mostly about the intermediate axis: the body turns over twice in 10 s (Dzhanibekov).
OdeState start(const Model& m) {
  VecX v(6);
  v << 0.1, 0.0, -0.2, 0.5, 3.0, 0.3;
  return test::ode_state(0.0, m.q0, v);
}

Quat orientation(const VecX& q) { return Quat(q[3], q[4], q[5], q[6]); }

// ½ ωᵀ I ω + ½ m |v|² and the world angular momentum R I ω (about the com).
double energy(const VecX& v) {
  return 0.5 * v.tail<3>().dot(kInertia.cwiseProduct(v.tail<3>())) + 0.5 * 2.0 * v.head<3>().squaredNorm();
}
Vec3 momentum(const VecX& q, const VecX& v) { return orientation(q) * kInertia.cwiseProduct(v.tail<3>()); }

// At tol 1e-10 over 10 s (350 steps), output every 0.05 s by dense output. Measured
// relative drifts 8e-11 (energy) and 3e-10 (angular momentum): about tol, as the errors
// of the steps mostly cancel; the bounds 1e-8 = 100·tol stay below the worst case of
// errors adding up (350·tol) and are exceeded at tol 1e-6 (4e-6, checked below). The
// quaternion is unit to rounding because q ⊕ u renormalises: measured 2.2e-16 (1 ulp),
// bound 1e-15. The centre moves at constant velocity: ≤ 4e-15 m measured, bound 1e-12.
TEST(RigidBodyRk45, TorqueFreeTumblingConservesEnergyMomentumAndUnitQuaternion) {
  auto m = body();
  const OdeState x0 = start(*m);
  const double E0 = energy(x0.v);
  const Vec3 L0 = momentum(x0.q, x0.v);
  for (double tol : {1e-10, 1e-6}) {
    test::RigidBodyDynamics dyn(*m);
    Rk45Options o;
    o.atol = o.rtol = tol;
    DormandPrince45 rk(model_space(*m), o);
    rk.reset(x0);
    OdeState out;
    double dE = 0, dL = 0, dq = 0, dp = 0, flips = 0, w_prev = x0.v[4];
    for (int k = 1; k <= 200; ++k) {
      const double t = 0.05 * k;
      rk.advance_to(dyn, t, out);
      dq = std::max(dq, std::abs(out.q.segment<4>(3).norm() - 1.0));
      dE = std::max(dE, std::abs(energy(out.v) - E0) / E0);
      dL = std::max(dL, (momentum(out.q, out.v) - L0).norm() / L0.norm());
      // Free flight of the origin (= com): p(t) = p0 + v0 t, v constant.
      dp = std::max(dp, (out.q.head<3>() - (x0.q.head<3>() + t * x0.v.head<3>())).norm());
      if (out.v[4] * w_prev < 0) ++flips;
      w_prev = out.v[4];
    }
    EXPECT_GE(flips, 2) << "the body must really tumble";
    EXPECT_LT(dq, 1e-15);
    if (tol == 1e-10) {
      EXPECT_LT(dE, 1e-8);
      EXPECT_LT(dL, 1e-8);
      EXPECT_LT(dp, 1e-12);
    } else {
      EXPECT_GT(std::max(dE, dL), 1e-8) << "the conservation bounds would not catch a 1e-6 tolerance";
    }
  }
}

// Distance between two states: the rotation and translation between the configurations
// plus the velocity difference.
double distance(const Model& m, const OdeState& a, const OdeState& b) {
  return difference_q(m, a.q, b.q).norm() + (a.v - b.v).norm();
}

// The "naive" space steps the local coordinate at u̇ = v, ignoring the dexp⁻¹ correction of
// local_rate: the Runge-Kutta stages are then only consistent to second order on SO(3).
ConfigSpace naive_space(const Model& m) {
  ConfigSpace s = model_space(m);
  s.local_rate_fn = [](const void*, const VecX&, const VecX& v, VecX& udot) { udot = v; };
  return s;
}

template <typename Step>
double error_after(const Model& m, const OdeState& ref, int N, double T, Step step) {
  OdeState x = start(m);
  test::RigidBodyDynamics dyn(m);
  for (int i = 0; i < N; ++i) step(dyn, x, T / N);
  return distance(m, x, ref);
}

// Orders of convergence on the rotation group under step halving over T = 1 s, against
// DP45 at tol 1e-13 (error ~2e-13, below the smallest error compared here, 1.3e-11). The
// body turns at |ω| ≈ 3 rad/s, so the lists start where hω ≤ 0.4 and the next error term
// moves the order by < 0.2 (measured: RK4 3.94–3.98, DP5 4.84–4.94, naive 2.00). The naive
// local coordinate drops RK4 to order 2, which shows the test tells the two apart.
TEST(RigidBodyRk45, RungeKuttaKeepsItsOrderOnTheRotationGroup) {
  auto m = body();
  constexpr double T = 1.0;
  OdeState ref;
  {
    test::RigidBodyDynamics dyn(*m);
    Rk45Options o;
    o.atol = o.rtol = 1e-13;
    DormandPrince45 rk(model_space(*m), o);
    rk.reset(start(*m));
    rk.step_to(dyn, T);
    ref = rk.state();
  }
  const std::vector<int> steps = {16, 32, 64, 128}, dp_steps = {8, 16, 32};
  std::vector<double> e_rk4, e_dp5, e_naive;
  for (int N : steps) {
    RungeKutta4 rk4(model_space(*m)), naive(naive_space(*m));
    e_rk4.push_back(error_after(*m, ref, N, T, [&](auto& f, OdeState& x, double h) { rk4.step(f, x, h); }));
    e_naive.push_back(error_after(*m, ref, N, T, [&](auto& f, OdeState& x, double h) { naive.step(f, x, h); }));
  }
  for (int N : dp_steps) {
    test::RigidBodyDynamics dyn(*m);
    Rk45Options o;
    o.atol = 1e10;
    o.rtol = 0;
    o.h_initial = T / N;
    o.max_factor = 1.0;
    DormandPrince45 dp(model_space(*m), o);
    dp.reset(start(*m));
    dp.step_to(dyn, T);
    EXPECT_EQ(dp.stats().accepted, N);
    e_dp5.push_back(distance(*m, dp.state(), ref));
  }
  for (size_t i = 1; i < steps.size(); ++i) {
    EXPECT_NEAR(std::log2(e_rk4[i - 1] / e_rk4[i]), 4.0, 0.2) << "N = " << steps[i];
    EXPECT_NEAR(std::log2(e_naive[i - 1] / e_naive[i]), 2.0, 0.2) << "N = " << steps[i];
  }
  for (size_t i = 1; i < dp_steps.size(); ++i)
    EXPECT_NEAR(std::log2(e_dp5[i - 1] / e_dp5[i]), 5.0, 0.2) << "N = " << dp_steps[i];
}

// Two identical runs on the model give identical bits.
TEST(RigidBodyRk45, IdenticalRunsGiveIdenticalBits) {
  auto m = body();
  std::vector<OdeState> finals;
  std::vector<Rk45Stats> stats;
  for (int run = 0; run < 2; ++run) {
    test::RigidBodyDynamics dyn(*m);
    Rk45Options o;
    o.atol = o.rtol = 1e-8;
    DormandPrince45 rk(model_space(*m), o);
    rk.reset(start(*m));
    OdeState out;
    rk.advance_to(dyn, 4.321, out);
    finals.push_back(out);
    stats.push_back(rk.stats());
  }
  EXPECT_EQ(std::memcmp(finals[0].q.data(), finals[1].q.data(), sizeof(double) * 7), 0);
  EXPECT_EQ(std::memcmp(finals[0].v.data(), finals[1].v.data(), sizeof(double) * 6), 0);
  EXPECT_EQ(stats[0].evaluations, stats[1].evaluations);
  EXPECT_EQ(stats[0].accepted, stats[1].accepted);
  EXPECT_EQ(stats[0].h_last, stats[1].h_last);
}

}  // namespace
}  // namespace graspsim
