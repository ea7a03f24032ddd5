#include "spook/pgs.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <type_traits>
#include <variant>

#include "solvers/friction_projection.h"

namespace graspsim::spook {
namespace {

// Row access of a sweep through the operators: w_i and v += W_i δ on v itself.
class GeneralRows {
 public:
  GeneralRows(const double* compliance, const Operators& ops, VecX& lambda, VecX& v)
      : compliance_(compliance), ops_(ops), lambda_(lambda), v_(v) {}
  double w(int i) const { return row_velocity(ops_, i, v_.data()) + compliance_[i] * lambda_[i]; }
  void apply(int i, double delta) { apply_impulse(ops_, i, delta, v_.data()); }

 private:
  const double* compliance_;
  const Operators& ops_;
  VecX& lambda_;
  VecX& v_;
};

// What the kernels of a contact's three rows below share: the rows are normal + 0, 1, 2, and
// J's and W's values for them start at J / W.
struct ContactRowsBase {
  const double* compliance;
  const Operators& ops;
  const VecX& lambda;
  int normal;
  const double* J;
  const double* W;
  int local(int i) const { return i - normal; }
  double w_of(int i, double jv) const { return ops.bias[i] + jv + compliance[i] * lambda[i]; }
};

// The same for the three rows of a chain contact (Operators::chain_of_contact): its
// velocities gathered on construction, stepped densely over kChainWidth (zero-padded; row q
// at J / W + kChainWidth q), and scattered back by store().
class ChainContactRows : ContactRowsBase {
 public:
  static constexpr int kW = Operators::kChainWidth;
  using VecW = Eigen::Matrix<double, kW, 1>;
  ChainContactRows(const double* compliance, const Operators& ops, const VecX& lambda, VecX& v,
                   const ContactRows& c, int k)
      : ContactRowsBase{compliance, ops, lambda, c.normal, ops.chain_j.data() + static_cast<size_t>(3 * kW) * k,
                        ops.chain_w.data() + static_cast<size_t>(3 * kW) * k},
        dofs_(ops.chain_dofs.data() + static_cast<size_t>(kW) * k), width_(ops.chain_width[k]), v_(v.data()) {
    y_.setZero();
    for (int a = 0; a < width_; ++a) y_[a] = v_[dofs_[a]];
  }
  double w(int i) const { return w_of(i, Eigen::Map<const VecW>(J + kW * local(i)).dot(y_)); }
  void apply(int i, double delta) { y_ += delta * Eigen::Map<const VecW>(W + kW * local(i)); }
  void store() {
    for (int a = 0; a < width_; ++a) v_[dofs_[a]] = y_[a];
  }
  // The rows of contact c, chain k, on the same velocities (Operators::chain_next).
  void rebind(const ContactRows& c, int k) {
    normal = c.normal;
    J = ops.chain_j.data() + static_cast<size_t>(3 * kW) * k;
    W = ops.chain_w.data() + static_cast<size_t>(3 * kW) * k;
  }

 private:
  const int* dofs_;
  int width_;
  double* v_;
  VecW y_;
};

// The same for the three rows of a contact on R free bodies (Operators::free_contacts): the
// bodies' velocities are held in registers from construction to store(); run r of row q at
// J / W + 6 (R q + r).
template <int R>
class FreeContactRows : ContactRowsBase {
 public:
  FreeContactRows(const double* compliance, const Operators& ops, const VecX& lambda, VecX& v,
                  const ContactRows& c, const Operators::FreeContact& f)
      : ContactRowsBase{compliance, ops, lambda, c.normal, ops.jd.data() + f.offset, ops.wd.data() + f.offset} {
    for (int r = 0; r < R; ++r) {
      vp_[r] = v.data() + f.v_begin[r];
      v_[r] = Eigen::Map<const Vec6>(vp_[r]);
    }
  }
  double w(int i) const {
    const int q = local(i);
    double jv = 0.0;
    for (int r = 0; r < R; ++r) jv += Eigen::Map<const Vec6>(J + 6 * (R * q + r)).dot(v_[r]);
    return w_of(i, jv);
  }
  void apply(int i, double delta) {
    const int q = local(i);
    for (int r = 0; r < R; ++r) v_[r] += delta * Eigen::Map<const Vec6>(W + 6 * (R * q + r));
  }
  void store() {
    for (int r = 0; r < R; ++r) Eigen::Map<Vec6>{vp_[r]} = v_[r];
  }

