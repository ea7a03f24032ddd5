#include "spook/operators.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace graspsim::spook {
namespace {

void fill_tree_of(const Problem& problem, std::vector<int>& tree_of) {
  tree_of.assign(problem.nv, -1);
  for (int t = 0; t < static_cast<int>(problem.trees.size()); ++t) {
    const Tree& tree = problem.trees[t];
    for (int k = 0; k < tree.nv; ++k) tree_of[tree.v_begin + k] = t;
  }
}

// The message is built only on failure: validate runs every step, over every row.
template <class Message>
void check(bool cond, Message&& what) {
  if (!cond) throw std::invalid_argument("spook::Problem: " + std::string(what()));
}

int find_root(std::vector<int>& parent, int i) {
  while (parent[i] != i) i = parent[i] = parent[parent[i]];
  return i;
}

// Islands by union-find over the trees: a row unites the trees of its runs, a contact the
// trees of its rows. A row is in its first tree's island; a row on no tree in its contact's
// (keyed by the contact's normal row when no row of the contact is on a tree), or alone.
// (Nodes for the rows too would cost most of the time: the Iterative solve asks for islands
// at every rebuild, for its interleaved sweep.)
void find_islands(const Problem& p, Operators& ops) {
  const int n = p.nrows(), nt = static_cast<int>(p.trees.size());
  std::vector<int>& parent = ops.parent;
  parent.resize(static_cast<size_t>(nt) + n);  // trees, then keys nt + i of rows on no tree
  std::iota(parent.begin(), parent.end(), 0);
  auto unite = [&](int a, int b) {
    a = find_root(parent, a), b = find_root(parent, b);
    if (a != b) parent[a] = b;
  };
  auto first_tree = [&](int i) {
    return ops.row_run_begin[i] < ops.row_run_begin[i + 1] ? ops.runs[ops.row_run_begin[i]].tree : -1;
  };
  for (int i = 0; i < n; ++i)
    for (int k = ops.row_run_begin[i] + 1; k < ops.row_run_begin[i + 1]; ++k) unite(ops.runs[k - 1].tree, ops.runs[k].tree);
  std::vector<int>& contact_key = ops.tree_rows;  // per contact: a tree of its rows, or its normal's key
  contact_key.resize(p.contacts.size());
  for (size_t c = 0; c < p.contacts.size(); ++c) {
    const ContactRows& cr = p.contacts[c];
    int t = first_tree(cr.normal);
    auto join = [&](int r) {
      const int tr = first_tree(r);
      if (tr < 0 || tr == t) return;
      if (t < 0) t = tr;
      else unite(tr, t);
    };
    for (int r : cr.friction) join(r);
    if (cr.torsion >= 0) join(cr.torsion);
    contact_key[c] = t >= 0 ? t : nt + cr.normal;
  }
  std::vector<int>& key = ops.touched;  // each row's root; then (below) its island
  key.resize(n);
  for (int i = 0; i < n; ++i) {
    const int t = first_tree(i), c = ops.contact_of_row[i];
    key[i] = find_root(parent, t >= 0 ? t : c >= 0 ? contact_key[c] : nt + i);
  }
  ops.island_of_root.assign(parent.size(), -1);
  ops.island_begin.assign(1, 0);
  for (int i = 0; i < n; ++i) {  // (touched: from key to the island of each row, in place)
    const int r = key[i];
    if (ops.island_of_root[r] < 0) {
      ops.island_of_root[r] = static_cast<int>(ops.island_begin.size()) - 1;
      ops.island_begin.push_back(0);
    }
    ops.touched[i] = ops.island_of_root[r];
    ++ops.island_begin[ops.touched[i] + 1];
  }
  for (size_t k = 1; k < ops.island_begin.size(); ++k) ops.island_begin[k] += ops.island_begin[k - 1];
  ops.island_rows.resize(n);
  ops.tree_first.assign(ops.island_begin.begin(), ops.island_begin.end());  // fill cursors
  for (int i = 0; i < n; ++i) ops.island_rows[ops.tree_first[ops.touched[i]]++] = i;
}

}  // namespace

void validate(const Problem& p) {
  std::vector<int> owner;
  validate(p, owner);
}

