// Adaptive Dormand-Prince 5(4): Dormand & Prince (1980); the step-size control, the
// initial step guess and the dense output follow Hairer, Nørsett & Wanner, Solving ODEs I,
// II.4-II.6, and their code DOPRI5.

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "core/error.h"
#include "integrators/integrators.h"

namespace graspsim {
namespace {

constexpr int kS = 7;
constexpr double kC[kS] = {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0};
constexpr double kA[kS][kS - 1] = {
    {},
    {1.0 / 5.0},
    {3.0 / 40.0, 9.0 / 40.0},
    {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0},
    {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0},
    {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0},
    // the 5th-order weights b: the last stage is evaluated at the new point (FSAL)
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}};
// b − b̂ (b̂ the embedded 4th-order weights): the error estimate is h Σ e_j k_j.
constexpr double kE[kS] = {71.0 / 57600.0,    0.0,           -71.0 / 16695.0, 71.0 / 1920.0,
                           -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};
// The 4th-order continuous extension (DOPRI5's contd5): y(t0 + θh) = y0 + h Σ b_j(θ) k_j with
// b_j(θ) = θ²(3 − 2θ) b_j + θ(1 − θ)² δ_j1 − θ²(1 − θ) δ_j7 + θ²(1 − θ)² d_j.
constexpr double kD[kS] = {-12715105075.0 / 11282082432.0, 0.0,
                           87487479700.0 / 32700410799.0,   -10690763975.0 / 1880347072.0,
                           701980252875.0 / 199316789632.0, -1453857185.0 / 822651844.0,
                           69997945.0 / 29380423.0};

double weight_b(int j) { return j < kS - 1 ? kA[kS - 1][j] : 0.0; }

void dense_weights(double th, double (&w)[kS]) {
  const double th1 = 1.0 - th, poly = th * th * (3.0 - 2.0 * th), mid = th * th * th1 * th1;
  for (int j = 0; j < kS; ++j) w[j] = poly * weight_b(j) + mid * kD[j];
  w[0] += th * th1 * th1;
  w[kS - 1] -= th * th * th1;
}

// y ← y0 + h Σ w_j k_j (y already holds y0 or zero).
void add_stages(VecX& y, const std::array<VecX, kS>& k, const double* w, int n, double h) {
  for (int j = 0; j < n; ++j)
    if (w[j] != 0.0) y += (h * w[j]) * k[j];
}

void swap_states(OdeState& a, OdeState& b) {  // O(1): swaps the vectors' buffers
  std::swap(a.t, b.t);
  a.q.swap(b.q);
  a.v.swap(b.v);
  a.z.swap(b.z);
}

// Σ (x_i / (atol + rtol |y_i|))² over i.
double sum_sq_scaled(const VecX& x, const VecX* y, double atol, double rtol) {
  double s = 0.0;
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double sc = atol + rtol * (y ? std::abs((*y)[i]) : 0.0);
    s += (x[i] / sc) * (x[i] / sc);
  }
  return s;
}

}  // namespace

DormandPrince45::DormandPrince45(ConfigSpace space, const Rk45Options& options) : space_(space), opt_(options) {
  const Rk45Options& o = opt_;
  if (!(o.atol > 0.0) || !(o.rtol >= 0.0) || !(o.safety > 0.0 && o.safety <= 1.0) ||
      !(o.min_factor > 0.0 && o.min_factor <= 1.0) || !(o.max_factor >= 1.0) || !(o.h_initial >= 0.0) ||
      !(o.h_min >= 0.0) || !(o.h_max > 0.0 && o.h_max >= o.h_min) || !(o.h_initial == 0.0 || o.h_initial >= o.h_min) ||
      !(o.max_steps > 0))
    throw std::invalid_argument(
        "DormandPrince45: options need atol > 0, rtol ≥ 0, 0 < safety ≤ 1, 0 < min_factor ≤ 1 ≤ max_factor, "
        "h_min ≥ 0, h_max > 0 and ≥ h_min, h_initial 0 or ≥ h_min, max_steps > 0");
}

void DormandPrince45::reset(const OdeState& x, double h) {
  if (!(h >= 0.0)) throw std::invalid_argument("DormandPrince45::reset: the step size must be >= 0");
  reset(x);
  h_ = h > 0.0 ? std::clamp(h, opt_.h_min, opt_.h_max) : 0.0;
}

void DormandPrince45::reset(const OdeState& x) {
  if (x.q.size() != space_.nq || x.v.size() != space_.nv)
    throw std::invalid_argument("DormandPrince45::reset: q and v must have the configuration space's nq and nv");
  const int nq = space_.nq, nv = space_.nv;
  const auto nz = x.z.size();
  x_ = x;
  x_prev_ = x;
  x_new_ = x;
  for (int j = 0; j < kS; ++j) {
    ku_[j].setZero(nv);
    kv_[j].setZero(nv);
    kz_[j].setZero(nz);
  }
  u_.setZero(nv);
  q_s_.setZero(nq);
  v_s_.setZero(nv);
  z_s_.setZero(nz);
  u_out_.setZero(nv);
  h_ = 0.0;
  k1_valid_ = fsal_pending_ = dense_valid_ = false;
  stats_ = {};
}