 private:
  double* vp_[R];
  Vec6 v_[R];
};

// A cone contact whose three rows act on R free bodies (Operators::free_contacts), written
// straight through: its rows are normal + 0, 1, 2, J's and W's runs at offset + 6 (R q + r),
// the bodies' velocities in two named members (an array indexed in a loop would stay in
// memory, stored after every update). The same updates in the same order as contact_rows'
// Cone case through FreeContactRows, so the same bits, without the treatments' switch and its
// spills. A lane, so that two contacts can be stepped in one stream of instructions.
template <int R>
struct ConeLane {
  static_assert(R == 1 || R == 2);
  ConeLane(const Problem& p, const double* compliance, const Operators& ops, VecX& lambda, VecX& v,
           const ContactRows& c, const Operators::FreeContact& f)
      : J(ops.jd.data() + f.offset), W(ops.wd.data() + f.offset), bias(ops.bias.data() + c.normal),
        comp(compliance + c.normal), D(ops.D.data() + c.normal), inv_D(ops.inv_D.data() + c.normal),
        lam(lambda.data() + c.normal), lo(p.lo[c.normal]), hi(p.hi[c.normal]), mu(c.mu),
        vp0(v.data() + f.v_begin[0]), vp1(v.data() + f.v_begin[R - 1]), v0(Eigen::Map<const Vec6>(vp0)) {
    if constexpr (R == 2) v1 = Eigen::Map<const Vec6>(vp1);
  }
  __attribute__((always_inline)) double w(int q) const {
    double jv = 0.0;
    jv += Eigen::Map<const Vec6>(J + 6 * R * q).dot(v0);
    if constexpr (R == 2) jv += Eigen::Map<const Vec6>(J + 6 * (R * q + 1)).dot(v1);
    return bias[q] + jv + comp[q] * lam[q];
  }
  __attribute__((always_inline)) void set(int q, double value) {
    const double delta = value - lam[q];
    if (delta == 0.0) return;
    lam[q] = value;
    v0 += delta * Eigen::Map<const Vec6>(W + 6 * R * q);
    if constexpr (R == 2) v1 += delta * Eigen::Map<const Vec6>(W + 6 * (R * q + 1));
  }
  __attribute__((always_inline)) void normal(bool with_normal) {
    if (with_normal && inv_D[0] != 0.0) set(0, std::clamp(lam[0] - w(0) * inv_D[0], lo, hi));
  }
  __attribute__((always_inline)) void friction() {
    const double bound = friction_bound(mu, lam[0]);
    const double inv = D[1] >= D[2] ? inv_D[1] : inv_D[2];  // (contact_rows' Cone case explains D̄)
    if (inv != 0.0) {
      double ya = lam[1] - w(1) * inv, yb = lam[2] - w(2) * inv;
      project_disk(ya, yb, bound);
      set(1, ya);
      set(2, yb);
    }
  }
  __attribute__((always_inline)) void store() {
    Eigen::Map<Vec6>{vp0} = v0;
    if constexpr (R == 2) Eigen::Map<Vec6>{vp1} = v1;
  }