void validate(const Problem& p, std::vector<int>& owner) {
  const int n = p.nrows();
  check(p.nv >= 0 && p.J.cols() == p.nv, [] { return "J must have nv columns"; });
  check(p.v_free.size() == p.nv, [] { return "v_free must have nv entries"; });
  check(p.target.size() == n && p.compliance.size() == n && p.lo.size() == n && p.hi.size() == n,
        [] { return "target, compliance, lo and hi must have one entry per row of J"; });
  check(static_cast<int>(p.kind.size()) == n, [] { return "kind must have one entry per row"; });
  check(p.lambda_warm.size() == 0 || p.lambda_warm.size() == n,
        [] { return "lambda_warm must be empty or nrows"; });
  int end = 0;  // trees are disjoint when each starts at or after the previous one's end...
  bool sorted = true;
  for (const Tree& t : p.trees) {
    check(t.v_begin >= 0 && t.nv >= 0 && t.v_begin + t.nv <= p.nv, [] { return "tree dof range out of bounds"; });
    check(t.M_llt.rows() == t.nv || t.sparse(), [] { return "tree M_llt size differs from its nv"; });
    sorted = sorted && t.v_begin >= end;
    end = t.v_begin + t.nv;
  }
  if (!sorted) {  // ...otherwise count coverage
    std::vector<int> covered(p.nv, 0);
    for (const Tree& t : p.trees)
      for (int k = 0; k < t.nv; ++k) check(++covered[t.v_begin + k] == 1, [] { return "trees overlap"; });
  }
  for (int i = 0; i < n; ++i) {
    check(p.compliance[i] >= 0.0, [&] { return "compliance of row " + std::to_string(i) + " is negative"; });
    check(p.lo[i] <= p.hi[i], [&] { return "lo > hi in row " + std::to_string(i); });
  }
  owner.assign(n, -1);
  auto check_friction_row = [&](int c, int r) {
    check(r >= 0 && r < n, [&] { return "contact " + std::to_string(c) + ": friction row out of range"; });
    check(p.kind[r] == RowKind::Friction,
          [&] { return "contact " + std::to_string(c) + ": friction row is not of kind Friction"; });
    check(owner[r] < 0, [&] { return "row " + std::to_string(r) + " belongs to two contacts"; });
    owner[r] = c;
  };
  for (int c = 0; c < static_cast<int>(p.contacts.size()); ++c) {
    const ContactRows& cr = p.contacts[c];
    auto name = [c] { return "contact " + std::to_string(c); };
    check(cr.normal >= 0 && cr.normal < n, [&] { return name() + ": normal row out of range"; });
    check(p.kind[cr.normal] == RowKind::Normal, [&] { return name() + ": normal row is not of kind Normal"; });
    check(cr.mu >= 0.0, [&] { return name() + ": negative friction coefficient"; });
    if (cr.treatment == FrictionTreatment::Cone)
      check(cr.friction.size() == 2, [&] { return name() + ": cone friction needs exactly two rows"; });
    for (int r : cr.friction) check_friction_row(c, r);
    if (cr.torsion >= 0) {
      check(cr.torsion_mu >= 0.0, [&] { return name() + ": negative torsional friction"; });
      check_friction_row(c, cr.torsion);
    }
  }
  for (int i = 0; i < n; ++i)
    check(p.kind[i] != RowKind::Friction || owner[i] >= 0,
          [&] { return "friction row " + std::to_string(i) + " belongs to no contact"; });
}

namespace {

// J's row i as raw arrays (J may be uncompressed when a caller built it by insert()).
struct RowSpan {
  const int* col;
  const double* val;
  int size;
};
RowSpan row_span(const SparseRows& J, int i) {
  const int begin = J.outerIndexPtr()[i];
  const int size = J.isCompressed() ? J.outerIndexPtr()[i + 1] - begin : J.innerNonZeroPtr()[i];
  return {J.innerIndexPtr() + begin, J.valuePtr() + begin, size};
}

// M_t⁻¹ of every small tree factored by M_llt. A tree whose factor is bitwise the one of the
// last call (a constant mass block: a lone free body, a slider on the world) keeps its inverse.
void small_inverses(const Problem& p, Operators& ops) {
  ops.minv_offset.assign(p.trees.size(), -1);
  size_t size = 0;
  for (size_t t = 0; t < p.trees.size(); ++t)
    if (p.trees[t].nv <= kDenseInverseMaxNv && !p.trees[t].sparse()) {  // (a sparse tree keeps its solves)
      ops.minv_offset[t] = static_cast<int>(size);
      size += static_cast<size_t>(p.trees[t].nv) * p.trees[t].nv;
    }
  ops.minv.resize(size);
  ops.minv_key.resize(size);
  if (ops.minv_key_nv.size() != p.trees.size()) ops.minv_key_nv.assign(p.trees.size(), -1);
  for (size_t t = 0; t < p.trees.size(); ++t) {
    const int o = ops.minv_offset[t], nv = p.trees[t].nv;
    if (o < 0) {
      ops.minv_key_nv[t] = -1;
      continue;
    }
    const MatX& factor = p.trees[t].M_llt.matrixLLT();
    double* key = ops.minv_key.data() + o;
    const size_t bytes = sizeof(double) * static_cast<size_t>(nv) * nv;
    if (ops.minv_key_nv[t] == nv && ops.minv_key_offset[t] == o && std::memcmp(key, factor.data(), bytes) == 0)
      continue;
    std::memcpy(key, factor.data(), bytes);
    if (nv == 6) {  // free bodies: M⁻¹ = L⁻ᵀ L⁻¹ in fixed size (a dynamic 6 × 6 solve costs ~4× more)
      using Mat6c = Eigen::Matrix<double, 6, 6>;
      Mat6c Linv = Mat6c::Identity();
      Eigen::Map<const Mat6c>(factor.data()).triangularView<Eigen::Lower>().solveInPlace(Linv);
      Eigen::Map<Mat6c>(ops.minv.data() + o).noalias() = Linv.transpose() * Linv;
    } else {
      Eigen::Map<MatX> Mi(ops.minv.data() + o, nv, nv);
      Mi.setIdentity();
      p.trees[t].M_llt.solveInPlace(Mi);
    }
    ops.minv_key_nv[t] = nv;
  }
  ops.minv_key_offset = ops.minv_offset;
}

// y = M⁻¹ x for a tree of NV dofs (Mi column-major, x dense); returns x·y.
template <int NV>
double minv_times(const double* Mi, const double* x, double* y) {
  using Vec = Eigen::Matrix<double, NV, 1>;
  const Eigen::Map<const Vec> xm(x);
  Eigen::Map<Vec> ym(y);
  ym.noalias() = Eigen::Map<const Eigen::Matrix<double, NV, NV>>(Mi) * xm;
  return xm.dot(ym);
}

// Operators::free_contacts of one contact.
Operators::FreeContact free_contact(const Operators& ops, const ContactRows& c) {
  Operators::FreeContact f;
  if (c.friction.size() != 2 || c.friction[0] != c.normal + 1 || c.friction[1] != c.normal + 2) return f;
  const int rows[3] = {c.normal, c.friction[0], c.friction[1]};
  const int first = ops.row_run_begin[c.normal];
  const int count = ops.row_run_begin[c.normal + 1] - first;
  if (count < 1 || count > 2) return f;
  int expected_offset = ops.runs[first].offset;
  for (int i : rows) {
    if (ops.row_run_begin[i + 1] - ops.row_run_begin[i] != count) return f;
    for (int k = 0; k < count; ++k) {
      const Run& r = ops.runs[ops.row_run_begin[i] + k];
      if (r.nv != 6 || r.tree != ops.runs[first + k].tree || r.offset != expected_offset) return f;
      expected_offset += 6;
    }
  }
  f.runs = count;
  f.offset = ops.runs[first].offset;
  for (int k = 0; k < count; ++k) f.v_begin[k] = ops.runs[first + k].v_begin;
  return f;
}

}  // namespace

