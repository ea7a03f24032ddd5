#pragma once
// Projections onto friction sets, for any formulation's iterative solver: the box, the
// disk of the Coulomb cone at a given normal impulse, and the capped simplex of the
// polyhedral cone {λ ≥ 0, Σ λ ≤ μ λ_n}.

#include <algorithm>
#include <cmath>

#include "core/types.h"

namespace graspsim {

inline double project_box(double x, double lo, double hi) { return std::clamp(x, lo, hi); }

// (x, y) onto the disk of the given radius (radius ≥ 0), scaled towards the origin.
inline void project_disk(double& x, double& y, double radius) {
  const double r2 = x * x + y * y;
  // Well inside the disk, no square root (its latency was ~10 % of a pile's sweeps). The
  // margin, far above the roundings of radius², keeps this test's answer that of
  // norm > radius below; radii under 1e-150 (radius² subnormal) take the exact test.
  if (radius > 1e-150 && r2 < radius * radius * (1.0 - 1e-12)) return;
  const double norm = std::sqrt(r2);  // (hypot is several times slower)
  if (norm > radius) {
    x *= radius / norm;
    y *= radius / norm;
  }
}

// Euclidean projection of x onto {y ≥ 0, Σ y ≤ cap} (cap ≥ 0).
VecX project_capped_simplex(const VecX& x, double cap);

}  // namespace graspsim
