#include "steppers/spook/pgs.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace graspsim::spook {
namespace {

class Sweeper {
 public:
  Sweeper(const Problem& p, const Operators& ops, VecX& lambda, VecX& v)
      : p_(p), ops_(ops), lambda_(lambda), v_(v) {}

  // Gauss-Seidel update of row i clamped to [lo, hi].
  void row(int i, double lo, double hi) {
    if (ops_.inv_D[i] == 0.0) return;  // a row that sees no dof and has no compliance
    set(i, std::clamp(lambda_[i] - w(i) * ops_.inv_D[i], lo, hi));
  }

  double w(int i) const { return row_velocity(ops_, i, v_.data()) + p_.compliance[i] * lambda_[i]; }

  void set(int i, double value) {
    const double delta = value - lambda_[i];
    if (delta == 0.0) return;
    lambda_[i] = value;
    apply_impulse(ops_, i, delta, v_.data());
  }

  void contact(const ContactRows& c, bool with_normal) {
    if (c.treatment != FrictionTreatment::Polyhedral) {
      const Operators::FreeContact& f = ops_.free_contacts[ops_.contact_of_row[c.normal]];
      if (f.runs == 1) return free_contact<1>(c, f, with_normal);
      if (f.runs == 2) return free_contact<2>(c, f, with_normal);
    }
    if (with_normal) row(c.normal, p_.lo[c.normal], p_.hi[c.normal]);
    const double bound = friction_bound(c.mu, lambda_[c.normal]);
    switch (c.treatment) {
      case FrictionTreatment::BoxFixed:
        for (int i : c.friction) row(i, p_.lo[i], p_.hi[i]);
        break;
      case FrictionTreatment::BoxScaled:
        for (int i : c.friction) row(i, -bound, bound);
        break;
      case FrictionTreatment::Cone: {
        // Both rows take one projected step with a common scale D̄: then a fixed point has
        // w_t ∥ −λ_t on the cone's rim (maximal dissipation). Per-row scales D_a ≠ D_b give
        // w_t ∥ D λ_t instead, friction off the slip direction (20° at a sliding box's
        // corners). D̄ = max(D_a, D_b) ≥ λ_max/2 of the pair's block keeps the step stable.
        const int a = c.friction[0], b = c.friction[1];
        const double inv = ops_.D[a] >= ops_.D[b] ? ops_.inv_D[a] : ops_.inv_D[b];  // 1 / max(D_a, D_b)
        if (inv == 0.0) break;
        double ya = lambda_[a] - w(a) * inv, yb = lambda_[b] - w(b) * inv;
        const double norm = std::sqrt(ya * ya + yb * yb);  // (hypot is several times slower)
        if (norm > bound) {
          ya *= bound / norm;
          yb *= bound / norm;
        }
        set(a, ya);
        set(b, yb);
        break;
      }
      case FrictionTreatment::Polyhedral: {
        // One projected-gradient step on the contact's direction block with step 1/L,
        // L = Σ D_i ≥ λ_max of the block: its fixed points are exactly the solutions of
        // Stewart-Trinkle's LCP for this contact (the slack s is the simplex multiplier),
        // which row-by-row updates followed by a projection would not guarantee.
        const int k = static_cast<int>(c.friction.size());
        double L = 0.0;
        for (int i : c.friction) L += ops_.D[i];
        if (L <= 0.0) break;
        VecX y(k);
        for (int a = 0; a < k; ++a) y[a] = lambda_[c.friction[a]] - w(c.friction[a]) / L;
        y = project_capped_simplex(y, bound);
        for (int a = 0; a < k; ++a) set(c.friction[a], y[a]);
        break;
      }
    }
    if (c.torsion >= 0) {
      const double tb = friction_bound(c.torsion_mu, lambda_[c.normal]);
      row(c.torsion, -tb, tb);
    }
  }