namespace {

// A run on a tree in mass-diagonal coordinates: J L⁻¹ and W are nonzero on J's dofs
// (cols[0 .. count), each ≥ vb) and their ancestors, which become the run's sparse entries.
void diagonal_support(const TreeLdl& L, const int* cols, int count, int vb, Operators& ops, Run& run) {
  std::vector<char>& in = ops.in_support;
  in.assign(static_cast<size_t>(L.size()), 0);
  for (int c = 0; c < count; ++c) in[static_cast<size_t>(cols[c] - vb)] = 1;
  for (int k = L.size() - 1; k >= 0; --k)
    if (in[static_cast<size_t>(k)] && L.parent(k) >= 0) in[static_cast<size_t>(L.parent(k))] = 1;
  run.nz_begin = static_cast<int>(ops.run_nz.size());
  for (int k = 0; k < L.size(); ++k)
    if (in[static_cast<size_t>(k)]) ops.run_nz.push_back(k);
  run.nz = static_cast<int>(ops.run_nz.size()) - run.nz_begin;
  run.w_sparse = true;
}

// The free velocity in the operators' coordinates, and 1 / D of the mass-diagonal trees.
void diagonal_coordinates(const Problem& p, Operators& ops) {
  ops.v_free = p.v_free;
  ops.inv_mass.resize(p.nv);
  for (const Tree& t : p.trees) {
    if (!t.sparse()) continue;
    t.M_tree.multiply_L_in_place(ops.v_free.segment(t.v_begin, t.nv));
    for (int k = 0; k < t.nv; ++k) ops.inv_mass[t.v_begin + k] = 1.0 / t.M_tree.d(k);
  }
}

// Row i's runs: J's entries on each tree copied dense into jd (zeros where the row has none),
// W = M⁻¹Jᵀ into wd, and D_i and bias_i. With `layout` the runs are appended to ops.runs
// (their storage in jd / wd allocated from `used`); otherwise they are the last call's, in
// the same order, and only their values are written.
void fill_row(const Problem& p, Operators& ops, int i, bool layout, size_t& used) {
  const RowSpan row = row_span(p.J, i);
  int k = ops.row_run_begin[i];
  for (int e = 0; e < row.size;) {
    const int t = ops.tree_of[row.col[e]];
    if (t < 0) {  // a dof of no tree: its velocity is v_free whatever λ
      ops.bias[i] += row.val[e] * p.v_free[row.col[e]];
      ++e;
      continue;
    }
    const Tree& tree = p.trees[t];
    const int vb = tree.v_begin, nv = tree.nv;
    if (layout) {
      if (used + static_cast<size_t>(nv) > ops.jd.size()) {
        ops.jd.resize(2 * (used + static_cast<size_t>(nv)));
        ops.wd.resize(ops.jd.size());
      }
      ops.runs.push_back({t, vb, nv, static_cast<int>(used)});
      used += static_cast<size_t>(nv);
    }
    Run& run = ops.runs[k++];
    // J's run, dense: a copy when the row has all the tree's dofs (columns ascend and are
    // unique, so then they are exactly vb .. vb + nv − 1), else scattered over zeros.
    double* j = ops.jd.data() + run.offset;
    if (e + nv <= row.size && row.col[e] == vb && row.col[e + nv - 1] == vb + nv - 1) {
      std::copy(row.val + e, row.val + e + nv, j);
      e += nv;
    } else {
      std::fill(j, j + nv, 0.0);
      const int first = e;
      for (; e < row.size && row.col[e] < vb + nv; ++e) j[row.col[e] - vb] = row.val[e];
      if (layout && tree.sparse()) {
        diagonal_support(tree.M_tree, row.col + first, e - first, vb, ops, run);
      } else if (layout && (e - first == 1 || nv != 6)) {  // (a 6-dof run is dotted in packets: sparse only when single)
        run.nz_begin = static_cast<int>(ops.run_nz.size());
        run.nz = e - first;
        for (int c = first; c < e; ++c) ops.run_nz.push_back(row.col[c] - vb);
      }
    }
    double* y = ops.wd.data() + run.offset;  // W's run, written in place
    double xy = 0.0;
    if (ops.minv_offset[t] >= 0) {
      const double* Mi = ops.minv.data() + ops.minv_offset[t];
      if (nv == 6) {  // free bodies and sliders: sizes known to the compiler
        xy = minv_times<6>(Mi, j, y);
      } else if (nv == 1) {
        xy = minv_times<1>(Mi, j, y);
      } else {
        Eigen::Map<const VecX> jm(j, nv);
        Eigen::Map<VecX> ym(y, nv);
        ym.noalias() = Eigen::Map<const MatX>(Mi, nv, nv) * jm;
        xy = jm.dot(ym);
      }
    } else if (tree.sparse()) {  // mass-diagonal coordinates: J L⁻¹ and D⁻¹ (J L⁻¹)ᵀ
      Eigen::Map<VecX> jm(j, nv);
      tree.M_tree.solve_Lt_in_place(jm);
      const double* inv_mass = ops.inv_mass.data() + vb;
      for (int d = 0; d < nv; ++d) y[d] = j[d] * inv_mass[d];
      xy = jm.dot(Eigen::Map<const VecX>(y, nv));
    } else {  // a large tree with a dense factor (built by hand: the stepper factors those sparse)
      Eigen::Map<const VecX> jm(j, nv);
      Eigen::Map<VecX> ym(y, nv);
      ym = jm;
      tree.M_llt.solveInPlace(ym);
      xy = jm.dot(ym);
    }
    ops.D[i] += xy;
  }
}

// The sweep's items (Operators::sweep_items): the islands two at a time, their items
// alternated, each island's in row order; a cone contact on free bodies next to one of the
// other island is paired with it (sweep_paired). Why: a contact's update is a chain of
// dependent operations (dots, clamp, axpys, the disk projection) that the CPU overlaps with
// the next one's only when that one reads other velocities, and a pile's contacts come four
// to a pair of boxes; PGS steps a pair in one stream of instructions. The bits are those of
// row order: items of different islands touch no common tree, so they commute exactly
// (each reads and writes only its own trees' velocities and its own rows' impulses).
void order_sweep(const Problem& p, Operators& ops) {
  ops.sweep_items.clear();
  ops.sweep_paired.clear();
  ops.sweep_pairs = 0;
  ops.sweep_group_begin.clear();
  auto pairable = [&](int item) {
    return item >= 0 && p.contacts[item].treatment == FrictionTreatment::Cone && ops.free_contacts[item].runs > 0;
  };
  auto push = [&](int item, bool paired) {
    ops.sweep_items.push_back(item);
    ops.sweep_paired.push_back(paired);
  };
  for (int k = 0; k < ops.nislands(); k += 2) {
    ops.sweep_group_begin.push_back(static_cast<int>(ops.sweep_items.size()));
    int cursor[2] = {ops.island_begin[k], ops.island_begin[k + 1]};
    const int end[2] = {ops.island_begin[k + 1], ops.island_begin[std::min(k + 2, ops.nislands())]};
    for (;;) {
      int next[2] = {kNoSweepItem, kNoSweepItem};
      for (int g = 0; g < 2; ++g)
        while (next[g] == kNoSweepItem && cursor[g] < end[g]) next[g] = sweep_item_at(p, ops, ops.island_rows[cursor[g]++]);
      if (next[0] == kNoSweepItem && next[1] == kNoSweepItem) break;
      const bool pair = pairable(next[0]) && next[1] != kNoSweepItem && pairable(next[1]);
      ops.sweep_pairs += pair;
      for (int g = 0; g < 2; ++g)
        if (next[g] != kNoSweepItem) push(next[g], pair && g == 0);
    }
  }
  ops.sweep_group_begin.push_back(static_cast<int>(ops.sweep_items.size()));
}

// The dof of row i when its J is one entry on a tree, else −1.
int single_dof(const Problem& p, const Operators& ops, int i) {
  const RowSpan row = row_span(p.J, i);
  return row.size == 1 && ops.tree_of[row.col[0]] >= 0 ? row.col[0] : -1;
}

// Operators::twin: the first two bounded rows of no contact on each one-entry dof.
void find_twins(const Problem& p, Operators& ops) {
  const int n = p.nrows();
  ops.twin.assign(n, -1);
  ops.row_of_dof.assign(p.nv, -1);
  for (int i = 0; i < n; ++i) {
    if (p.kind[i] != RowKind::Bounded || ops.contact_of_row[i] >= 0) continue;
    const int d = single_dof(p, ops, i);
    if (d < 0) continue;
    const int first = ops.row_of_dof[d];
    if (first < 0) ops.row_of_dof[d] = i;
    else if (ops.twin[first] == -1) ops.twin[first] = i, ops.twin[i] = -2 - first;
  }
}

// Operators::twin_same, for this step's values.
void compare_twins(const Problem& p, Operators& ops) {
  const int n = p.nrows();
  ops.twin_same.assign(n, 0);
  ops.twin_inv_det.assign(n, 0.0);
  for (int i = 0; i < n; ++i) {
    const int k = ops.twin[i];
    if (k < 0) continue;
    const Run &a = ops.runs[ops.row_run_begin[i]], &b = ops.runs[ops.row_run_begin[k]];
    const auto bytes = static_cast<size_t>(a.nv) * sizeof(double);
    const double d = ops.D[i] - p.compliance[i], det = ops.D[i] * ops.D[k] - d * d;
    ops.twin_same[i] = std::memcmp(ops.jd.data() + a.offset, ops.jd.data() + b.offset, bytes) == 0 &&
                       std::memcmp(ops.wd.data() + a.offset, ops.wd.data() + b.offset, bytes) == 0 &&
                       ops.D[i] > 0.0 && ops.D[k] > 0.0 && det > 0.0;
    if (ops.twin_same[i]) ops.twin_inv_det[i] = 1.0 / det;
  }
}

// f(d) for each entry of run r that a gathered kernel reads, in order: its sparse entries on a
// tree in mass-diagonal coordinates, else all its dofs (d local to the tree).
template <class F>
void for_each_gathered(const Operators& ops, const Run& r, F&& f) {
  if (r.w_sparse) {
    for (int e = 0; e < r.nz; ++e) f(ops.run_nz[r.nz_begin + e]);
  } else {
    for (int d = 0; d < r.nv; ++d) f(d);
  }
}

// Operators::chain_of_contact of contact c: its width (0: not a chain contact), and its
// velocities appended to chain_dofs.
int chain_contact(Operators& ops, const ContactRows& c) {
  const int c0 = c.normal, first = ops.row_run_begin[c0], count = ops.row_run_begin[c0 + 1] - first;
  if (c.treatment != FrictionTreatment::Cone || c.friction[0] != c0 + 1 || c.friction[1] != c0 + 2) return 0;
  if (ops.free_contacts[static_cast<size_t>(ops.contact_of_row[c0])].runs > 0) return 0;
  int width = 0;
  bool diagonal = false;
  for (int k = 0; k < count; ++k) {
    const Run& r = ops.runs[first + k];
    diagonal = diagonal || r.w_sparse;
    width += r.w_sparse ? r.nz : r.nv;
    for (int q = 1; q < 3; ++q) {
      if (ops.row_run_begin[c0 + q + 1] - ops.row_run_begin[c0 + q] != count) return 0;
      const Run& o = ops.runs[ops.row_run_begin[c0 + q] + k];
      if (o.tree != r.tree || o.w_sparse != r.w_sparse || (r.w_sparse && o.nz != r.nz)) return 0;
      if (r.w_sparse && !std::equal(ops.run_nz.begin() + r.nz_begin, ops.run_nz.begin() + r.nz_begin + r.nz,
                                    ops.run_nz.begin() + o.nz_begin))
        return 0;
    }
  }
  if (!diagonal || width > Operators::kChainWidth) return 0;
  for (int k = 0; k < count; ++k) {
    const Run& r = ops.runs[first + k];
    for_each_gathered(ops, r, [&](int d) { ops.chain_dofs.push_back(r.v_begin + d); });
  }
  ops.chain_dofs.resize(ops.chain_dofs.size() + static_cast<size_t>(Operators::kChainWidth - width), 0);
  return width;
}

void find_chain_contacts(const Problem& p, Operators& ops) {
  ops.chain_of_contact.assign(p.contacts.size(), -1);
  ops.chain_width.clear();
  ops.chain_dofs.clear();
  for (size_t c = 0; c < p.contacts.size(); ++c)
    if (const int width = chain_contact(ops, p.contacts[c]); width > 0) {
      ops.chain_of_contact[c] = static_cast<int>(ops.chain_width.size());
      ops.chain_width.push_back(width);
    }
  const size_t values = 3 * static_cast<size_t>(Operators::kChainWidth) * ops.chain_width.size();
  ops.chain_j.assign(values, 0.0);
  ops.chain_w.assign(values, 0.0);
}

// This step's J and W of the chain contacts' rows, packed over their velocities.
void pack_chain_contacts(const Problem& p, Operators& ops) {
  constexpr int kW = Operators::kChainWidth;
  for (size_t c = 0; c < p.contacts.size(); ++c) {
    const int k = ops.chain_of_contact[c];
    if (k < 0) continue;
    for (int q = 0; q < 3; ++q) {
      const int i = p.contacts[c].normal + q;
      double* j = ops.chain_j.data() + static_cast<size_t>(kW) * (3 * k + q);
      double* w = ops.chain_w.data() + static_cast<size_t>(kW) * (3 * k + q);
      for (int r = ops.row_run_begin[i]; r < ops.row_run_begin[i + 1]; ++r) {
        const Run& run = ops.runs[r];
        const double* jd = ops.jd.data() + run.offset;
        const double* wd = ops.wd.data() + run.offset;
        for_each_gathered(ops, run, [&](int d) { *j++ = jd[d], *w++ = wd[d]; });
      }
    }
  }
}

// Operators::joint_rows: the rows of no contact (first twins included, second twins not) whose
// runs are all read entry by entry.
void find_joint_rows(const Problem& p, Operators& ops) {
  const int n = p.nrows();
  ops.joint_rows.clear();
  ops.joint_item_of_row.assign(n, -1);
  auto entries_read_one_by_one = [&](int i) {
    for (int r = ops.row_run_begin[i]; r < ops.row_run_begin[i + 1]; ++r)
      if (const Run& run = ops.runs[r]; !run.w_sparse && (run.nz >= 0 || run.nv == 6)) return false;
    return true;
  };
  for (int i = 0; i < n; ++i)
    if (ops.contact_of_row[i] < 0 && ops.twin[i] >= -1 && entries_read_one_by_one(i)) ops.joint_rows.push_back(i);
}

// Operators::joint_items for this step's values.
void pack_joint_items(const Problem& p, Operators& ops) {
  ops.joint_items.clear();
  ops.joint_dof.clear();
  ops.joint_j.clear();
  ops.joint_w.clear();
  for (int i : ops.joint_rows) {
    const int k = ops.twin[i];
    ops.joint_item_of_row[i] = -1;
    if (k >= 0 && !ops.twin_same[i]) continue;  // (stepped one after the other: joint_row)
    Operators::JointItem t;
    t.i = i, t.k = k;
    t.begin = static_cast<int>(ops.joint_dof.size());
    for (int r = ops.row_run_begin[i]; r < ops.row_run_begin[i + 1]; ++r) {
      const Run& run = ops.runs[r];
      for_each_gathered(ops, run, [&](int d) {
        ops.joint_dof.push_back(run.v_begin + d);
        ops.joint_j.push_back(ops.jd[static_cast<size_t>(run.offset + d)]);
        ops.joint_w.push_back(ops.wd[static_cast<size_t>(run.offset + d)]);
      });
    }
    t.count = static_cast<int>(ops.joint_dof.size()) - t.begin;
    t.bias_i = ops.bias[i], t.D_i = ops.D[i], t.inv_D_i = ops.inv_D[i], t.lo_i = p.lo[i], t.hi_i = p.hi[i];
    if (k >= 0) {
      t.bias_k = ops.bias[k], t.D_k = ops.D[k], t.inv_D_k = ops.inv_D[k], t.lo_k = p.lo[k], t.hi_k = p.hi[k];
      t.inv_det = ops.twin_inv_det[i];
    }
    ops.joint_item_of_row[i] = static_cast<int>(ops.joint_items.size());
    ops.joint_items.push_back(t);
  }
}

// Operators::sweep_joint_run.
void find_joint_runs(Operators& ops) {
  const size_t n = ops.sweep_items.size();
  ops.sweep_joint_run.assign(n, 0);
  for (size_t s = n; s-- > 0;)
    if (ops.sweep_items[s] < 0) ops.sweep_joint_run[s] = 1 + (s + 1 < n ? ops.sweep_joint_run[s + 1] : 0);
}

// Operators::chain_next and chain_follows.
void find_chain_runs(const Problem& p, Operators& ops) {
  constexpr int kW = Operators::kChainWidth;
  ops.chain_next.assign(p.contacts.size(), -1);
  ops.chain_follows.assign(p.contacts.size(), 0);
  auto chain = [&](int item) { return item >= 0 && p.contacts[item].torsion < 0 ? ops.chain_of_contact[item] : -1; };
  auto dofs = [&](int k) { return ops.chain_dofs.begin() + static_cast<std::ptrdiff_t>(kW) * k; };
  for (size_t s = 0; s + 1 < ops.sweep_items.size(); ++s) {
    const int a = chain(ops.sweep_items[s]), b = chain(ops.sweep_items[s + 1]);
    if (a < 0 || b < 0 || ops.sweep_paired[s] || ops.chain_width[a] != ops.chain_width[b]) continue;
    if (!std::equal(dofs(a), dofs(a) + kW, dofs(b))) continue;
    ops.chain_next[ops.sweep_items[s]] = ops.sweep_items[s + 1];
    ops.chain_follows[ops.sweep_items[s + 1]] = 1;
  }
}

// The contact maps, the twins, the free-body contacts, the islands and the sweep order:
// structure only.
void layout_contacts(const Problem& p, Operators& ops) {
  const int n = p.nrows();
  ops.contact_of_row.assign(n, -1);
  for (int c = 0; c < static_cast<int>(p.contacts.size()); ++c) {
    ops.contact_of_row[p.contacts[c].normal] = c;
    for (int r : p.contacts[c].friction) ops.contact_of_row[r] = c;
    if (p.contacts[c].torsion >= 0) ops.contact_of_row[p.contacts[c].torsion] = c;
  }
  find_twins(p, ops);
  ops.free_contacts.resize(p.contacts.size());
  for (size_t c = 0; c < p.contacts.size(); ++c) ops.free_contacts[c] = free_contact(ops, p.contacts[c]);
  find_chain_contacts(p, ops);
  find_islands(p, ops);
  order_sweep(p, ops);
  find_joint_runs(ops);
  find_chain_runs(p, ops);
  find_joint_rows(p, ops);
}

}  // namespace

