#include "solvers/friction_projection.h"

#include <functional>
#include <vector>

namespace graspsim {

VecX project_capped_simplex(const VecX& x, double cap) {
  VecX y = x.cwiseMax(0.0);
  if (y.sum() <= cap) return y;
  if (cap <= 0.0) return VecX::Zero(x.size());
  // Projection onto the simplex {y ≥ 0, Σy = cap}: y = max(x − θ, 0) with θ from the
  // sorted values (Held, Wolfe & Crowder).
  std::vector<double> s(x.data(), x.data() + x.size());
  std::sort(s.begin(), s.end(), std::greater<>());
  double cumulative = 0.0, theta = 0.0;
  for (size_t k = 0; k < s.size(); ++k) {
    cumulative += s[k];
    const double t = (cumulative - cap) / static_cast<double>(k + 1);
    if (k == 0 || s[k] - t > 0.0) theta = t;
  }
  return (x.array() - theta).cwiseMax(0.0).matrix();
}

}  // namespace graspsim
