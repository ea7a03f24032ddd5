#include "steppers/spook/operators.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace graspsim::spook {
namespace {

std::vector<int> dof_to_tree(const Problem& problem) {
  std::vector<int> tree_of(problem.nv, -1);
  for (int t = 0; t < static_cast<int>(problem.trees.size()); ++t) {
    const Tree& tree = problem.trees[t];
    for (int k = 0; k < tree.nv; ++k) tree_of[tree.v_begin + k] = t;
  }
  return tree_of;
}

void check(bool cond, const std::string& what) {
  if (!cond) throw std::invalid_argument("spook::Problem: " + what);
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

}  // namespace

void validate(const Problem& p) {
  const int n = p.nrows();
  check(p.nv >= 0 && p.J.cols() == p.nv, "J must have nv columns");
  check(p.v_free.size() == p.nv, "v_free must have nv entries");
  check(p.target.size() == n && p.compliance.size() == n && p.lo.size() == n && p.hi.size() == n,
        "target, compliance, lo and hi must have one entry per row of J");
  check(static_cast<int>(p.kind.size()) == n, "kind must have one entry per row");
  check(p.lambda_warm.size() == 0 || p.lambda_warm.size() == n, "lambda_warm must be empty or nrows");
  std::vector<int> covered(p.nv, 0);
  for (const Tree& t : p.trees) {
    check(t.v_begin >= 0 && t.nv >= 0 && t.v_begin + t.nv <= p.nv, "tree dof range out of bounds");
    check(t.M_llt.rows() == t.nv, "tree M_llt size differs from its nv");
    for (int k = 0; k < t.nv; ++k) check(++covered[t.v_begin + k] == 1, "trees overlap");
  }
  for (int i = 0; i < n; ++i) {
    check(p.compliance[i] >= 0.0, "compliance of row " + std::to_string(i) + " is negative");
    check(p.lo[i] <= p.hi[i], "lo > hi in row " + std::to_string(i));
  }
  std::vector<int> owner(n, -1);
  for (int c = 0; c < static_cast<int>(p.contacts.size()); ++c) {
    const ContactRows& cr = p.contacts[c];
    const std::string name = "contact " + std::to_string(c);
    check(cr.normal >= 0 && cr.normal < n, name + ": normal row out of range");
    check(p.kind[cr.normal] == RowKind::Normal, name + ": normal row is not of kind Normal");
    check(cr.mu >= 0.0, name + ": negative friction coefficient");
    if (cr.treatment == FrictionTreatment::Cone)
      check(cr.friction.size() == 2, name + ": cone friction needs exactly two rows");
    std::vector<int> rows = cr.friction;
    if (cr.torsion >= 0) {
      rows.push_back(cr.torsion);
      check(cr.torsion_mu >= 0.0, name + ": negative torsional friction");
    }
    for (int r : rows) {
      check(r >= 0 && r < n, name + ": friction row out of range");
      check(p.kind[r] == RowKind::Friction, name + ": friction row is not of kind Friction");
      check(owner[r] < 0, "row " + std::to_string(r) + " belongs to two contacts");
      owner[r] = c;
    }
  }
  for (int i = 0; i < n; ++i)
    check(p.kind[i] != RowKind::Friction || owner[i] >= 0,
          "friction row " + std::to_string(i) + " belongs to no contact");
}

double friction_bound(double mu, double lambda_n) { return mu * std::max(lambda_n, 0.0); }

Operators make_operators(const Problem& p) {
  const std::vector<int> tree_of = dof_to_tree(p);
  const int n = p.nrows();
  Operators ops;
  ops.D = p.compliance;
  std::vector<Eigen::Triplet<double>> triplets;
  std::vector<int> touched;
  for (int i = 0; i < n; ++i) {
    touched.clear();
    for (SparseRows::InnerIterator it(p.J, i); it; ++it) {
      const int t = tree_of[it.col()];
      if (t >= 0 && std::find(touched.begin(), touched.end(), t) == touched.end()) touched.push_back(t);
    }
    std::sort(touched.begin(), touched.end());
    for (int t : touched) {
      const Tree& tree = p.trees[t];
      VecX x = VecX::Zero(tree.nv);
      for (SparseRows::InnerIterator it(p.J, i); it; ++it)
        if (tree_of[it.col()] == t) x[it.col() - tree.v_begin] = it.value();
      const VecX y = tree.M_llt.solve(x);
      ops.D[i] += x.dot(y);
      for (int k = 0; k < tree.nv; ++k)
        if (y[k] != 0.0) triplets.emplace_back(i, tree.v_begin + k, y[k]);
    }
  }
  ops.W.resize(n, p.nv);
  ops.W.setFromTriplets(triplets.begin(), triplets.end());
  ops.contact_of_row.assign(n, -1);
  for (int c = 0; c < static_cast<int>(p.contacts.size()); ++c) {
    ops.contact_of_row[p.contacts[c].normal] = c;
    for (int r : p.contacts[c].friction) ops.contact_of_row[r] = c;
    if (p.contacts[c].torsion >= 0) ops.contact_of_row[p.contacts[c].torsion] = c;
  }
  return ops;
}

VecX velocity_of(const Problem& p, const Operators& ops, const VecX& lambda) {
  VecX v = p.v_free;
  if (lambda.size() > 0) v.noalias() += ops.W.transpose() * lambda;
  return v;
}

VecX row_residual(const Problem& p, const VecX& v, const VecX& lambda) {
  return p.J * v + p.compliance.cwiseProduct(lambda) - p.target;
}

std::vector<std::vector<int>> islands(const Problem& p) {
  const int n = p.nrows();
  const std::vector<int> tree_of = dof_to_tree(p);
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto unite = [&](int a, int b) { parent[find_root(parent, a)] = find_root(parent, b); };
  std::vector<int> first_row_of_tree(p.trees.size(), -1);
  for (int i = 0; i < n; ++i)
    for (SparseRows::InnerIterator it(p.J, i); it; ++it) {
      const int t = tree_of[it.col()];
      if (t < 0) continue;
      if (first_row_of_tree[t] < 0) first_row_of_tree[t] = i;
      else unite(i, first_row_of_tree[t]);
    }
  for (const ContactRows& c : p.contacts) {
    for (int r : c.friction) unite(r, c.normal);
    if (c.torsion >= 0) unite(c.torsion, c.normal);
  }
  std::vector<int> island_of_root(n, -1);
  std::vector<std::vector<int>> out;
  for (int i = 0; i < n; ++i) {
    const int r = find_root(parent, i);
    if (island_of_root[r] < 0) {
      island_of_root[r] = static_cast<int>(out.size());
      out.emplace_back();
    }
    out[island_of_root[r]].push_back(i);
  }
  return out;
}

MatX dense_delassus(const Problem& p, const Operators& ops, const std::vector<int>& rows) {
  const int m = static_cast<int>(rows.size());
  std::vector<Eigen::Triplet<double>> tj, tw;
  for (int a = 0; a < m; ++a) {
    for (SparseRows::InnerIterator it(p.J, rows[a]); it; ++it) tj.emplace_back(a, it.col(), it.value());
    for (SparseRows::InnerIterator it(ops.W, rows[a]); it; ++it) tw.emplace_back(a, it.col(), it.value());
  }
  SparseRows Js(m, p.nv), Ws(m, p.nv);
  Js.setFromTriplets(tj.begin(), tj.end());
  Ws.setFromTriplets(tw.begin(), tw.end());
  MatX A = MatX(SparseRows(Js * SparseRows(Ws.transpose())));
  for (int a = 0; a < m; ++a) A(a, a) += p.compliance[rows[a]];
  return A;
}

// ---- residual -------------------------------------------------------------------------

namespace {

double clamp(double x, double lo, double hi) { return std::min(std::max(x, lo), hi); }

double box_row_residual(double lambda, double w, double D, double lo, double hi) {
  if (D <= 0.0) return 0.0;  // a row that sees no dof and has no compliance: no equation
  return D * std::abs(lambda - clamp(lambda - w / D, lo, hi));
}

double contact_residual(const Problem& p, const Operators& ops, const ContactRows& c,
                        const VecX& lambda, const VecX& w) {
  const double ln = lambda[c.normal];
  const double bound = friction_bound(c.mu, ln);
  double r = 0.0;
  switch (c.treatment) {
    case FrictionTreatment::BoxFixed:
      for (int i : c.friction) r = std::max(r, box_row_residual(lambda[i], w[i], ops.D[i], p.lo[i], p.hi[i]));
      break;
    case FrictionTreatment::BoxScaled:
      for (int i : c.friction) r = std::max(r, box_row_residual(lambda[i], w[i], ops.D[i], -bound, bound));
      break;
    case FrictionTreatment::Cone: {
      const int a = c.friction[0], b = c.friction[1];
      const double Dm = 0.5 * (ops.D[a] + ops.D[b]);
      Eigen::Vector2d lt(lambda[a], lambda[b]);
      Eigen::Vector2d y = lt - Eigen::Vector2d(w[a], w[b]) / Dm;
      if (y.norm() > bound) y *= bound / y.norm();
      r = Dm * (lt - y).norm();
      break;
    }
    case FrictionTreatment::Polyhedral: {
      double wmin = std::numeric_limits<double>::infinity(), sum = 0.0, Dm = 0.0;
      for (int i : c.friction) {
        wmin = std::min(wmin, w[i]);
        sum += lambda[i];
        Dm += ops.D[i] / c.friction.size();
      }
      const double s = std::max(0.0, -wmin);
      for (int i : c.friction)
        r = std::max(r, box_row_residual(lambda[i], w[i] + s, ops.D[i], 0.0, kInf));
      r = std::max(r, std::abs(s - std::max(0.0, s - Dm * (c.mu * ln - sum))));
      break;
    }
  }
  if (c.torsion >= 0) {
    const double tb = friction_bound(c.torsion_mu, ln);
    r = std::max(r, box_row_residual(lambda[c.torsion], w[c.torsion], ops.D[c.torsion], -tb, tb));
  }
  return r;
}

}  // namespace

double complementarity_residual(const Problem& p, const VecX& lambda) {
  return complementarity_residual(p, make_operators(p), lambda);
}

double complementarity_residual(const Problem& p, const Operators& ops, const VecX& lambda) {
  const VecX v = velocity_of(p, ops, lambda);
  const VecX w = row_residual(p, v, lambda);
  double r = 0.0;
  for (int i = 0; i < p.nrows(); ++i)
    if (p.kind[i] != RowKind::Friction && ops.D[i] > 0.0)
      r = std::max(r, box_row_residual(lambda[i], w[i], ops.D[i], p.lo[i], p.hi[i]));
  for (const ContactRows& c : p.contacts) r = std::max(r, contact_residual(p, ops, c, lambda, w));
  return r;
}

}  // namespace graspsim::spook