void make_operators(const Problem& p, Operators& ops) {
  const int n = p.nrows();
  // (the sizes too: a cheap guard against a stamp reused by mistake)
  ops.layout_kept = p.structure != 0 && p.structure == ops.layout_structure &&
                    ops.row_run_begin.size() == static_cast<size_t>(n) + 1 &&
                    ops.tree_of.size() == static_cast<size_t>(p.nv) && ops.free_contacts.size() == p.contacts.size();
  ops.layout_structure = p.structure;
  ops.D = p.compliance;
  ops.bias = -p.target;
  small_inverses(p, ops);
  diagonal_coordinates(p, ops);
  size_t used = 0;
  if (!ops.layout_kept) {
    fill_tree_of(p, ops.tree_of);
    int max_nv = 0;
    for (const Tree& t : p.trees) max_nv = std::max(max_nv, t.nv);
    // A row's columns ascend and each tree owns a contiguous dof range, so a tree's entries
    // in the row are one run of them. Storage is kept from the previous step: jd and wd
    // grow only when a run would not fit (a contact or joint row touches at most two
    // trees: sized for that up front).
    ops.row_run_begin.resize(static_cast<size_t>(n) + 1);
    ops.runs.clear();
    ops.run_nz.clear();
    const size_t expected = static_cast<size_t>(n) * 2 * static_cast<size_t>(max_nv);
    if (ops.jd.size() < expected) ops.jd.resize(expected), ops.wd.resize(expected);
  }
  for (int i = 0; i < n; ++i) {
    if (!ops.layout_kept) ops.row_run_begin[i] = static_cast<int>(ops.runs.size());
    fill_row(p, ops, i, !ops.layout_kept, used);
  }
  ops.inv_D.resize(n);
  for (int i = 0; i < n; ++i) ops.inv_D[i] = ops.D[i] > 0.0 ? 1.0 / ops.D[i] : 0.0;
  if (!ops.layout_kept) {
    ops.row_run_begin[n] = static_cast<int>(ops.runs.size());
    layout_contacts(p, ops);
  }
  compare_twins(p, ops);
  pack_chain_contacts(p, ops);
  pack_joint_items(p, ops);
}

