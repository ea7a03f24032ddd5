// Fixed-step integrators: semi-implicit Euler and classical RK4 (Munthe-Kaas stages).

#include "integrators/integrators.h"

namespace graspsim {

void SemiImplicitEuler::step(DerivativeRef f, OdeState& x, double h) {
  vdot_.resize(space_.nv);  // no-ops after the first step
  zdot_.resize(x.z.size());
  f(x.t, x.q, x.v, x.z, vdot_, zdot_);
  ++evaluations_;
  x.v += h * vdot_;
  x.z += h * zdot_;
  space_.integrate(x.q, x.v, h);  // with the new v: the symplectic variant
  x.t += h;
}

void RungeKutta4::step(DerivativeRef f, OdeState& x, double h) {
  static constexpr double kC[4] = {0.0, 0.5, 0.5, 1.0};
  static constexpr double kW[4] = {1.0, 2.0, 2.0, 1.0};
  const int nv = space_.nv;
  const auto nz = x.z.size();
  for (VecX* s : {&u_, &v_s_, &ku_, &kv_, &ku_sum_, &kv_sum_}) s->resize(nv);
  for (VecX* s : {&z_s_, &kz_, &kz_sum_}) s->resize(nz);
  ku_sum_.setZero();
  kv_sum_.setZero();
  kz_sum_.setZero();
  for (int i = 0; i < 4; ++i) {
    const double a = kC[i] * h;  // classical RK4 only looks back one stage: a_i,i−1 = c_i
    if (i == 0) {
      u_.setZero();
      q_s_ = x.q;
      v_s_ = x.v;
      z_s_ = x.z;
    } else {
      u_ = a * ku_;
      q_s_ = x.q;
      space_.integrate(q_s_, u_, 1.0);
      v_s_ = x.v + a * kv_;
      z_s_ = x.z + a * kz_;
    }
    f(x.t + a, q_s_, v_s_, z_s_, kv_, kz_);
    ++evaluations_;
    space_.local_rate(u_, v_s_, ku_);
    ku_sum_ += kW[i] * ku_;
    kv_sum_ += kW[i] * kv_;
    kz_sum_ += kW[i] * kz_;
  }
  space_.integrate(x.q, ku_sum_, h / 6.0);
  x.v += (h / 6.0) * kv_sum_;
  x.z += (h / 6.0) * kz_sum_;
  x.t += h;
}

}  // namespace graspsim
