#pragma once
// Problem builders and an independent (dense, textbook) complementarity check shared by
// the spook_*.cpp tests.

#include <gtest/gtest.h>

#include <cmath>
#include <array>
#include <random>
#include <vector>

#include "spook/parameters.h"
#include "spook/problem.h"
#include "spook/problem_builder.h"

namespace graspsim::spook::spook_test {

using Triplets = std::vector<Eigen::Triplet<double>>;

inline Tree make_tree(int v_begin, const MatX& M) {
  Tree t;
  t.v_begin = v_begin;
  t.nv = static_cast<int>(M.rows());
  t.M_llt.compute(M);
  return t;
}

using RowBuilder = ProblemBuilder;

// A particle of mass m (3 dofs, one tree) resting on the plane z = 0 (gap 0, at rest),
// pushed by a horizontal force F during one step of length h under gravity g.
struct Particle {
  double m = 2.0, h = 0.01, g = 9.81, mu = 0.5;
  double stiffness = 1e5, damping_time = 0.02;  // normal row: SPOOK ε, τ
  double friction_creep = 1e-4;                 // (m/s)/N, friction row compliance η/h

  SpookParameters normal_params() const { return spook_parameters(stiffness, damping_time, h); }
  double friction_compliance() const { return velocity_compliance(friction_creep, h); }
  // Closed form of the normal impulse: (1/m + Σ) λ_n = g h.
  double lambda_n() const { return g * h / (1.0 / m + normal_params().sigma); }

  // Friction rows: two tangents (x, y) or, for Polyhedral, k evenly spaced directions.
  Problem problem(const Eigen::Vector2d& force, FrictionTreatment t, int k = 0) const {
    Problem p;
    p.nv = 3;
    p.trees.push_back(make_tree(0, m * MatX::Identity(3, 3)));
    p.v_free = Vec3(force.x() * h / m, force.y() * h / m, -g * h);
    RowBuilder rb(p);
    ContactRows c;
    c.mu = mu;
    c.treatment = t;
    c.normal = rb.add({{2, 1.0}}, RowKind::Normal, spook_target(normal_params(), h, 0.0, 0.0),
                      normal_params().sigma, 0.0, kInf);
    const double bound = mu * lambda_n();  // BoxFixed: the previous step's normal, exact here
    if (t == FrictionTreatment::Polyhedral) {
      for (int i = 0; i < k; ++i) {
        const double a = 2.0 * M_PI * i / k;
        c.friction.push_back(rb.add({{0, std::cos(a)}, {1, std::sin(a)}}, RowKind::Friction, 0.0,
                                    friction_compliance(), 0.0, kInf));
      }
    } else {
      for (int axis = 0; axis < 2; ++axis)
        c.friction.push_back(rb.add({{axis, 1.0}}, RowKind::Friction, 0.0, friction_compliance(),
                                    -bound, bound));
    }
    rb.finish();
    p.contacts.push_back(c);
    return p;
  }
};

// Friction impulse vector (x, y) of the particle's contact.
inline Eigen::Vector2d friction_impulse(const Problem& p, const VecX& lambda) {
  Eigen::Vector2d f = Eigen::Vector2d::Zero();
  for (int r : p.contacts[0].friction) {
    const double jx = p.J.coeff(r, 0), jy = p.J.coeff(r, 1);
    f += lambda[r] * Eigen::Vector2d(jx, jy);
  }
  return f;
}

// Dense M (block diagonal) from the trees.
inline MatX dense_mass(const Problem& p) {
  MatX M = MatX::Identity(p.nv, p.nv);
  for (const Tree& t : p.trees) {
    const MatX L = t.M_llt.matrixL();
    M.block(t.v_begin, t.v_begin, t.nv, t.nv) = L * L.transpose();
  }
  return M;
}

// w = J M⁻¹ Jᵀ λ + J v_free + c⊙λ − target computed densely, independent of the library.
inline VecX dense_w(const Problem& p, const VecX& lambda) {
  const MatX J = MatX(p.J);
  const VecX v = p.v_free + dense_mass(p).ldlt().solve(J.transpose() * lambda);
  return J * v + p.compliance.cwiseProduct(lambda) - p.target;
}

// The largest violation (velocity units, with impulses weighted by `scale` = A_ii) of the
// textbook conditions: bounds, and w ≥ 0 at a lower bound, w ≤ 0 at an upper one, w = 0
// inside, per row and per friction treatment; polyhedral with slack s = max(0, −min w).
inline double independent_violation(const Problem& p, const VecX& lambda, double scale) {
  const VecX w = dense_w(p, lambda);
  double viol = 0.0;
  auto box = [&](int i, double l, double u) {
    viol = std::max({viol, scale * (l - lambda[i]), scale * (lambda[i] - u)});
    const double wi = w[i];
    const double gap_lo = scale * (lambda[i] - l), gap_hi = scale * (u - lambda[i]);
    // Complementarity in min-form: min(gap_lo, w⁺) and min(gap_hi, w⁻) must vanish.
    viol = std::max(viol, std::min(gap_lo, std::max(wi, 0.0)));
    viol = std::max(viol, std::min(gap_hi, std::max(-wi, 0.0)));
  };
  std::vector<bool> in_contact(p.nrows(), false);
  for (const ContactRows& c : p.contacts) {
    const double ln = lambda[c.normal];
    for (int r : c.friction) in_contact[r] = true;
    if (c.treatment == FrictionTreatment::BoxFixed)
      for (int r : c.friction) box(r, p.lo[r], p.hi[r]);
    if (c.treatment == FrictionTreatment::BoxScaled)
      for (int r : c.friction) box(r, -c.mu * ln, c.mu * ln);
    if (c.treatment == FrictionTreatment::Polyhedral) {
      double wmin = kInf, sum = 0.0;
      for (int r : c.friction) wmin = std::min(wmin, w[r]), sum += lambda[r];
      const double s = std::max(0.0, -wmin);
      for (int r : c.friction) {
        viol = std::max(viol, -scale * lambda[r]);
        viol = std::max(viol, std::min(scale * lambda[r], std::abs(w[r] + s)));
      }
      viol = std::max(viol, scale * (sum - c.mu * ln));
      viol = std::max(viol, std::min(s, scale * (c.mu * ln - sum)));
    }
  }
  for (int i = 0; i < p.nrows(); ++i)
    if (!in_contact[i]) box(i, p.lo[i], p.hi[i]);
  return viol;
}

}  // namespace graspsim::spook::spook_test