 private:
  // contact() for a contact whose three rows act on R free bodies (free_contacts): the
  // same updates in the same order, with the bodies' velocities held in registers.
  template <int R>
  void free_contact(const ContactRows& c, const Operators::FreeContact& f, bool with_normal) {
    const int rows[3] = {c.normal, c.friction[0], c.friction[1]};
    const double* J = ops_.jd.data() + f.offset;  // row q, run r at J + 6 (R q + r)
    const double* W = ops_.wd.data() + f.offset;
    double* vp[R];
    Vec6 v[R];
    for (int r = 0; r < R; ++r) {
      vp[r] = v_.data() + f.v_begin[r];
      v[r] = Eigen::Map<const Vec6>(vp[r]);
    }
    auto w = [&](int q) {
      double jv = 0.0;
      for (int r = 0; r < R; ++r) jv += Eigen::Map<const Vec6>(J + 6 * (R * q + r)).dot(v[r]);
      return ops_.bias[rows[q]] + jv + p_.compliance[rows[q]] * lambda_[rows[q]];
    };
    auto set = [&](int q, double value) {
      const double delta = value - lambda_[rows[q]];
      if (delta == 0.0) return;
      lambda_[rows[q]] = value;
      for (int r = 0; r < R; ++r) v[r] += delta * Eigen::Map<const Vec6>(W + 6 * (R * q + r));
    };
    auto row = [&](int q, double lo, double hi) {
      const double inv = ops_.inv_D[rows[q]];
      if (inv != 0.0) set(q, std::clamp(lambda_[rows[q]] - w(q) * inv, lo, hi));
    };
    if (with_normal) row(0, p_.lo[c.normal], p_.hi[c.normal]);
    const double bound = friction_bound(c.mu, lambda_[c.normal]);
    switch (c.treatment) {
      case FrictionTreatment::BoxFixed:
        row(1, p_.lo[rows[1]], p_.hi[rows[1]]);
        row(2, p_.lo[rows[2]], p_.hi[rows[2]]);
        break;
      case FrictionTreatment::BoxScaled:
        row(1, -bound, bound);
        row(2, -bound, bound);
        break;
      case FrictionTreatment::Cone: {  // see contact()
        const int a = rows[1], b = rows[2];
        const double inv = ops_.D[a] >= ops_.D[b] ? ops_.inv_D[a] : ops_.inv_D[b];
        if (inv == 0.0) break;
        double ya = lambda_[a] - w(1) * inv, yb = lambda_[b] - w(2) * inv;
        const double norm = std::sqrt(ya * ya + yb * yb);
        if (norm > bound) {
          ya *= bound / norm;
          yb *= bound / norm;
        }
        set(1, ya);
        set(2, yb);
        break;
      }
      case FrictionTreatment::Polyhedral: break;  // (not taken here)
    }
    for (int r = 0; r < R; ++r) Eigen::Map<Vec6>{vp[r]} = v[r];
    if (c.torsion >= 0) {
      const double tb = friction_bound(c.torsion_mu, lambda_[c.normal]);
      this->row(c.torsion, -tb, tb);
    }
  }

  const Problem& p_;
  const Operators& ops_;
  VecX& lambda_;
  VecX& v_;
};

}  // namespace

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

void pgs_sweeps(const Problem& p, const Operators& ops, SweepRows rows, int sweeps, VecX& lambda,
                VecX& v, const std::vector<int>* subset) {
  Sweeper sweeper(p, ops, lambda, v);
  const bool all = rows == SweepRows::All;
  auto visit = [&](int i) {
    const int c = ops.contact_of_row[i];
    if (c < 0) {
      if (all) sweeper.row(i, p.lo[i], p.hi[i]);
    } else if (p.contacts[c].normal == i) {
      sweeper.contact(p.contacts[c], all);
    }
  };
  for (int s = 0; s < sweeps; ++s) {
    if (subset) {
      for (int i : *subset) visit(i);
    } else {
      for (int item : ops.sweep_items) {  // (the same visits, precomputed)
        if (item >= 0) sweeper.contact(p.contacts[item], all);
        else if (all) sweeper.row(-item - 1, p.lo[-item - 1], p.hi[-item - 1]);
      }
    }
  }
}

}  // namespace graspsim::spook
