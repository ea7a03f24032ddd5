#include "metrics/contact_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace graspsim {

double coulomb_cone_error(double fn, const Vec3& ft, double mu, double force_tol) {
  const double t = ft.norm();
  const double limit = mu * std::abs(fn);
  if (t <= limit + force_tol) return 0.0;
  if (limit <= 0.0) return t > 0.0 ? std::numeric_limits<double>::infinity() : 0.0;
  return std::max(0.0, t / limit - 1.0);
}

double alignment_error(const Vec3& ft, const Vec3& slip, double slip_tol, double force_tol) {
  const double nf = ft.norm(), nv = slip.norm();
  if (nv <= slip_tol || nf <= force_tol) return std::numeric_limits<double>::quiet_NaN();
  const double c = std::clamp(ft.dot(slip) / (nf * nv), -1.0, 1.0);
  return std::acos(c) - std::numbers::pi;
}

double kinetic_energy_ratio(double mass, const Mat3& I, const Vec3& v, const Vec3& w, const Vec3& vg, const Vec3& wg) {
  const double object = 0.5 * mass * v.squaredNorm() + 0.5 * w.dot(I * w);
  const double rigid = 0.5 * mass * vg.squaredNorm() + 0.5 * wg.dot(I * wg);
  if (rigid <= 0.0) return object > 0.0 ? std::numeric_limits<double>::infinity() : 1.0;
  return object / rigid;
}

}  // namespace graspsim