  const double *J, *W, *bias, *comp, *D, *inv_D;
  double* lam;
  double lo, hi, mu;
  double *vp0, *vp1;
  Vec6 v0;
  [[no_unique_address]] std::conditional_t<R == 2, Vec6, std::monostate> v1;
};

// The 2×2 block of twin rows: A = [[a, d], [d, c]] (a = D_i, c = D_k, d = J M⁻¹ Jᵀ) and the
// rows' velocities w at the current impulses.
struct TwinBlock {
  double a, c, d, wi, wk;
  // 1 / (a c − d²) > 0 and 1 / a, 1 / c: per step, not per sweep (Operators::twin_inv_det,
  // inv_D): divisions are the longest links of the sweep's chain of dependent operations.
  double inv_det, inv_a, inv_c;
  double cost(double di, double dk) const {
    return 0.5 * (a * di * di + 2.0 * d * di * dk + c * dk * dk) + wi * di + wk * dk;
  }
  // The impulse changes (δ_i, δ_k) that minimise cost with λ + δ in the bounds: the
  // unconstrained point when it is inside them, else a point with one row at a finite bound
  // and the other at its best (clamped) value given it. The cost is strictly convex, so the
  // first such point where the row at its bound would not leave it (its gradient points out
  // of the box; the clamped row satisfies its own condition by construction) is the minimum.
  // Rounding can refuse every point by an ulp: then the cheapest of them.
  std::pair<double, double> solve(double li, double lk, double lo_i, double hi_i, double lo_k, double hi_k) const {
    const double di = (d * wk - c * wi) * inv_det, dk = (d * wi - a * wk) * inv_det;
    if (li + di >= lo_i && li + di <= hi_i && lk + dk >= lo_k && lk + dk <= hi_k) return {di, dk};
    // (Outside: some bound is finite, so there is a point below.)
    std::array<std::pair<double, double>, 4> points;
    int n = 0;
    for (double bound : {lo_i, hi_i}) {
      if (!std::isfinite(bound)) continue;
      const double ei = bound - li, ek = std::clamp(lk - (wk + d * ei) * inv_c, lo_k, hi_k) - lk;
      const double g = wi + a * ei + d * ek;  // ∂cost/∂δ_i
      if (bound == lo_i ? g >= 0.0 : g <= 0.0) return {ei, ek};
      points[static_cast<size_t>(n++)] = {ei, ek};
    }
    for (double bound : {lo_k, hi_k}) {
      if (!std::isfinite(bound)) continue;
      const double ek = bound - lk, ei = std::clamp(li - (wi + d * ek) * inv_a, lo_i, hi_i) - li;
      const double g = wk + d * ei + c * ek;  // ∂cost/∂δ_k
      if (bound == lo_k ? g >= 0.0 : g <= 0.0) return {ei, ek};
      points[static_cast<size_t>(n++)] = {ei, ek};
    }
    std::pair<double, double> best{0.0, 0.0};
    double best_cost = std::numeric_limits<double>::infinity();
    for (int m = 0; m < n; ++m)
      if (const double f = cost(points[m].first, points[m].second); f < best_cost) best_cost = f, best = points[m];
    return best;
  }
};

class Sweeper {
 public:
  // whole: every sweep visits Operators::sweep_items in their order (items()), so chain runs
  // are stepped at their first contact (Operators::chain_next); else items are visited one by
  // one in any order (pgs_sweeps' subsets).
  Sweeper(const Problem& p, const double* compliance, const Operators& ops, VecX& lambda, VecX& v, bool whole)
      : p_(p), compliance_(compliance), ops_(ops), lambda_(lambda), v_(v), general_(compliance, ops, lambda, v),
        whole_(whole) {}

  // Operators::sweep_items[first, last) once, pairs stepped together.
  __attribute__((always_inline)) void items(int first, int last, bool all) {
    const Operators& ops = ops_;
    if (ops.sweep_pairs == 0) {
      for (int k = first; k < last; ++k) k += step(k, last, all);
      return;
    }
    for (int k = first; k < last; ++k) {
      if (ops.sweep_paired[k]) {
        cone_pair(p_.contacts[ops.sweep_items[k]], p_.contacts[ops.sweep_items[k + 1]], all);
        ++k;
      } else {
        k += step(k, last, all);
      }
    }
  }

  // Sweep item k: a contact, or the run of rows of no contact from k (up to last) in one call;
  // how many items after k it stepped.
  __attribute__((always_inline)) int step(int k, int last, bool all) {
    if (const int item = ops_.sweep_items[k]; item >= 0) {
      contact(p_.contacts[item], all);
      return 0;
    }
    return joint_rows(k, last, all) - 1;
  }