Operators make_operators(const Problem& p) {
  Operators ops;
  make_operators(p, ops);
  return ops;
}

void velocity_of(const Problem&, const Operators& ops, const VecX& lambda, VecX& v) {
  v = ops.v_free;
  for (Eigen::Index i = 0; i < lambda.size(); ++i)
    if (lambda[i] != 0.0) apply_impulse(ops, static_cast<int>(i), lambda[i], v.data());
}

VecX velocity_of(const Problem& p, const Operators& ops, const VecX& lambda) {
  VecX v;
  velocity_of(p, ops, lambda, v);
  return v;
}

void to_generalized(const Problem& p, VecX& v) {
  for (const Tree& t : p.trees)
    if (t.sparse()) t.M_tree.solve_L_in_place(v.segment(t.v_begin, t.nv));
}

VecX row_residual(const Problem& p, const VecX& v, const VecX& lambda) {
  return p.J * v + p.compliance.cwiseProduct(lambda) - p.target;
}

std::vector<std::vector<int>> islands(const Problem& p) {
  const Operators ops = make_operators(p);
  std::vector<std::vector<int>> out(ops.nislands());
  for (int k = 0; k < ops.nislands(); ++k)
    out[k].assign(ops.island_rows.begin() + ops.island_begin[k], ops.island_rows.begin() + ops.island_begin[k + 1]);
  return out;
}