// Stages 2..7 of a step of size h from x_, the 7th at the candidate (t_new, x_new_).
void DormandPrince45::attempt(DerivativeRef f, double h, double t_new) {
  for (int i = 1; i < kS; ++i) {
    const bool last = i == kS - 1;
    VecX& q = last ? x_new_.q : q_s_;  // the last stage's point is the candidate itself, so
    VecX& v = last ? x_new_.v : v_s_;  // its derivative is exactly f at the accepted state
    VecX& z = last ? x_new_.z : z_s_;
    u_.setZero();
    v = x_.v;
    z = x_.z;
    add_stages(u_, ku_, kA[i], i, h);
    add_stages(v, kv_, kA[i], i, h);
    add_stages(z, kz_, kA[i], i, h);
    q = x_.q;
    space_.integrate(q, u_, 1.0);
    f(kC[i] == 1.0 ? t_new : x_.t + kC[i] * h, q, v, z, kv_[i], kz_[i]);
    ++stats_.evaluations;
    space_.local_rate(u_, v, ku_[i]);  // u_ is the step's displacement after the last stage
  }
}

// RMS of the error estimate scaled by atol + rtol · max(|y(t)|, |y(t + h)|) over u, v, z.
double DormandPrince45::error_norm(double h) const {
  const auto n = 2 * space_.nv + x_.z.size();
  if (n == 0) return 0.0;
  double sum = 0.0;
  const auto part = [&](const std::array<VecX, kS>& k, const VecX* y0, const VecX& y1) {
    for (Eigen::Index i = 0; i < y1.size(); ++i) {
      double e = 0.0;
      for (int j = 0; j < kS; ++j) e += kE[j] * k[j][i];
      e *= h;
      const double y = std::max(y0 ? std::abs((*y0)[i]) : 0.0, std::abs(y1[i]));
      const double sc = opt_.atol + opt_.rtol * y;
      sum += (e / sc) * (e / sc);
    }
  };
  part(ku_, nullptr, u_);  // u starts at 0
  part(kv_, &x_.v, x_new_.v);
  part(kz_, &x_.z, x_new_.z);
  return std::sqrt(sum / static_cast<double>(n));
}

// HNW II.4: h0 from |y0| / |f0|, one explicit Euler step to estimate the second derivative,
// then h with h⁵ · max(|f0|, |f'|) ≈ 0.01 (all norms scaled as the error is).
void DormandPrince45::guess_initial_step(DerivativeRef f) {
  const double atol = opt_.atol, rtol = opt_.rtol;
  const double n = static_cast<double>(std::max<Eigen::Index>(1, 2 * space_.nv + x_.z.size()));
  const VecX* v0 = &x_.v;
  const VecX* z0 = &x_.z;
  const double d0 = std::sqrt((sum_sq_scaled(x_.v, v0, atol, rtol) + sum_sq_scaled(x_.z, z0, atol, rtol)) / n);
  const double d1 = std::sqrt((sum_sq_scaled(ku_[0], nullptr, atol, rtol) + sum_sq_scaled(kv_[0], v0, atol, rtol) +
                               sum_sq_scaled(kz_[0], z0, atol, rtol)) /
                              n);
  double h0 = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
  h0 = std::min(h0, opt_.h_max);
  u_ = h0 * ku_[0];
  v_s_ = x_.v + h0 * kv_[0];
  z_s_ = x_.z + h0 * kz_[0];
  q_s_ = x_.q;
  space_.integrate(q_s_, u_, 1.0);
  f(x_.t + h0, q_s_, v_s_, z_s_, kv_[1], kz_[1]);  // stage 2's slots are free until the step
  ++stats_.evaluations;
  space_.local_rate(u_, v_s_, ku_[1]);
  ku_[1] -= ku_[0];
  kv_[1] -= kv_[0];
  kz_[1] -= kz_[0];
  const double d2 = std::sqrt((sum_sq_scaled(ku_[1], nullptr, atol, rtol) + sum_sq_scaled(kv_[1], v0, atol, rtol) +
                               sum_sq_scaled(kz_[1], z0, atol, rtol)) /
                              n) /
                    h0;
  const double dmax = std::max(d1, d2);
  const double h1 = dmax <= 1e-15 ? std::max(1e-6, 1e-3 * h0) : std::pow(0.01 / dmax, 1.0 / 5.0);
  h_ = std::clamp(std::min(100.0 * h0, h1), opt_.h_min, opt_.h_max);
}