  // Gauss-Seidel update of row i clamped to [lo, hi].
  void row(int i, double lo, double hi) { row(general_, i, lo, hi); }

  // One item of Operators::sweep_items visited alone (pgs_sweeps' subsets; a whole sweep
  // goes through step()): a contact, or a row of no contact (swept only with all rows).
  __attribute__((always_inline)) void item(int item, bool all) {
    if (item >= 0) contact(p_.contacts[item], all);
    else if (all) joint_row(-item - 1);
  }

  // Two cone contacts on free bodies that share no tree (Operators::sweep_paired), stepped
  // together: the same updates per contact as free_cone, interleaved, so that the CPU runs
  // the two contacts' dependency chains side by side.
  void cone_pair(const ContactRows& a, const ContactRows& b, bool with_normal) {
    const Operators::FreeContact& fa = ops_.free_contacts[ops_.contact_of_row[a.normal]];
    const Operators::FreeContact& fb = ops_.free_contacts[ops_.contact_of_row[b.normal]];
    if (fa.runs == 2 && fb.runs == 2) return cone_pair<2, 2>(a, fa, b, fb, with_normal);
    if (fa.runs == 2) return cone_pair<2, 1>(a, fa, b, fb, with_normal);
    if (fb.runs == 2) return cone_pair<1, 2>(a, fa, b, fb, with_normal);
    cone_pair<1, 1>(a, fa, b, fb, with_normal);
  }
  template <int RA, int RB>
  [[gnu::noinline]] void cone_pair(const ContactRows& a, const Operators::FreeContact& fa, const ContactRows& b,
                                   const Operators::FreeContact& fb, bool with_normal) {
    ConeLane<RA> A(p_, compliance_, ops_, lambda_, v_, a, fa);
    ConeLane<RB> B(p_, compliance_, ops_, lambda_, v_, b, fb);
    A.normal(with_normal);
    B.normal(with_normal);
    A.friction();
    B.friction();
    A.store();
    B.store();
    torsion(a);
    torsion(b);
  }

  __attribute__((always_inline)) void contact(const ContactRows& c, bool with_normal) {
    if (c.treatment != FrictionTreatment::Polyhedral) {
      const Operators::FreeContact& f = ops_.free_contacts[ops_.contact_of_row[c.normal]];
      if (c.treatment == FrictionTreatment::Cone) {  // (the iterative solvers' usual contact)
        if (f.runs == 1) return free_cone<1>(c, f, with_normal);
        if (f.runs == 2) return free_cone<2>(c, f, with_normal);
      }
      if (f.runs == 1) return free_contact<1>(c, f, with_normal);
      if (f.runs == 2) return free_contact<2>(c, f, with_normal);
      if (const int k = ops_.chain_of_contact[ops_.contact_of_row[c.normal]]; k >= 0)
        return chain_contact(c, k, with_normal);
    }
    general_contact(c, with_normal);
  }

 private:
  template <class Rows>
  void set(Rows& rows, int i, double value) {
    const double delta = value - lambda_[i];
    if (delta == 0.0) return;
    lambda_[i] = value;
    rows.apply(i, delta);
  }

  template <class Rows>
  void row(Rows& rows, int i, double lo, double hi) {
    if (ops_.inv_D[i] == 0.0) return;  // a row that sees no dof and has no compliance
    set(rows, i, std::clamp(lambda_[i] - rows.w(i) * ops_.inv_D[i], lo, hi));
  }

  // A contact whose three rows act on R free bodies: the same updates in the same order,
  // with the bodies' velocities held in registers.
  template <int R>
  void free_contact(const ContactRows& c, const Operators::FreeContact& f, bool with_normal) {
    FreeContactRows<R> rows(compliance_, ops_, lambda_, v_, c, f);
    contact_rows(rows, c, with_normal);
    rows.store();
    torsion(c);
  }

