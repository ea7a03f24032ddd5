// Adaptive Dormand-Prince 5(4) on ODEs with known solutions: order of the 5th-order
// solution and of the dense output, tolerance met over many periods, FSAL evaluation
// counts, rejections, the step size through a stiff contact, the minimum step, determinism.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.h"
#include "integrators/integrators.h"
#include "ode_systems.h"

namespace graspsim {
namespace {

Rk45Options tolerances(double tol) {
  Rk45Options o;
  o.atol = o.rtol = tol;
  return o;
}

// Steps of exactly h: an error bound no step can miss and no growth.
Rk45Options fixed_steps(double h) {
  Rk45Options o;
  o.atol = 1e10;
  o.rtol = 0.0;
  o.h_initial = h;
  o.max_factor = 1.0;
  return o;
}

OdeState oscillator_start() { return test::ode_state(0.0, test::vec({1.0}), test::vec({0.0})); }

std::vector<double> orders(const std::vector<double>& errors) {
  std::vector<double> p;
  for (size_t i = 1; i < errors.size(); ++i) p.push_back(std::log2(errors[i - 1] / errors[i]));
  return p;
}

// The 5th-order solution (local extrapolation) converges at order 5. As for RK4, the step
// lists start at hω ≤ 0.2 (hλ = 0.075 for the decay), where the next error term moves the
// order by < 0.15 (measured 5.02–5.09); the errors stay ≥ 1e-13, far above rounding.
TEST(DormandPrince45, FifthOrderWithFixedSteps) {
  constexpr double T = 2.0;
  std::vector<double> e_osc, e_decay;
  for (int N : {10, 20, 40, 80}) {
    test::Oscillator osc;
    DormandPrince45 rk(euclidean_space(1), fixed_steps(T / N));
    rk.reset(oscillator_start());
    rk.step_to(osc, T);
    EXPECT_EQ(rk.stats().accepted, N);
    EXPECT_EQ(rk.stats().rejected, 0);
    e_osc.push_back(std::max(std::abs(rk.state().q[0] - osc.q(1, 0, T)), std::abs(rk.state().v[0] - osc.v(1, 0, T))));
  }
  for (int N : {40, 80, 160}) {
    test::Decay decay;
    decay.lambda = 1.5;
    DormandPrince45 rz(euclidean_space(0), fixed_steps(T / N));
    rz.reset(test::ode_state(0.0, VecX(), VecX(), test::vec({2.0})));
    rz.step_to(decay, T);
    e_decay.push_back(std::abs(rz.state().z[0] - decay.exact(2.0, T)));
  }
  for (const auto& e : {e_osc, e_decay})
    for (double p : orders(e)) EXPECT_NEAR(p, 5.0, 0.15);
}

// The continuous extension is 4th order: from the exact state, its error inside one step
// is O(h⁵). At θ = 0.37 (no symmetry point) halving h divides it by ~2⁵ (measured
// 2^4.93–2^4.99); > 2^4.5 fails a 3rd-order interpolant (a cubic Hermite: 2⁴).
TEST(DormandPrince45, DenseOutputIsFourthOrderInsideAStep) {
  std::vector<double> e;
  for (double h : {0.4, 0.2, 0.1, 0.05}) {
    test::Oscillator osc;
    DormandPrince45 rk(euclidean_space(1), fixed_steps(h));
    rk.reset(oscillator_start());
    rk.step(osc);
    OdeState out;
    const double t = 0.37 * h;
    rk.interpolate(t, out);
    e.push_back(std::max(std::abs(out.q[0] - osc.q(1, 0, t)), std::abs(out.v[0] - osc.v(1, 0, t))));
  }
  for (double p : orders(e)) EXPECT_GT(p, 4.5);
}

struct OscillatorRun {
  double max_error = 0.0;   // over the output times, |Δq| and |Δv|/ω (amplitude 1)
  int inside_steps = 0;     // output times strictly inside a step (interpolated)
  Rk45Stats stats;
};

// 10 periods of ω = 2π, output every 0.0137 s (off any step grid) by dense output.
OscillatorRun run_oscillator(double tol) {
  test::Oscillator osc;
  osc.omega = 2.0 * M_PI;
  DormandPrince45 rk(euclidean_space(1), tolerances(tol));
  rk.reset(oscillator_start());
  OscillatorRun r;
  OdeState out;
  for (int k = 1; 0.0137 * k <= 10.0; ++k) {
    const double t = 0.0137 * k;
    rk.advance_to(osc, t, out);
    if (t > rk.t_previous() && t < rk.t()) ++r.inside_steps;
    r.max_error = std::max({r.max_error, std::abs(out.q[0] - osc.q(1, 0, t)),
                            std::abs(out.v[0] - osc.v(1, 0, t)) / osc.omega});
  }
  r.stats = rk.stats();
  return r;
}

// The control bounds the local error per step by ~tol; over P periods the global error
// grows about linearly, so it must stay within a small factor of tol·P. Measured: 1.8, 1.6
// and 1.5 × tol·P at 1e-5, 1e-7, 1e-9 (and the same at the steps' own end points, so dense
// output adds nothing visible); the bound 5·tol·P leaves ~3× margin, while a control off
// by a factor 10 in tolerance (or a wrong error estimate) exceeds it.
TEST(DormandPrince45, MeetsToleranceOnOscillatorOverPeriods) {
  constexpr double periods = 10.0;
  double previous = 1.0;
  for (double tol : {1e-5, 1e-7, 1e-9}) {
    const OscillatorRun r = run_oscillator(tol);
    EXPECT_LT(r.max_error, 5.0 * tol * periods) << "tol " << tol;
    EXPECT_LT(r.max_error, 0.1 * previous) << "the error must follow the tolerance";  // two decades each
    previous = r.max_error;
    // Dense output was really used: most outputs fall strictly inside steps.
    EXPECT_GT(r.inside_steps, 600) << "of 729 output times";
    EXPECT_GT(r.stats.accepted, 10);
  }
}

// Asking for outputs must not change the steps: the same internal steps, bit for bit.
TEST(DormandPrince45, OutputTimesDoNotChangeTheSteps) {
  test::Oscillator osc;
  osc.omega = 2.0 * M_PI;
  DormandPrince45 a(euclidean_space(1), tolerances(1e-8)), b(euclidean_space(1), tolerances(1e-8));
  a.reset(oscillator_start());
  b.reset(oscillator_start());
  OdeState out_a, out_b;
  a.advance_to(osc, 3.0, out_a);
  for (double t = 0.01; t < 3.0; t += 0.01) b.advance_to(osc, t, out_b);
  b.advance_to(osc, 3.0, out_b);
  EXPECT_EQ(a.stats().accepted, b.stats().accepted);
  EXPECT_EQ(a.t(), b.t());
  EXPECT_EQ(a.state().q[0], b.state().q[0]);
  EXPECT_EQ(a.state().v[0], b.state().v[0]);
  EXPECT_EQ(out_a.q[0], out_b.q[0]);
}

// First same as last: each attempt (accepted or rejected) costs 6 evaluations, plus the
// first step's stage 1 and, for a guessed initial step, one more. A first step of 0.5 s on
// ω = 2π at tol 1e-8 must be rejected. The callback counts its own calls.
TEST(DormandPrince45, FsalSixEvaluationsPerAttemptAndRejectionsCounted) {
  for (bool guess : {false, true}) {
    test::Oscillator osc;
    osc.omega = 2.0 * M_PI;
    Rk45Options o = tolerances(1e-8);
    if (!guess) o.h_initial = 0.5;
    DormandPrince45 rk(euclidean_space(1), o);
    rk.reset(oscillator_start());
    int steps = 0;
    while (rk.t() < 5.0 && steps < 100000) {
      rk.step(osc);
      ++steps;
    }
    const Rk45Stats& s = rk.stats();
    EXPECT_EQ(s.accepted, steps);
    if (!guess) {
      EXPECT_GE(s.rejected, 1);
    }
    EXPECT_EQ(osc.calls, s.evaluations);
    EXPECT_EQ(s.evaluations, (guess ? 2 : 1) + 6 * (s.accepted + s.rejected));
  }
}

// A stage the dynamics cannot evaluate (DivergenceError: the forward dynamics met a state it
// cannot use, e.g. a mass matrix that is not positive definite) rejects the step, which is
// retried smaller, instead of ending the run. Here the oscillator's dynamics refuse stages
// beyond |q| = 1.05 while the solution stays within 1; a first step of 1.5 s overshoots.
// Found by scripts/message-census (a penalty grasp's first step, exit 1 before).
TEST(DormandPrince45, AStageTheDynamicsRefuseIsARejectedStep) {
  test::Oscillator osc;
  auto refusing = [&](double t, const VecX& q, const VecX& v, const VecX& z, VecX& vdot, VecX& zdot) {
    if (std::abs(q[0]) > 1.05) throw DivergenceError("dynamics: not here");
    osc(t, q, v, z, vdot, zdot);
  };
  Rk45Options o = tolerances(1e-8);
  o.h_initial = 1.5;
  DormandPrince45 rk(euclidean_space(1), o);
  rk.reset(oscillator_start());
  while (rk.t() < 3.0) rk.step(refusing, 3.0);
  EXPECT_GE(rk.stats().rejected, 1);
  EXPECT_NEAR(rk.state().q[0], osc.q(1.0, 0.0, 3.0), 1e-6);
  // A stage that stays refused down to the minimum step is a divergence for the caller.
  auto never = [](double, const VecX&, const VecX&, const VecX&, VecX&, VecX&) { throw DivergenceError("never"); };
  DormandPrince45 stuck(euclidean_space(1), tolerances(1e-8));
  stuck.reset(oscillator_start());
  EXPECT_THROW(stuck.step(never, 1.0), DivergenceError);
}

struct StepRecord {
  double t0, t1, q0, q1;
};

// Drops the unit mass from 0.2 m onto a k = 1e5 N/m ground (contact ~10 ms) and records
// the accepted steps up to t_end.
std::vector<StepRecord> bounce(double tol, double t_end, DormandPrince45* out = nullptr) {
  const test::BouncingMass ground = test::kelvin_voigt_ground(1e5, 0.1);
  DormandPrince45 rk(euclidean_space(1), tolerances(tol));
  rk.reset(test::ode_state(0.0, test::vec({0.2}), test::vec({0.0})));
  std::vector<StepRecord> steps;
  while (rk.t() < t_end && steps.size() < 100000) {  // bounded, so a broken control fails instead of hanging
    const double t0 = rk.t(), q0 = rk.state().q[0];
    rk.step(ground, t_end);
    steps.push_back({t0, rk.t(), q0, rk.state().q[0]});
  }
  if (out) *out = rk;
  return steps;
}

// Free flight is a parabola, which the 5th-order method integrates exactly, so the step
// grows by max_factor per step; in contact the step resolves the ~316 rad/s oscillation.
// Measured at tol 1e-6: ≤ 1.8 ms for steps touching the contact (most are far shorter),
// 62 ms before it and 150 ms in the flight after it; 10× apart is asked.
TEST(DormandPrince45, StepShrinksInStiffContactAndGrowsInFreeFlight) {
  DormandPrince45 rk(euclidean_space(1));
  const std::vector<StepRecord> steps = bounce(1e-6, 0.6, &rk);
  const double t_touch = std::sqrt(2 * 0.2 / 9.81);  // first touchdown at 0.202 s
  double h_before = 0, h_contact = 0, h_after = 0;
  for (const StepRecord& s : steps) {
    const double h = s.t1 - s.t0;
    const bool contact = s.q0 < 0 || s.q1 < 0;  // a step that ends or starts in the ground
    if (contact)
      h_contact = std::max(h_contact, h);
    else if (s.t1 <= t_touch)
      h_before = std::max(h_before, h);
    else
      h_after = std::max(h_after, h);  // flight after the first bounce
  }
  ASSERT_GT(h_contact, 0.0) << "the mass never touched the ground";
  EXPECT_LT(10 * h_contact, h_before);
  EXPECT_LT(10 * h_contact, h_after);
  // The force jumps at touchdown: the control finds it by rejecting steps.
  EXPECT_GT(rk.stats().rejected, 0);
}

// The stiff bounce is still integrated to tolerance: against a run at 1e-12, the state at
// 0.6 s (after two touchdowns) at tol 1e-7. Measured 2.5e-6 m and 2.9e-5 m/s; the bounds
// 1e-4 m and 1e-3 m/s (~35× margin) fail a fixed 1 ms RK4 (5e-4 m, 3.8e-2 m/s off: the
// force's jump at touchdown costs a fixed step its order).
TEST(DormandPrince45, StiffBounceMatchesTightReference) {
  DormandPrince45 coarse(euclidean_space(1)), fine(euclidean_space(1));
  bounce(1e-7, 0.6, &coarse);
  bounce(1e-12, 0.6, &fine);
  EXPECT_NEAR(coarse.state().q[0], fine.state().q[0], 1e-4);
  EXPECT_NEAR(coarse.state().v[0], fine.state().v[0], 1e-3);
}

// Determinism: the same run twice gives the same bits (no hidden state, no threads).
TEST(DormandPrince45, IdenticalRunsGiveIdenticalBits) {
  DormandPrince45 a(euclidean_space(1)), b(euclidean_space(1));
  const auto sa = bounce(1e-6, 0.6, &a), sb = bounce(1e-6, 0.6, &b);
  ASSERT_EQ(sa.size(), sb.size());
  EXPECT_EQ(std::memcmp(sa.data(), sb.data(), sa.size() * sizeof(StepRecord)), 0);
  EXPECT_EQ(std::memcmp(a.state().q.data(), b.state().q.data(), sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(a.state().v.data(), b.state().v.data(), sizeof(double)), 0);
  EXPECT_EQ(a.stats().evaluations, b.stats().evaluations);
  EXPECT_EQ(a.stats().rejected, b.stats().rejected);
}

// ż = z² from z(0) = 1 blows up at t = 1: the step must shrink below h_min before it, and
// the error names the time.
TEST(DormandPrince45, ThrowsNamingTheTimeBelowTheMinimumStep) {
  const auto blowup = [](double, const VecX&, const VecX&, const VecX& z, VecX&, VecX& zdot) { zdot = z.cwiseAbs2(); };
  Rk45Options o = tolerances(1e-8);
  o.h_min = 1e-9;
  DormandPrince45 rk(euclidean_space(0), o);
  rk.reset(test::ode_state(0.0, VecX(), VecX(), test::vec({1.0})));
  try {
    rk.step_to(blowup, 2.0);
    FAIL() << "no exception; reached t = " << rk.t();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    const auto at = msg.find("at t = ");
    ASSERT_NE(at, std::string::npos) << msg;
    EXPECT_NE(msg.find("minimum"), std::string::npos) << msg;
    const double t = std::strtod(msg.c_str() + at + 7, nullptr);
    EXPECT_EQ(t, rk.t()) << msg;  // the time of the last accepted state, printed with 17 digits
    EXPECT_LT(t, 1.0);
    EXPECT_GT(t, 1.0 - 1e-4) << msg;  // the step only gets that small next to the singularity
  }
}

TEST(DormandPrince45, StepLandsOnTMaxAndRespectsHMax) {
  test::Oscillator osc;
  Rk45Options o = tolerances(1e-6);
  o.h_max = 0.05;
  DormandPrince45 rk(euclidean_space(1), o);
  rk.reset(oscillator_start());
  const double t_end = 1.234567;
  for (int n = 0; rk.t() < t_end && n < 1000; ++n) {
    rk.step(osc, t_end);
    EXPECT_LE(rk.t(), t_end);
    EXPECT_LE(rk.stats().h_last, 0.05 * 1.01);  // a landing step may stretch by 1 %
  }
  EXPECT_EQ(rk.t(), t_end);
  EXPECT_THROW(rk.step(osc, t_end), std::invalid_argument);
}

// A tolerance the step budget cannot meet throws instead of running on.
TEST(DormandPrince45, ThrowsAfterMaxStepsInOneCall) {
  test::Oscillator osc;
  Rk45Options o = tolerances(1e-10);
  o.max_steps = 50;  // 10 s of this oscillator at 1e-10 takes ~1700 steps
  DormandPrince45 rk(euclidean_space(1), o);
  rk.reset(oscillator_start());
  OdeState out;
  EXPECT_THROW(rk.advance_to(osc, 10.0, out), std::runtime_error);
  EXPECT_EQ(rk.stats().accepted, 50);
  rk.reset(oscillator_start());
  EXPECT_THROW(rk.step_to(osc, 10.0), std::runtime_error);
  rk.reset(oscillator_start());
  EXPECT_NO_THROW(rk.step_to(osc, 0.1));  // a call within the budget
  EXPECT_EQ(rk.t(), 0.1);
}

TEST(DormandPrince45, RejectsBadOptionsAndOutOfRangeQueries) {
  const auto bad = [](auto edit) {
    Rk45Options o;
    edit(o);
    return o;
  };
  EXPECT_THROW(DormandPrince45(euclidean_space(1), bad([](Rk45Options& o) { o.atol = 0; })), std::invalid_argument);
  EXPECT_THROW(DormandPrince45(euclidean_space(1), bad([](Rk45Options& o) { o.min_factor = 0; })),
               std::invalid_argument);
  EXPECT_THROW(DormandPrince45(euclidean_space(1), bad([](Rk45Options& o) { o.max_factor = 0.5; })),
               std::invalid_argument);
  EXPECT_THROW(DormandPrince45(euclidean_space(1), bad([](Rk45Options& o) { o.h_max = 0; })), std::invalid_argument);

  test::Oscillator osc;
  DormandPrince45 rk(euclidean_space(1));
  EXPECT_THROW(rk.reset(test::ode_state(0.0, test::vec({1.0, 2.0}), test::vec({0.0}))), std::invalid_argument);
  rk.reset(oscillator_start());
  OdeState out;
  EXPECT_THROW(rk.interpolate(0.5, out), std::out_of_range);  // no step yet
  rk.step(osc);
  EXPECT_NO_THROW(rk.interpolate(0.5 * rk.t(), out));
  EXPECT_THROW(rk.interpolate(1.5 * rk.t(), out), std::out_of_range);
  rk.step(osc);
  EXPECT_THROW(rk.advance_to(osc, 0.5 * rk.t_previous(), out), std::invalid_argument);  // before the last step
}

}  // namespace
}  // namespace graspsim
