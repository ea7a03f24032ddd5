#pragma once
// Tangent directions of the friction models (thesis 3.2.1, 3.3.1, 3.5). Pure functions of
// the unit contact normal n (world frame) and what each model needs; every returned
// direction is a unit vector orthogonal to n.

#include <random>
#include <vector>

#include "core/types.h"

namespace graspsim {

struct TangentPair {
  Vec3 t1, t2;  // primary and secondary friction directions
};

// World x projected on the contact plane, or world y when |n·x| > 0.9 (x nearly parallel
// to n, so its projection would be short and ill-defined); t2 = n × t1.
TangentPair box_tangents(const Vec3& n);

// `primary` (world frame) projected on the contact plane; falls back to box_tangents when
// the projection is shorter than 1e-6·|primary|. t2 = n × t1.
TangentPair oriented_tangents(const Vec3& n, const Vec3& primary);

// The box primary rotated about n by θ ~ U[0, 2π) drawn from rng (one draw per call).
TangentPair randomized_tangents(const Vec3& n, std::mt19937_64& rng);

// k ≥ 3 evenly spaced directions around n, the first being the box primary:
// d_i = cos(2πi/k) t1 + sin(2πi/k) t2. Also the polyhedral cone's directions.
std::vector<Vec3> tangent_directions(const Vec3& n, int k);

// Multi-directional tangent plane (thesis 3.5.2): primary = the direction most parallel
// (largest d·hint) to the previous friction force if it is non-zero, else to the slip
// velocity if non-zero, else the first direction; secondary = the direction most
// orthogonal to the primary (smallest |d·primary|, first on ties). When k is not a
// multiple of 4 the secondary is not exactly orthogonal. Returns indices into directions.
struct DirectionChoice {
  int primary = 0, secondary = 0;
};
DirectionChoice choose_directions(const std::vector<Vec3>& directions,
                                  const Vec3& previous_friction, const Vec3& slip);

}  // namespace graspsim