  // A chain contact (ChainContactRows), and in a whole sweep the rest of its run on the same
  // gather (Operators::chain_next): the same updates in the same order. Out of line, as
  // general_contact (the run's loop here, not in items(), keeps the free bodies' kernels
  // inlined there).
  [[gnu::noinline]] void chain_contact(const ContactRows& c, int k, bool with_normal) {
    int item = ops_.contact_of_row[c.normal];
    if (whole_ && ops_.chain_follows[item]) return;  // (stepped with its run's first)
    ChainContactRows rows(compliance_, ops_, lambda_, v_, c, k);
    for (const ContactRows* d = &c;;) {
      contact_rows(rows, *d, with_normal);
      if (!whole_ || (item = ops_.chain_next[item]) < 0) break;
      d = &p_.contacts[item];
      rows.rebind(*d, ops_.chain_of_contact[item]);
    }
    rows.store();
    torsion(c);
  }

  // Any other contact, row by row on v. Out of line: inlined, its frame would be set up for
  // every contact that contact() dispatches.
  [[gnu::noinline]] void general_contact(const ContactRows& c, bool with_normal) {
    contact_rows(general_, c, with_normal);
    torsion(c);
  }

  // A cone contact on R free bodies (ConeLane): the same updates in the same order as
  // contact_rows' Cone case through FreeContactRows, so the same bits, without the
  // treatments' switch and its spills.
  template <int R>
  __attribute__((always_inline)) void free_cone(const ContactRows& c, const Operators::FreeContact& f, bool with_normal) {
    ConeLane<R> lane(p_, compliance_, ops_, lambda_, v_, c, f);
    lane.normal(with_normal);
    lane.friction();
    lane.store();
    torsion(c);
  }

  // The normal, then the friction rows projected per the contact's treatment, using the
  // contact's current normal impulse.
  template <class Rows>
  void contact_rows(Rows& rows, const ContactRows& c, bool with_normal) {
    if (with_normal) row(rows, c.normal, p_.lo[c.normal], p_.hi[c.normal]);
    const double bound = friction_bound(c.mu, lambda_[c.normal]);
    switch (c.treatment) {
      case FrictionTreatment::BoxFixed:
        for (int i : c.friction) row(rows, i, p_.lo[i], p_.hi[i]);
        break;
      case FrictionTreatment::BoxScaled:
        for (int i : c.friction) row(rows, i, -bound, bound);
        break;
      case FrictionTreatment::Cone: {
        // Both rows take one projected step with a common scale D̄: then a fixed point has
        // w_t ∥ −λ_t on the cone's rim (maximal dissipation). Per-row scales D_a ≠ D_b give
        // w_t ∥ D λ_t instead, friction off the slip direction (20° at a sliding box's
        // corners). D̄ = max(D_a, D_b) ≥ λ_max/2 of the pair's block keeps the step stable.
        // free_cone repeats these steps for free bodies (a test holds the two to the same bits:
        // sharing this code through FreeContactRows cost a third more sweep instructions).
        const int a = c.friction[0], b = c.friction[1];
        const double inv = ops_.D[a] >= ops_.D[b] ? ops_.inv_D[a] : ops_.inv_D[b];  // 1 / max(D_a, D_b)
        if (inv == 0.0) break;
        double ya = lambda_[a] - rows.w(a) * inv, yb = lambda_[b] - rows.w(b) * inv;
        project_disk(ya, yb, bound);
        set(rows, a, ya);
        set(rows, b, yb);
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
        for (int a = 0; a < k; ++a) y[a] = lambda_[c.friction[a]] - rows.w(c.friction[a]) / L;
        y = project_capped_simplex(y, bound);
        for (int a = 0; a < k; ++a) set(rows, c.friction[a], y[a]);
        break;
      }
    }
  }

