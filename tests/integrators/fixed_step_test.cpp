// Semi-implicit Euler and RK4 on ODEs with known solutions: the measured order of
// convergence under step halving is the method's order.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "integrators/integrators.h"
#include "ode_systems.h"

namespace graspsim {
namespace {

// Integrates from (q0, v0) or z0 over [0, T] in N fixed steps; returns the final state.
template <typename Method, typename F>
OdeState run_fixed(Method& method, F& f, OdeState x, double T, int N) {
  for (int i = 0; i < N; ++i) method.step(f, x, T / N);
  return x;
}

// log2 of the ratios of errors at successive halvings.
std::vector<double> orders(const std::vector<double>& errors) {
  std::vector<double> p;
  for (size_t i = 1; i < errors.size(); ++i) p.push_back(std::log2(errors[i - 1] / errors[i]));
  return p;
}

constexpr double kT = 2.0;  // not a multiple of the period: no error term vanishes by symmetry

double oscillator_error(const OdeState& x, const test::Oscillator& osc) {
  return std::max(std::abs(x.q[0] - osc.q(1.0, 0.0, kT)), std::abs(x.v[0] - osc.v(1.0, 0.0, kT)));
}

template <typename Method>
std::vector<double> oscillator_errors(const std::vector<int>& steps) {
  std::vector<double> e;
  for (int N : steps) {
    test::Oscillator osc;
    Method method(euclidean_space(1));
    const OdeState x = run_fixed(method, osc, test::ode_state(0.0, test::vec({1.0}), test::vec({0.0})), kT, N);
    EXPECT_EQ(osc.calls, method.evaluations());
    EXPECT_NEAR(x.t, kT, 1e-13);
    e.push_back(oscillator_error(x, osc));
  }
  return e;
}

template <typename Method>
std::vector<double> decay_errors(const std::vector<int>& steps) {
  std::vector<double> e;
  for (int N : steps) {
    test::Decay decay;
    decay.lambda = 1.5;
    Method method(euclidean_space(0));
    const OdeState x = run_fixed(method, decay, test::ode_state(0.0, VecX(), VecX(), test::vec({2.0})), kT, N);
    e.push_back(std::abs(x.z[0] - decay.exact(2.0, kT)));
  }
  return e;
}

// Once h is small the error is C h^p (1 + O(hω)), so each halving divides it by 2^p up to
// the next term. The step lists start at hω ≤ 0.1 (ω = 1 for the oscillator, λ = 1.5 for
// the decay), where that term moves the measured order by less than 0.1; the measured
// orders are within 0.05 of p (RK4's errors stay above 1e-11, far from rounding).
TEST(SemiImplicitEuler, FirstOrderOnOscillatorAndDecay) {
  for (const auto& e : {oscillator_errors<SemiImplicitEuler>({100, 200, 400, 800, 1600}),
                        decay_errors<SemiImplicitEuler>({100, 200, 400, 800, 1600})})
    for (double p : orders(e)) EXPECT_NEAR(p, 1.0, 0.1);
}

TEST(RungeKutta4, FourthOrderOnOscillatorAndDecay) {
  for (const auto& e : {oscillator_errors<RungeKutta4>({20, 40, 80, 160}),
                        decay_errors<RungeKutta4>({40, 80, 160, 320})})
    for (double p : orders(e)) EXPECT_NEAR(p, 4.0, 0.1);
}

// Semi-implicit Euler is symplectic: on the oscillator its energy error stays bounded
// (O(h), no drift) over many periods, where explicit Euler's grows as e^(h ω² t).
TEST(SemiImplicitEuler, EnergyBoundedOverManyPeriods) {
  test::Oscillator osc;
  SemiImplicitEuler euler(euclidean_space(1));
  OdeState x = test::ode_state(0.0, test::vec({1.0}), test::vec({0.0}));
  const double h = 0.01;
  double worst = 0.0;
  for (int i = 0; i < 100000; ++i) {  // ~160 periods
    euler.step(osc, x, h);
    worst = std::max(worst, std::abs(0.5 * (x.q[0] * x.q[0] + x.v[0] * x.v[0]) - 0.5));
  }
  // A modified energy H ± (h/2) q v is conserved exactly, so |H − H0| ≤ (h/2)·max|q v| ≈
  // h/4 (+ O(h²)); 0.3 h leaves room for the O(h²). Explicit Euler would end at H ≈ e¹⁰ H0.
  EXPECT_LT(worst, 0.3 * h);
  EXPECT_GT(worst, 0.2 * h);  // and the bound is not vacuous: the O(h) oscillation is there
}

}  // namespace
}  // namespace graspsim