void DormandPrince45::step(DerivativeRef f, double t_max) {
  if (!(t_max > x_.t)) throw std::invalid_argument("DormandPrince45::step: t_max must be after t()");
  if (ku_[0].size() != space_.nv || x_.v.size() != space_.nv)
    throw std::logic_error("DormandPrince45::step: call reset() first");
  if (fsal_pending_) {  // first same as last: the last stage was f at the current state
    kv_[0].swap(kv_[kS - 1]);
    kz_[0].swap(kz_[kS - 1]);
    fsal_pending_ = false;
  }
  dense_valid_ = false;  // the stages are about to be overwritten
  if (!k1_valid_) {
    f(x_.t, x_.q, x_.v, x_.z, kv_[0], kz_[0]);
    ++stats_.evaluations;
    k1_valid_ = true;
  }
  u_.setZero();
  space_.local_rate(u_, x_.v, ku_[0]);
  if (h_ <= 0.0) {
    if (opt_.h_initial > 0.0)
      h_ = std::min(opt_.h_initial, opt_.h_max);
    else
      guess_initial_step(f);
  }
  bool rejected = false;
  for (;;) {
    double h = h_, t_new = x_.t + h;
    bool clamped = false;
    if (x_.t + 1.01 * h >= t_max) {  // land on t_max rather than leave a sliver before it
      h = t_max - x_.t;
      t_new = t_max;
      clamped = true;
    } else if (h < opt_.h_min || t_new == x_.t) {  // the control asks for less than allowed (or representable)
      std::ostringstream msg;
      msg.precision(17);
      msg << "DormandPrince45: the step size fell to " << h << " s, below the minimum " << opt_.h_min
          << " s, at t = " << x_.t << " s (" << stats_.rejected << " rejected steps so far; atol " << opt_.atol
          << ", rtol " << opt_.rtol << "): the system is too stiff, discontinuous or singular there";
      throw DivergenceError(msg.str());
    }
    // A stage the dynamics cannot evaluate (it left the valid configurations) is a step too
    // large, like a non-finite one: rejected, and retried smaller down to h_min.
    double err = std::numeric_limits<double>::quiet_NaN();
    try {
      attempt(f, h, t_new);
      err = error_norm(h);
    } catch (const DivergenceError&) {
    }
    if (err <= 1.0) {  // false for NaN: a non-finite step is rejected
      double factor = err > 0.0 ? std::clamp(opt_.safety * std::pow(err, -0.2), opt_.min_factor, opt_.max_factor)
                                : opt_.max_factor;
      if (rejected) factor = std::min(factor, 1.0);  // HNW: no growth right after a rejection
      double h_new = h * factor;
      if (clamped && factor >= 1.0) h_new = std::max(h_new, h_);  // landing is no reason to slow down
      h_ = std::min(h_new, opt_.h_max);
      x_new_.t = t_new;
      swap_states(x_prev_, x_);
      swap_states(x_, x_new_);
      ++stats_.accepted;
      stats_.h_last = h;
      fsal_pending_ = dense_valid_ = true;
      return;
    }
    ++stats_.rejected;
    rejected = true;
    h_ = h * (std::isfinite(err) ? std::max(opt_.min_factor, opt_.safety * std::pow(err, -0.2)) : opt_.min_factor);
  }
}

void DormandPrince45::throw_runaway(const char* call, double t_start, double t_target) const {
  std::ostringstream msg;
  msg.precision(17);
  msg << "DormandPrince45::" << call << ": " << opt_.max_steps << " steps from t = " << t_start
      << " s did not reach " << t_target << " s (now " << x_.t << " s, last step " << stats_.h_last
      << " s): the tolerance is too tight for this system, or it is too stiff for an explicit method";
  throw DivergenceError(msg.str());
}

void DormandPrince45::advance_to(DerivativeRef f, double t_out, OdeState& out) {
  const double earliest = dense_valid_ ? x_prev_.t : x_.t;
  if (!(t_out >= earliest))
    throw std::invalid_argument("DormandPrince45::advance_to: t_out precedes the last step (or is not a number)");
  const double t_start = x_.t;
  for (std::int64_t n = 0; x_.t < t_out; ++n) {
    if (n == opt_.max_steps) throw_runaway("advance_to", t_start, t_out);
    step(f);
  }
  interpolate(t_out, out);
}

void DormandPrince45::step_to(DerivativeRef f, double t_end) {
  if (!(t_end >= x_.t))
    throw std::invalid_argument("DormandPrince45::step_to: t_end precedes t() (or is not a number)");
  const double t_start = x_.t;
  for (std::int64_t n = 0; x_.t < t_end; ++n) {
    if (n == opt_.max_steps) throw_runaway("step_to", t_start, t_end);
    step(f, t_end);
  }
}

void DormandPrince45::interpolate(double t, OdeState& out) const {
  out.t = t;
  if (t == x_.t) {
    out.q = x_.q;
    out.v = x_.v;
    out.z = x_.z;
    return;
  }
  if (!dense_valid_ || !(t >= x_prev_.t && t <= x_.t))
    throw std::out_of_range("DormandPrince45::interpolate: t is outside the last accepted step");
  const double h = stats_.h_last;
  double w[kS];
  dense_weights((t - x_prev_.t) / h, w);
  u_out_.setZero();
  add_stages(u_out_, ku_, w, kS, h);
  out.q = x_prev_.q;
  space_.integrate(out.q, u_out_, 1.0);
  out.v = x_prev_.v;
  add_stages(out.v, kv_, w, kS, h);
  out.z = x_prev_.z;
  add_stages(out.z, kz_, w, kS, h);
}

}  // namespace graspsim