using RowMajorMap = Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

namespace {

// dense_delassus for a small island: every pair of rows, merging their runs (each row
// touches at most a few trees, in ascending order), without the per-tree lists.
void dense_delassus_pairs(const Problem& p, const Operators& ops, const int* rows, int m, MatX& A) {
  for (int b = 0; b < m; ++b) {
    const int jb = rows[b];
    for (int a = b; a < m; ++a) {
      const int ja = rows[a];
      double sum = 0.0;
      int ka = ops.row_run_begin[ja], kb = ops.row_run_begin[jb];
      const int ea = ops.row_run_begin[ja + 1], eb = ops.row_run_begin[jb + 1];
      while (ka < ea && kb < eb) {
        const Run &ra = ops.runs[ka], &rb = ops.runs[kb];
        if (ra.tree < rb.tree) {
          ++ka;
        } else if (rb.tree < ra.tree) {
          ++kb;
        } else {
          const double* x = ops.jd.data() + ra.offset;
          const double* y = ops.wd.data() + rb.offset;
          for (int d = 0; d < ra.nv; ++d) sum += x[d] * y[d];
          ++ka, ++kb;
        }
      }
      A(a, b) = sum;
      A(b, a) = sum;  // J_a M⁻¹ J_bᵀ is symmetric
    }
  }
  for (int a = 0; a < m; ++a) A(a, a) += p.compliance[rows[a]];
}

// Islands up to this many rows take the pairwise path (m² run merges beat building the
// per-tree row lists there).
constexpr int kPairwiseDelassusMaxRows = 32;

}  // namespace

