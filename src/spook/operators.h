#pragma once
// Matrix-free pieces of the Delassus operator A = J M⁻¹ Jᵀ + diag(compliance), built from
// the tree blocks: per row its dense runs of J and W_i = M⁻¹ J_iᵀ on each tree it touches,
// the diagonal of A, the islands (rows coupled through shared trees or a shared contact)
// and dense island blocks.

#include <Eigen/SparseCore>
#include <algorithm>
#include <limits>
#include <vector>

#include "spook/problem.h"

namespace graspsim::spook {

using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

// Built once per solve into storage that is kept between steps (resized only when the
// problem grows), so a steady-state step allocates nothing here.
// Trees up to this many dofs get an explicit inverse mass block (free bodies: 6).
constexpr int kDenseInverseMaxNv = 12;

// A row's entries on one tree's dofs [v_begin, v_begin + nv): J and W = M⁻¹Jᵀ there,
// dense (zeros included) at jd / wd + offset.
struct Run {
  int tree = 0;
  int v_begin = 0;
  int nv = 0;
  int offset = 0;
  // When J's run is sparse: its entries' dofs (0 … nv − 1, ascending) at Operators::run_nz +
  // nz_begin, and their count; nz = −1 to dot the run dense. A servo or joint-friction row on
  // the 24-dof hand is then one product and a fingertip contact ~7, not 24; the same bits as
  // the dense loop, whose other terms are zeros (a 6-dof run stays dense, but for one entry).
  int nz_begin = 0;
  int nz = -1;
  // W's run is zero off those entries too: a tree in mass-diagonal coordinates (below).
  bool w_sparse = false;
};

// The operators' coordinates. A tree factored without fill-in (Tree::sparse, M = Lᵀ D L) is
// solved in y = L v, where its mass is D, diagonal: a row's J becomes J L⁻¹ and its W = D⁻¹
// (J L⁻¹)ᵀ, both nonzero only on the ancestors of J's dofs (a fingertip contact on the 24-dof
// Shadow Hand: ~7 entries, where M⁻¹ Jᵀ fills all 24). Every other dof keeps v. The
// velocities the solvers sweep, velocity_of and v_free are in these coordinates;
// to_generalized turns them back into v.
struct Operators {
  VecX v_free;                // (nv) Problem::v_free in the operators' coordinates
  VecX inv_mass;              // (nv) 1 / D_k on a tree in mass-diagonal coordinates, else unused
  VecX D;                     // (nrows) A_ii = J_i W_iᵀ + compliance_i
  VecX inv_D;                 // (nrows) 1 / D_i, or 0 for a row with D_i ≤ 0 (it sees no dof)
  // (nrows) J_i v − target_i minus the row's tree runs: J's entries on dofs of no tree
  // (kinematic bodies, whose velocity λ never changes) times v_free, less the target.
  VecX bias;
  std::vector<int> contact_of_row;  // (nrows) contact index of a normal/friction row, or −1
  // Per contact: when its normal and two friction rows (consecutive rows, as the stepper
  // builds them) each have `runs` (1 or 2) runs, all
  // on free bodies (6 dofs), on the same trees and stored back to back from jd / wd +
  // offset (row-major: row, then run), PGS keeps the bodies' velocities in registers
  // across the three rows. runs = 0 otherwise.
  struct FreeContact {
    int runs = 0;
    int offset = 0;
    int v_begin[2] = {0, 0};
  };
  std::vector<FreeContact> free_contacts;
  // Per contact: chain_of_contact[c] = k ≥ 0 when its three rows (normal, then two friction,
  // consecutive) have the same runs, one of them on a tree in mass-diagonal coordinates, and
  // at most kChainWidth velocities in all (a fingertip's chain and a free body: 7 + 6). PGS
  // gathers those velocities once and steps the three rows on them densely (pgs.cpp,
  // ChainContactRows): v indices at chain_dofs[kChainWidth k ...], row q's J and W over them at
  // chain_j / chain_w[kChainWidth (3k + q) ...], zero-padded. −1 otherwise.
  static constexpr int kChainWidth = 16;
  std::vector<int> chain_of_contact;
  std::vector<int> chain_width;       // (per chain) its velocities
  std::vector<int> chain_dofs;
  std::vector<double> chain_j, chain_w;
  // Runs of chain contacts on the same velocities (a finger link's several points on an
  // object), consecutive sweep items without torsion rows: a whole sweep steps them on one
  // gather of the velocities, in their order (pgs.cpp, chain_contact). Per contact:
  // chain_next[c], the run's contact after c (−1: none); chain_follows[c], c is not a run's
  // first, so a whole sweep steps it with that first.
  std::vector<int> chain_next;
  std::vector<char> chain_follows;
  // A sweep over all rows, one item per contact (at its normal row: the contact index) or
  // per row of no contact (−1 − row): the islands two at a time, their items alternated, each
  // island's in row order (the same bits as row order: islands share no tree).
  // sweep_paired[k]: items k and k + 1 are cone contacts on free bodies of the two islands,
  // which PGS steps together (pgs.cpp, cone_pair).
  std::vector<int> sweep_items;
  std::vector<char> sweep_paired;
  int sweep_pairs = 0;  // how many
  // sweep_joint_run[k] = n ≥ 1 when item k is a row of no contact: items k .. k + n − 1 all
  // are, and PGS steps them in one call (pgs.cpp, joint_rows); 0 for a contact.
  std::vector<int> sweep_joint_run;
  // Where the items of islands 2g and 2g + 1 begin in sweep_items (ngroups + 1 entries): a
  // thread sweeps whole groups (solve.cpp).
  std::vector<int> sweep_group_begin;
  std::vector<int> tree_of;   // (nv) tree of each dof, or −1
  // Twin rows: two bounded rows that are not contacts with the same one-entry J (a servo and
  // the dry friction of its joint). Apart, PGS converges on them at the rate
  // d / (d + c_servo) per sweep (d = J M⁻¹ Jᵀ), near 1 for a stiff servo on a light link:
  // they trade impulse back and forth while v barely moves. PGS solves the pair's 2×2 block
  // exactly instead (pgs.cpp, twin_rows). twin[i] = k for the first row i of a pair (k > i),
  // −2 − i for its twin k, −1 for any other row; twin_same[i]: this step's J and W runs of
  // i and k are equal bit for bit (else PGS updates the two one after the other).
  std::vector<int> twin;
  std::vector<char> twin_same;
  // For such a first row i: 1 / det of the pair's block, D_i D_k − (D_i − compliance_i)² (the
  // problem's compliances: twins are no contact rows, which alone a relax pass changes);
  // twin_same holds only where it is positive.
  std::vector<double> twin_inv_det;
  // The rows of no contact that PGS steps from packed values (pgs.cpp, joint_item): a row, or a
  // pair of twins with twin_same, whose runs are all read entry by entry (on trees in
  // mass-diagonal coordinates, or dense runs of other than 6 dofs). A sweep then reads its
  // constants from one record and its entries from one stretch of joint_dof / joint_j /
  // joint_w (v index, J, W), in row_dot's order, where the general path walks the runs and
  // gathers from half a dozen arrays: the same arithmetic in the same order, so the same bits.
  // joint_item_of_row[i] (nrows): the item of such a (first) row i, −1 for any other row.
  // joint_rows (layout): the rows that can be such items; the items are packed every step
  // from them (twin_same is per step).
  struct JointItem {
    int i = 0, k = -1;          // the row, and its twin (−1: none)
    int begin = 0, count = 0;   // its entries
    double bias_i = 0.0, bias_k = 0.0, D_i = 0.0, D_k = 0.0, inv_D_i = 0.0, inv_D_k = 0.0, inv_det = 0.0;
    double lo_i = 0.0, hi_i = 0.0, lo_k = 0.0, hi_k = 0.0;
  };
  std::vector<JointItem> joint_items;
  std::vector<int> joint_item_of_row, joint_rows;
  std::vector<int> joint_dof;
  std::vector<double> joint_j, joint_w;
  // Row i's runs, in tree (hence column) order: runs[row_run_begin[i] .. row_run_begin[i + 1]).
  std::vector<int> row_run_begin;
  std::vector<Run> runs;
  std::vector<int> run_nz;    // the entries' dofs of sparse runs (Run::nz_begin)
  std::vector<double> jd, wd;
  // Islands: connected components of rows (two rows are coupled when they touch a common
  // tree or belong to the same contact). Island k's rows, ascending, are
  // island_rows[island_begin[k] .. island_begin[k + 1]); islands ordered by first row.
  std::vector<int> island_rows, island_begin;
  int nislands() const { return static_cast<int>(island_begin.size()) - 1; }