  // The run of rows of no contact from sweep item k up to last (Operators::sweep_joint_run),
  // stepped only with all rows; how many items. (One call for the run: a call per row cost a
  // sixth of their instructions in saving and restoring registers.)
  [[gnu::noinline]] int joint_rows(int k, int last, bool all) {
    const int n = std::min(ops_.sweep_joint_run[k], last - k);
    if (!all) return n;
    for (int m = k; m < k + n; ++m) {
      const int i = -ops_.sweep_items[m] - 1;
      if (const int t = ops_.joint_item_of_row[i]; t >= 0) joint_item(ops_.joint_items[t]);
      else joint_row(i);
    }
    return n;
  }

  // A row of no contact, or twin rows. (Out of line: the contact kernels stay inlined.)
  [[gnu::noinline]] void joint_row(int i) {
    if (const int t = ops_.joint_item_of_row[i]; t >= 0) return joint_item(ops_.joint_items[t]);
    if (ops_.twin[i] >= 0) return twin_rows(i, ops_.twin[i]);
    row(i, p_.lo[i], p_.hi[i]);
  }

  // A packed row of no contact, or twin rows (Operators::joint_items): joint_row's updates, in
  // its order, from the item's record and entries.
  __attribute__((always_inline)) void joint_item(const Operators::JointItem& t) {
    const int* dof = ops_.joint_dof.data() + t.begin;
    const double* J = ops_.joint_j.data() + t.begin;
    double* v = v_.data();
    double jv = 0.0;
    for (int e = 0; e < t.count; ++e) jv += J[e] * v[dof[e]];
    const int i = t.i;
    double delta;
    if (t.k < 0) {
      if (t.inv_D_i == 0.0) return;
      const double value = std::clamp(lambda_[i] - (t.bias_i + jv + compliance_[i] * lambda_[i]) * t.inv_D_i, t.lo_i, t.hi_i);
      delta = value - lambda_[i];
      if (delta == 0.0) return;
      lambda_[i] = value;
    } else {
      const int k = t.k;
      const double ci = compliance_[i], ck = compliance_[k];
      const TwinBlock b{t.D_i, t.D_k, t.D_i - ci, t.bias_i + jv + ci * lambda_[i], t.bias_k + jv + ck * lambda_[k],
                        t.inv_det, t.inv_D_i, t.inv_D_k};
      if (!twin_step(b, i, k, t.lo_i, t.hi_i, t.lo_k, t.hi_k, delta)) return;
    }
    const double* W = ops_.joint_w.data() + t.begin;
    for (int e = 0; e < t.count; ++e) v[dof[e]] += W[e] * delta;
  }

  // Twin rows i and k (Operators::twin): one J, one W, so one J·v and one update of v for
  // the exact solution of their 2×2 block; the two rows one after the other when this
  // step's J or W differ.
  void twin_rows(int i, int k) {
    const double jv = row_dot(ops_, i, v_.data());
    const double ci = compliance_[i], ck = compliance_[k];
    const TwinBlock b{ops_.D[i],  ops_.D[k],   ops_.D[i] - ci, ops_.bias[i] + jv + ci * lambda_[i],
                      ops_.bias[k] + jv + ck * lambda_[k], ops_.twin_inv_det[i], ops_.inv_D[i], ops_.inv_D[k]};
    if (!ops_.twin_same[i]) {
      row(i, p_.lo[i], p_.hi[i]);
      row(k, p_.lo[k], p_.hi[k]);
      return;
    }
    if (double delta; twin_step(b, i, k, p_.lo[i], p_.hi[i], p_.lo[k], p_.hi[k], delta))
      apply_impulse(ops_, i, delta, v_.data());
  }

  // The exact step of twins i and k on their 2×2 block b: λ updated, and delta the change of
  // their summed impulse on their common W; false when the step leaves them as they are.
  bool twin_step(const TwinBlock& b, int i, int k, double lo_i, double hi_i, double lo_k, double hi_k, double& delta) {
    const auto [di, dk] = b.solve(lambda_[i], lambda_[k], lo_i, hi_i, lo_k, hi_k);
    if (di == 0.0 && dk == 0.0) return false;
    lambda_[i] += di;
    lambda_[k] += dk;
    delta = di + dk;
    return true;
  }