void dense_delassus(const Problem& p, Operators& ops, const int* rows, int m, MatX& A) {
  A.resize(m, m);
  if (m <= kPairwiseDelassusMaxRows) return dense_delassus_pairs(p, ops, rows, m, A);
  A.setZero();
  // Per tree, the local rows touching it (linked lists built backwards, so they ascend).
  const int ntrees = static_cast<int>(p.trees.size());
  ops.tree_first.assign(ntrees, -1);
  ops.tree_rows.clear();   // node k: local row tree_rows[2k], next node tree_rows[2k + 1]
  ops.first_row_of_tree.clear();  // trees in the order first met
  for (int a = m - 1; a >= 0; --a) {
    for (int k = ops.row_run_begin[rows[a]]; k < ops.row_run_begin[rows[a] + 1]; ++k) {
      const int t = ops.runs[k].tree;
      if (ops.tree_first[t] < 0) ops.first_row_of_tree.push_back(t);
      ops.tree_rows.push_back(a);
      ops.tree_rows.push_back(ops.tree_first[t]);
      ops.tree_first[t] = static_cast<int>(ops.tree_rows.size()) / 2 - 1;
    }
  }
  for (int t : ops.first_row_of_tree) {
    const Tree& tree = p.trees[t];
    int k = 0;
    for (int node = ops.tree_first[t]; node >= 0; node = ops.tree_rows[2 * node + 1]) ++k;
    if (static_cast<int>(ops.jt.size()) < k * tree.nv) ops.jt.resize(k * tree.nv), ops.wt.resize(k * tree.nv);
    RowMajorMap Jt(ops.jt.data(), k, tree.nv), Wt(ops.wt.data(), k, tree.nv);
    int r = 0;
    for (int node = ops.tree_first[t]; node >= 0; node = ops.tree_rows[2 * node + 1], ++r) {
      const int i = rows[ops.tree_rows[2 * node]];
      int k_run = ops.row_run_begin[i];  // the row's run on tree t: its J and W over the tree's dofs
      while (ops.runs[k_run].tree != t) ++k_run;
      const size_t off = static_cast<size_t>(ops.runs[k_run].offset);
      for (int d = 0; d < tree.nv; ++d) Jt(r, d) = ops.jd[off + d], Wt(r, d) = ops.wd[off + d];
    }
    int ra = 0;
    for (int na = ops.tree_first[t]; na >= 0; na = ops.tree_rows[2 * na + 1], ++ra) {
      const int a = ops.tree_rows[2 * na];
      int rb = 0;
      for (int nb = ops.tree_first[t]; nb >= 0; nb = ops.tree_rows[2 * nb + 1], ++rb)
        A(a, ops.tree_rows[2 * nb]) += Jt.row(ra).dot(Wt.row(rb));
    }
  }
  for (int a = 0; a < m; ++a) A(a, a) += p.compliance[rows[a]];
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
  VecX w;
  return complementarity_residual(p, ops, lambda, velocity_of(p, ops, lambda), w);
}

double complementarity_residual(const Problem& p, const Operators& ops, const VecX& lambda, const VecX& v, VecX& w) {
  w.resize(p.nrows());
  for (int i = 0; i < p.nrows(); ++i) w[i] = row_velocity(ops, i, v.data()) + p.compliance[i] * lambda[i];
  double r = 0.0;
  for (int i = 0; i < p.nrows(); ++i)
    if (p.kind[i] != RowKind::Friction && ops.D[i] > 0.0)
      r = std::max(r, box_row_residual(lambda[i], w[i], ops.D[i], p.lo[i], p.hi[i]));
  for (const ContactRows& c : p.contacts) r = std::max(r, contact_residual(p, ops, c, lambda, w));
  return r;
}

}  // namespace graspsim::spook
