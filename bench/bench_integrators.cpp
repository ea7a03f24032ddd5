// Adaptive Dormand-Prince 5(4) (src/integrators) on two systems, one simulated second per
// iteration, at two tolerances (atol = rtol = 10^−arg):
//   tumbling  a rigid body on a free joint, torque-free about its unstable intermediate axis
//   bounce    a 0.5 kg ball (r 5 cm) dropped from 0.3 m onto a Kelvin-Voigt ground,
//             k = 1e6 N/m, damping ratio 0.1 (contact ~4.4 ms), penalty force in the callback
// Counters: derivative evaluations per simulated second, accepted and rejected steps.

#include <benchmark/benchmark.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "dynamics/dynamics.h"
#include "integrators/integrators.h"
#include "kinematics/kinematics.h"
#include "model/builder.h"

namespace {

using namespace graspsim;

constexpr double kSimulated = 1.0;  // s per iteration

std::shared_ptr<const Model> free_body(const Mat3& inertia, double mass, const Pose& pose, const Vec3& gravity) {
  ModelBuilder mb;
  BodyDef b;
  b.name = "body";
  b.joint.type = JointType::Free;
  b.mass = mass;
  b.inertia = inertia;
  b.com = Vec3::Zero();
  b.pose = pose;
  mb.add_body(b);
  mb.options().gravity = gravity;
  return mb.build();
}

// v̇ = M⁻¹ (τ − c), with τ from `force` (generalized, may be empty); scratch reused.
template <typename Force>
struct Dynamics {
  const Model* model;
  Force force;
  KinematicsData kin;
  MatX M;
  VecX bias, tau;
  Eigen::LLT<MatX> llt;
  Dynamics(const Model& m, Force f) : model(&m), force(f), M(m.nv, m.nv), bias(m.nv), tau(m.nv), llt(m.nv) {}
  void operator()(double, const VecX& q, const VecX& v, const VecX&, VecX& vdot, VecX&) {
    forward_kinematics(*model, q, kin);
    mass_matrix(*model, kin, M);
    bias_forces(*model, kin, v, bias);
    tau.setZero();
    force(q, v, tau);
    llt.compute(M);
    vdot = tau - bias;
    llt.solveInPlace(vdot);
  }
};

template <typename F>
void run(benchmark::State& st, const Model& m, const OdeState& x0, F& f) {
  Rk45Options o;
  o.atol = o.rtol = std::pow(10.0, -static_cast<double>(st.range(0)));
  DormandPrince45 rk(model_space(m), o);
  for (auto _ : st) {
    rk.reset(x0);
    rk.step_to(f, kSimulated);
    benchmark::DoNotOptimize(rk.state().q.data());
  }
  const Rk45Stats& s = rk.stats();  // of the last run: every run is the same, bit for bit
  st.counters["evals_per_sim_s"] = static_cast<double>(s.evaluations) / kSimulated;
  st.counters["accepted"] = static_cast<double>(s.accepted);
  st.counters["rejected"] = static_cast<double>(s.rejected);
  st.SetLabel("tol 1e-" + std::to_string(st.range(0)));
}

void BM_Rk45_Tumbling(benchmark::State& st) {
  auto m = free_body(Vec3(0.02, 0.05, 0.06).asDiagonal().toDenseMatrix(), 2.0,
                     {Vec3::Zero(), Quat(Eigen::AngleAxisd(0.7, Vec3(1, 2, 3).normalized()))}, Vec3::Zero());
  OdeState x0;
  x0.q = m->q0;
  x0.v.resize(6);
  x0.v << 0.1, 0.0, -0.2, 0.5, 3.0, 0.3;  // as in tests/integrators/rigid_body_test.cpp: turns over every ~4 s
  auto no_force = [](const VecX&, const VecX&, VecX&) {};
  Dynamics<decltype(no_force)> f(*m, no_force);
  run(st, *m, x0, f);
}
BENCHMARK(BM_Rk45_Tumbling)->Arg(6)->Arg(9);

void BM_Rk45_StiffBounce(benchmark::State& st) {
  constexpr double r = 0.05, mass = 0.5, k = 1e6, zeta = 0.1;
  const double c = 2.0 * zeta * std::sqrt(k * mass);
  auto m = free_body((0.4 * mass * r * r) * Mat3::Identity(), mass, {Vec3(0, 0, 0.3 + r), Quat::Identity()},
                     Vec3(0, 0, -9.81));
  OdeState x0;
  x0.q = m->q0;
  x0.v = VecX::Zero(6);
  // Free joint: q = [x y z qw qx qy qz], v[0..2] the world velocity of the centre.
  auto ground = [=](const VecX& q, const VecX& v, VecX& tau) {
    const double depth = r - q[2];
    if (depth > 0.0) tau[2] += std::max(0.0, k * depth - c * v[2]);  // pushes, never pulls
  };
  Dynamics<decltype(ground)> f(*m, ground);
  run(st, *m, x0, f);
}
BENCHMARK(BM_Rk45_StiffBounce)->Arg(6)->Arg(9);

}  // namespace

BENCHMARK_MAIN();