namespace graspsim::spook::spook_test {

// Random well-posed problems: SPD tree blocks, rows over one or two trees, compliance
// 1e-4..1e-2 relative to the O(1) Delassus diagonal, targets that make some contacts
// active and others separate.
struct RandomSpec {
  int trees = 4;
  int contacts = 5;
  int equalities = 2;
  int limits = 2;
  int bounded = 2;
  bool friction = true;
  FrictionTreatment treatment = FrictionTreatment::BoxScaled;
  bool mixed_treatments = false;  // cycle BoxFixed, BoxScaled, Polyhedral
  int k = 6;                      // polyhedral directions
  double log10_compliance_min = -4.0, log10_compliance_max = -2.0;
};

inline Problem random_problem(std::uint64_t seed, const RandomSpec& spec) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> U(-1.0, 1.0), P(0.0, 1.0);
  auto compliance = [&] {
    return std::pow(10.0, spec.log10_compliance_min +
                              (spec.log10_compliance_max - spec.log10_compliance_min) * P(rng));
  };
  Problem p;
  std::vector<int> begin;
  for (int t = 0; t < spec.trees; ++t) {
    const int nv = 1 + static_cast<int>(P(rng) * 6.0) % 6;
    MatX B(nv, nv);
    for (int i = 0; i < nv * nv; ++i) B.data()[i] = U(rng);
    const MatX M = (0.5 + 4.5 * P(rng)) * (B * B.transpose() + 0.5 * MatX::Identity(nv, nv));
    begin.push_back(p.nv);
    p.trees.push_back(make_tree(p.nv, M));
    p.nv += nv;
  }
  p.v_free.resize(p.nv);
  for (int i = 0; i < p.nv; ++i) p.v_free[i] = U(rng);
  auto random_support = [&] {
    std::vector<int> trees{static_cast<int>(P(rng) * spec.trees) % spec.trees};
    if (P(rng) < 0.5) trees.push_back(static_cast<int>(P(rng) * spec.trees) % spec.trees);
    if (trees.size() == 2 && trees[0] == trees[1]) trees.pop_back();
    return trees;
  };
  auto random_row = [&](const std::vector<int>& trees) {
    std::vector<std::pair<int, double>> e;
    for (int t : trees)
      for (int k = 0; k < p.trees[t].nv; ++k) e.emplace_back(begin[t] + k, U(rng));
    return e;
  };
  RowBuilder rb(p);
  for (int c = 0; c < spec.contacts; ++c) {
    const std::vector<int> support = random_support();
    ContactRows cr;
    cr.mu = 0.1 + 0.9 * P(rng);
    cr.treatment = spec.mixed_treatments ? static_cast<FrictionTreatment>(std::array{0, 1, 3}[c % 3])
                                         : spec.treatment;
    cr.normal = rb.add(random_row(support), RowKind::Normal, -0.5 + 1.5 * P(rng), compliance(), 0.0, kInf);
    if (spec.friction) {
      const auto t1 = random_row(support), t2 = random_row(support);
      if (cr.treatment == FrictionTreatment::Polyhedral) {
        for (int i = 0; i < spec.k; ++i) {
          const double a = 2.0 * M_PI * i / spec.k;
          auto d = t1;
          for (size_t j = 0; j < d.size(); ++j) d[j].second = std::cos(a) * t1[j].second + std::sin(a) * t2[j].second;
          cr.friction.push_back(rb.add(d, RowKind::Friction, 0.0, compliance(), 0.0, kInf));
        }
      } else {
        const double bound = cr.mu * P(rng);  // BoxFixed: a previous normal impulse
        for (const auto& t : {t1, t2})
          cr.friction.push_back(rb.add(t, RowKind::Friction, 0.0, compliance(), -bound, bound));
      }
    }
    p.contacts.push_back(cr);
  }
  for (int i = 0; i < spec.equalities; ++i)
    rb.add(random_row(random_support()), RowKind::Equality, U(rng), compliance(), -kInf, kInf);
  for (int i = 0; i < spec.limits; ++i) {
    const bool lower = P(rng) < 0.5;
    rb.add(random_row(random_support()), RowKind::Limit, U(rng), compliance(), lower ? 0.0 : -kInf,
           lower ? kInf : 0.0);
  }
  for (int i = 0; i < spec.bounded; ++i)
    rb.add(random_row(random_support()), RowKind::Bounded, U(rng), compliance(), -0.2 - P(rng),
           0.2 + P(rng));
  rb.finish();
  return p;
}

