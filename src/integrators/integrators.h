#pragma once
// Time integrators for x = (q, v, z) with q̇ = v (through the configuration space),
// v̇ and ż from a derivative callback (config_space.h):
//   SemiImplicitEuler   fixed step, symplectic for the mechanical part
//   RungeKutta4         fixed step, classical RK4
//   DormandPrince45     adaptive 5(4) pair with FSAL and 4th-order dense output
// The Runge-Kutta methods take their stages in the local coordinate u of q = q0 ⊕ u
// (Munthe-Kaas), so quaternions stay unit and the methods keep their order on the group.
// Each integrator owns its scratch, sized on the first step: a steady step allocates
// nothing. One integrator object per thread.

#include <array>
#include <cstdint>
#include <limits>

#include "integrators/config_space.h"

namespace graspsim {

// v ← v + h v̇(t, q, v, z); z ← z + h ż; q ← q ⊕ h v (the new v: symplectic for the
// mechanical part, explicit Euler for z). First order; one evaluation per step.
class SemiImplicitEuler {
 public:
  explicit SemiImplicitEuler(ConfigSpace space) : space_(space) {}
  void step(DerivativeRef f, OdeState& x, double h);
  std::int64_t evaluations() const { return evaluations_; }

 private:
  ConfigSpace space_;
  VecX vdot_, zdot_;
  std::int64_t evaluations_ = 0;
};

// Classical RK4 (stages in the local coordinate of q). Fourth order; four evaluations.
class RungeKutta4 {
 public:
  explicit RungeKutta4(ConfigSpace space) : space_(space) {}
  void step(DerivativeRef f, OdeState& x, double h);
  std::int64_t evaluations() const { return evaluations_; }

 private:
  ConfigSpace space_;
  VecX u_, q_s_, v_s_, z_s_;            // stage point
  VecX ku_, kv_, kz_;                   // stage rates
  VecX ku_sum_, kv_sum_, kz_sum_;       // weighted sums of the rates
  std::int64_t evaluations_ = 0;
};

struct Rk45Options {
  // Error per step, per component i: |e_i| ≤ atol + rtol · max(|y_i(t)|, |y_i(t + h)|),
  // as an RMS over all components (Hairer, Nørsett & Wanner I, II.4). The components are v,
  // z and the local coordinate u of q, for which y(t) = 0 and y(t + h) is the step's
  // displacement: positions are measured from an arbitrary origin, so a relative
  // tolerance on |q| would loosen the control far from it; atol is the position (m) and
  // angle (rad) tolerance.
  double atol = 1e-6;             // > 0
  double rtol = 1e-6;             // ≥ 0
  double safety = 0.9;            // the new step is safety · h · err^(−1/5) ...
  double min_factor = 0.2;        // ... but at least min_factor · h (0 < min_factor ≤ 1)
  double max_factor = 5.0;        // ... and at most max_factor · h (≥ 1; none after a rejection)
  double h_initial = 0.0;         // first step (s); 0 = guessed from the derivatives (HNW II.4)
  double h_min = 1e-12;           // the control asking for less throws (s); a step landing on t_max may be shorter
  double h_max = std::numeric_limits<double>::infinity();  // s
  // advance_to and step_to throw after this many steps in one call: a runaway (a tolerance
  // too tight for the system, or a system too stiff for an explicit method) fails loudly.
  std::int64_t max_steps = 100000;
};

struct Rk45Stats {
  std::int64_t accepted = 0;      // steps
  std::int64_t rejected = 0;      // attempts thrown away (their evaluations still count)
  std::int64_t evaluations = 0;   // derivative calls, including the initial-step guess
  double h_last = 0.0;            // size of the last accepted step (s)
};

// Adaptive Dormand-Prince 5(4) with local extrapolation (advances the 5th-order
// solution), the embedded 4th-order solution for the error estimate, first-same-as-last
// (the 7th stage is the next step's 1st: 6 evaluations per attempt) and Dormand-Prince's
// 4th-order continuous extension for output at any time inside the last step.
//
//   DormandPrince45 rk(model_space(model), options);
//   rk.reset(x0);
//   for (double t : output_times) rk.advance_to(f, t, out);   // internal steps, interpolated
//   rk.step_to(f, t_end);                                      // or: land exactly on t_end
//
// The callback must be the same function from reset() on (the last stage is reused);
// after changing the system or the state (an impulse, an event), call reset().
class DormandPrince45 {
 public:
  explicit DormandPrince45(ConfigSpace space, const Rk45Options& options = {});  // throws std::invalid_argument

  // Starts at x (sizes: space.nq, space.nv, any nz); forgets the step size, the reused
  // last stage and the counts. Sizes the scratch (the only allocation).
  void reset(const OdeState& x);
  // The same, continuing with a step size a previous run of the control proposed (h_next()),
  // so an integration split into calls (a stepper's output intervals) keeps its steps.
  // h = 0: guess one as reset(x) does. Throws std::invalid_argument for h < 0 or NaN.
  void reset(const OdeState& x, double h);

  // One accepted step (after any rejected attempts), not past t_max (a step ending within
  // 1 % of t_max is stretched to land on it exactly). Throws std::runtime_error naming the
  // time when the step-size control asks for a step below h_min.
  void step(DerivativeRef f, double t_max = std::numeric_limits<double>::infinity());

  // Steps until t() ≥ t_out (steps are not shortened to meet t_out), then writes the
  // solution at t_out into out by dense output. t_out must not precede the last step.
  void advance_to(DerivativeRef f, double t_out, OdeState& out);

  // Steps until t() == t_end exactly (the last step shortened, or stretched by ≤ 1 %).
  void step_to(DerivativeRef f, double t_end);

  // The solution at t in [t_previous(), t()] (the last accepted step): 4th order, q as
  // q_prev ⊕ u(t), so quaternions stay unit. Exactly state() at t == t().
  void interpolate(double t, OdeState& out) const;

  const OdeState& state() const { return x_; }
  double t() const { return x_.t; }
  double t_previous() const { return x_prev_.t; }
  double h_next() const { return h_; }            // proposed size of the next step; 0 before the first
  const Rk45Stats& stats() const { return stats_; }
  const Rk45Options& options() const { return opt_; }

 private:
  static constexpr int kStages = 7;
  void guess_initial_step(DerivativeRef f);
  void attempt(DerivativeRef f, double h, double t_new);  // stages 2..7, the 7th at the candidate x_new_
  double error_norm(double h) const;
  [[noreturn]] void throw_runaway(const char* call, double t_start, double t_target) const;

  ConfigSpace space_;
  Rk45Options opt_;
  OdeState x_, x_prev_, x_new_;                   // now, start of the last step, candidate
  std::array<VecX, kStages> ku_, kv_, kz_;        // stage rates of u, v and z
  VecX u_, q_s_, v_s_, z_s_;                      // stage point (u_ ends as the step's u)
  mutable VecX u_out_;                            // interpolate's scratch (so it can be const)
  double h_ = 0.0;
  bool k1_valid_ = false;      // kv_[0], kz_[0] hold f at x_
  bool fsal_pending_ = false;  // kv_[6], kz_[6] hold f at x_ (moved to stage 1 when the next step starts,
                               // so the last step's stages stay intact for dense output until then)
  bool dense_valid_ = false;
  Rk45Stats stats_;
};

}  // namespace graspsim