  // M_t⁻¹ of each small tree (dense, column-major, from minv_offset[t]; −1 for a tree
  // larger than kDenseInverseMaxNv or given its sparse factor: those keep their solves,
  // Tree::solve_in_place): a row's W block is then one small matrix-vector product instead
  // of two triangular solves.
  std::vector<double> minv;
  std::vector<int> minv_offset;
  // The factor each inverse was computed from (same layout as minv), its tree's nv (−1:
  // none) and offset: a tree whose factor is unchanged bitwise keeps its inverse.
  std::vector<double> minv_key;
  std::vector<int> minv_key_nv, minv_key_offset;
  // The persistent layout: runs, run_nz, row_run_begin, tree_of, contact_of_row, twin,
  // sweep_items, free_contacts and the islands depend only on the problem's structure.
  // While a problem's nonzero Problem::structure stamp is the last call's, they are kept and
  // only the values (jd, wd, D, inv_D, bias, the inverse mass blocks) are written.
  std::uint64_t layout_structure = 0;
  bool layout_kept = false;   // the last make_operators kept the layout
  // Scratch of make_operators and dense_delassus.
  std::vector<int> parent, first_row_of_tree, island_of_root, touched, tree_rows, tree_first, row_of_dof;
  std::vector<double> jt, wt;  // a tree's block of J and W over an island's rows
  std::vector<char> in_support;  // a tree's dofs in a run's support (diagonal_support)
};

// J_i x over the row's runs (x on every dof of a tree).
inline double row_dot(const Operators& ops, int i, const double* x) {
  double jx = 0.0;
  for (int k = ops.row_run_begin[i]; k < ops.row_run_begin[i + 1]; ++k) {
    const Run& r = ops.runs[k];
    const double* j = ops.jd.data() + r.offset;
    const double* y = x + r.v_begin;
    if (r.nz >= 0) {
      const int* dof = ops.run_nz.data() + r.nz_begin;
      for (int k = 0; k < r.nz; ++k) jx += j[dof[k]] * y[dof[k]];
    } else if (r.nv == 6) {
      jx += Eigen::Map<const Vec6>(j).dot(Eigen::Map<const Vec6>(y));
    } else {
      for (int d = 0; d < r.nv; ++d) jx += j[d] * y[d];
    }
  }
  return jx;
}

// J_i v − target_i for v = v_free + Wᵀλ (any λ): the row's runs plus its bias.
inline double row_velocity(const Operators& ops, int i, const double* v) { return ops.bias[i] + row_dot(ops, i, v); }

// v += W_iᵀ δ (the velocity change of an impulse δ on row i).
inline void apply_impulse(const Operators& ops, int i, double delta, double* v) {
  for (int k = ops.row_run_begin[i]; k < ops.row_run_begin[i + 1]; ++k) {
    const Run& r = ops.runs[k];
    const double* w = ops.wd.data() + r.offset;
    double* x = v + r.v_begin;
    if (r.w_sparse) {
      const int* dof = ops.run_nz.data() + r.nz_begin;
      for (int k = 0; k < r.nz; ++k) x[dof[k]] += w[dof[k]] * delta;
    } else if (r.nv == 6) {
      Eigen::Map<Vec6>(x) += delta * Eigen::Map<const Vec6>(w);  // (packets: x and w may alias for the compiler)
    } else {
      for (int d = 0; d < r.nv; ++d) x[d] += w[d] * delta;
    }
  }
}

// The sweep item row i starts (Operators::sweep_items: a contact at its normal row, −1 − i for
// a row of no contact), or kNoSweepItem for a contact's other rows and the second of twins.
constexpr int kNoSweepItem = std::numeric_limits<int>::min();
inline int sweep_item_at(const Problem& p, const Operators& ops, int i) {
  const int c = ops.contact_of_row[i];
  if (c < 0) return ops.twin[i] < -1 ? kNoSweepItem : -1 - i;  // (a twin is swept with its first row)
  return p.contacts[c].normal == i ? c : kNoSweepItem;
}

// Fills ops (runs, D, bias, contact_of_row, tree_of, the islands and the sweep order), reusing
// its storage, and its layout when the structure is the last call's (Problem::structure).
void make_operators(const Problem& problem, Operators& ops);
Operators make_operators(const Problem& problem);

// v⁺ = v_free + Wᵀ λ in the operators' coordinates, into v (resized to nv).
void velocity_of(const Problem& problem, const Operators& ops, const VecX& lambda, VecX& v);
VecX velocity_of(const Problem& problem, const Operators& ops, const VecX& lambda);
// v in the operators' coordinates → generalized velocities, in place.
void to_generalized(const Problem& problem, VecX& v);

// w = J v + compliance ⊙ λ − target (per row, velocity units).
VecX row_residual(const Problem& problem, const VecX& v, const VecX& lambda);

// Islands as lists (convenience; the solvers read Operators::island_rows).
std::vector<std::vector<int>> islands(const Problem& problem);

// Dense A restricted to rows[0..m) (m × m), including the compliance diagonal, into A.
// Per tree t: A += J_t W_tᵀ over the rows touching t (a dense product of the tree's
// columns), so rows that share no tree cost nothing.
void dense_delassus(const Problem& problem, Operators& ops, const int* rows, int m, MatX& A);

// complementarity_residual (problem.h) with operators already built.
double complementarity_residual(const Problem& problem, const Operators& ops, const VecX& lambda);
// The same with v = velocity_of(λ) given and w as scratch.
double complementarity_residual(const Problem& problem, const Operators& ops, const VecX& lambda, const VecX& v,
                                VecX& w);

// The Coulomb-bounds of a friction row given the current normal impulse λ_n.
inline double friction_bound(double mu, double lambda_n) { return mu * std::max(lambda_n, 0.0); }

}  // namespace graspsim::spook