// Two independent problems side by side (block-diagonal M and J).
inline Problem concat(const Problem& a, const Problem& b) {
  Problem p;
  p.nv = a.nv + b.nv;
  p.trees = a.trees;
  for (Tree t : b.trees) {
    t.v_begin += a.nv;
    p.trees.push_back(t);
  }
  auto cat = [](const VecX& x, const VecX& y) {
    VecX z(x.size() + y.size());
    z << x, y;
    return z;
  };
  p.v_free = cat(a.v_free, b.v_free);
  p.target = cat(a.target, b.target);
  p.compliance = cat(a.compliance, b.compliance);
  p.lo = cat(a.lo, b.lo);
  p.hi = cat(a.hi, b.hi);
  p.kind = a.kind;
  p.kind.insert(p.kind.end(), b.kind.begin(), b.kind.end());
  Triplets trip;
  for (int r = 0; r < a.nrows(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(a.J, r); it; ++it)
      trip.emplace_back(r, it.col(), it.value());
  for (int r = 0; r < b.nrows(); ++r)
    for (Eigen::SparseMatrix<double, Eigen::RowMajor>::InnerIterator it(b.J, r); it; ++it)
      trip.emplace_back(a.nrows() + r, a.nv + it.col(), it.value());
  p.J.resize(a.nrows() + b.nrows(), p.nv);
  p.J.setFromTriplets(trip.begin(), trip.end());
  p.contacts = a.contacts;
  for (ContactRows c : b.contacts) {
    c.normal += a.nrows();
    for (int& r : c.friction) r += a.nrows();
    p.contacts.push_back(c);
  }
  return p;
}

// ½λᵀAλ − bᵀλ, the SPOOK energy whose minimiser over the bounds is the frictionless MLCP.
inline double spook_energy(const Problem& p, const VecX& lambda) {
  const MatX J = MatX(p.J);
  const MatX A = J * dense_mass(p).ldlt().solve(J.transpose()) + MatX(p.compliance.asDiagonal());
  const VecX b = p.target - J * p.v_free;
  return 0.5 * lambda.dot(A * lambda) - b.dot(lambda);
}

}  // namespace graspsim::spook::spook_test
