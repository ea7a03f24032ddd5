#include "contact/friction_directions.h"

#include <cmath>
#include <limits>
#include <numbers>

#include "contact/contact_kinematics.h"
#include "core/error.h"

namespace graspsim {
namespace {

Vec3 project_on_plane(const Vec3& n, const Vec3& a) { return a - n.dot(a) * n; }

}  // namespace

TangentPair box_tangents(const Vec3& n) {
  const ContactFrame f = contact_frame(n);
  return {f.t1, f.t2};
}

TangentPair oriented_tangents(const Vec3& n, const Vec3& primary) {
  const Vec3 t = project_on_plane(n, primary);
  if (t.norm() <= 1e-6 * primary.norm() || t.norm() == 0.0) return box_tangents(n);
  const Vec3 t1 = t.normalized();
  return {t1, n.cross(t1)};
}

TangentPair randomized_tangents(const Vec3& n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> angle(0.0, 2.0 * std::numbers::pi);
  const double theta = angle(rng);
  const TangentPair box = box_tangents(n);
  const Vec3 t1 = std::cos(theta) * box.t1 + std::sin(theta) * box.t2;
  return {t1, n.cross(t1)};
}

std::vector<Vec3> tangent_directions(const Vec3& n, int k) {
  require(k >= 3, "tangent_directions", "need at least 3 friction directions, got " + std::to_string(k));
  const TangentPair box = box_tangents(n);
  std::vector<Vec3> d(k);
  for (int i = 0; i < k; ++i) {
    const double a = 2.0 * std::numbers::pi * i / k;
    d[i] = std::cos(a) * box.t1 + std::sin(a) * box.t2;
  }
  return d;
}

DirectionChoice choose_directions(const std::vector<Vec3>& directions, const Vec3& previous_friction,
                                  const Vec3& slip) {
  require(!directions.empty(), "choose_directions", "no directions");
  const Vec3& hint = previous_friction.squaredNorm() > 0.0 ? previous_friction : slip;
  // Ties within 1e-12 (rounding in the generated directions) go to the first index.
  constexpr double kTie = 1e-12, kInf = std::numeric_limits<double>::infinity();
  DirectionChoice c;
  if (hint.squaredNorm() > 0.0) {
    double best = -kInf;
    for (int i = 0; i < static_cast<int>(directions.size()); ++i)
      if (directions[i].dot(hint) > best + kTie * hint.norm()) best = directions[i].dot(hint), c.primary = i;
  }
  double most_orthogonal = kInf;
  for (int i = 0; i < static_cast<int>(directions.size()); ++i) {
    if (i == c.primary) continue;
    const double a = std::abs(directions[i].dot(directions[c.primary]));
    if (a < most_orthogonal - kTie) most_orthogonal = a, c.secondary = i;
  }
  return c;
}

}  // namespace graspsim