  // Torsional friction (a row of its own, on v itself).
  void torsion(const ContactRows& c) {
    if (c.torsion >= 0) torsion_row(c);
  }
  [[gnu::noinline]] void torsion_row(const ContactRows& c) {  // (out of line: the contact kernels stay lean)
    const double tb = friction_bound(c.torsion_mu, lambda_[c.normal]);
    row(general_, c.torsion, -tb, tb);
  }

  const Problem& p_;
  const double* compliance_;
  const Operators& ops_;
  VecX& lambda_;
  VecX& v_;
  GeneralRows general_;
  bool whole_;
};

}  // namespace

namespace {

// pgs_sweep_items with a tolerance. Each group of islands on its own until converged: groups
// share no dof, so this is the bits of sweeping them side by side, and a group's sweeps do
// not depend on how the groups are split over threads. The test reads every row's velocity
// w_i once per kStopCheck sweeps (a few % of their cost) and compares it with the last
// reading. (A function of its own: in pgs_sweep_items, its copy of the sweep would cost the
// plain sweep its inlined contact kernels.)
[[gnu::noinline]] int sweep_items_until_still(const Problem& p, const Operators& ops, bool all, int sweeps,
                                              VecX& lambda, VecX& v, int first, int last, const double* comp,
                                              const SweepStop& stop) {
  Sweeper sweeper(p, comp, ops, lambda, v, true);
  const std::vector<int>& groups = ops.sweep_group_begin;
  double* w = stop.w;
  int most = 0;
  for (auto g = std::lower_bound(groups.begin(), groups.end(), first); g + 1 < groups.end() && *g < last; ++g) {
    const int island = 2 * static_cast<int>(g - groups.begin());
    const int* row_begin = ops.island_rows.data() + ops.island_begin[island];
    const int* row_end = ops.island_rows.data() + ops.island_begin[std::min(island + 2, ops.nislands())];
    auto largest_change = [&] {
      double change = 0.0;
      for (const int* r = row_begin; r != row_end; ++r) {
        const double wi = row_velocity(ops, *r, v.data()) + comp[*r] * lambda[*r];
        change = std::max(change, std::abs(wi - w[*r]));
        w[*r] = wi;
      }
      return change;
    };
    largest_change();
    int s = 0;
    while (s < sweeps) {
      sweeper.items(*g, *(g + 1), all);
      if (++s % kStopCheck == 0 && s < sweeps && largest_change() <= kStopCheck * stop.tolerance) break;
    }
    most = std::max(most, s);
  }
  return most;
}

}  // namespace

int pgs_sweep_items(const Problem& p, const Operators& ops, SweepRows rows, int sweeps, VecX& lambda, VecX& v,
                    int first, int last, const VecX* compliance, const SweepStop& stop) {
  const double* comp = (compliance ? *compliance : p.compliance).data();
  const bool all = rows == SweepRows::All;
  if (stop.tolerance > 0.0) return sweep_items_until_still(p, ops, all, sweeps, lambda, v, first, last, comp, stop);
  Sweeper sweeper(p, comp, ops, lambda, v, true);
  for (int s = 0; s < sweeps; ++s) sweeper.items(first, last, all);
  return sweeps;
}

int pgs_sweeps(const Problem& p, const Operators& ops, SweepRows rows, int sweeps, VecX& lambda,
               VecX& v, const std::vector<int>* subset, const VecX* compliance, const SweepStop& stop) {
  if (!subset)
    return pgs_sweep_items(p, ops, rows, sweeps, lambda, v, 0, static_cast<int>(ops.sweep_items.size()), compliance, stop);
  Sweeper sweeper(p, (compliance ? *compliance : p.compliance).data(), ops, lambda, v, false);
  const bool all = rows == SweepRows::All;
  for (int s = 0; s < sweeps; ++s)
    for (int i : *subset)
      if (const int item = sweep_item_at(p, ops, i); item != kNoSweepItem) sweeper.item(item, all);
  return sweeps;
}

}  // namespace graspsim::spook
