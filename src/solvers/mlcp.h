#pragma once
// A dense mixed LCP of one island, w = A x − b, reduced to a standard LCP and solved by
// Lemke (lcp.h). Row types, with their LCP variables:
//   free   (lo = −inf, hi = +inf)       eliminated by a Schur complement on A_FF
//   fixed  (lo = hi, or findex with μ=0) x = lo, eliminated
//   lower  (lo finite, hi = +inf)        z = x − lo ≥ 0 ⊥ w ≥ 0
//   upper  (lo = −inf, hi finite)        z = hi − x ≥ 0 ⊥ −w ≥ 0
//   box    (lo < hi both finite)         z1 = x − lo ⊥ w + z2,  z2 ⊥ (hi − lo) − z1
//   findex (|x| ≤ μ x_n, x_n a lower row) x = z⁺ − z⁻, z± ⊥ ±w + σ,  σ ⊥ μ x_n − z⁺ − z⁻
//   polyhedral group (x_i ≥ 0, Σ x_i ≤ μ x_n; Stewart-Trinkle with the slack s)
//                                        x_i ⊥ w_i + s,  s ⊥ μ x_n − Σ x_i
// The reduction depends only on A and the bounds, so one MlcpSolver serves many b
// (Split's outer iterations) and remembers the last complementary basis.

#include <Eigen/Cholesky>
#include <vector>

#include "solvers/lcp.h"

namespace graspsim {

struct Mlcp {
  MatX A;                      // (m × m) symmetric positive semi-definite (+ compliance)
  VecX lo, hi;                 // (m) fixed bounds, ignored on findex and polyhedral rows
  std::vector<int> findex;     // (m) −1, or the local index of the normal bounding this row
  VecX fmu;                    // (m) μ of findex rows
  struct Polyhedral {
    std::vector<int> rows;     // local direction rows, x ≥ 0
    int normal = -1;           // local normal row (a lower row)
    double mu = 0.0;
  };
  std::vector<Polyhedral> poly;
};

class MlcpSolver {
 public:
  MlcpSolver() = default;
  explicit MlcpSolver(const Mlcp& mlcp) { setup(mlcp); }
  // Re-targets the solver at a new problem, forgetting the remembered basis. The storage
  // of the previous problem is reused: a problem of the same shape allocates nothing.
  void setup(const Mlcp& mlcp);
  // Solves for right-hand side b. Returns false if pivoting failed (x untouched then).
  // `pivots` accumulates Lemke pivots (0 when the remembered basis was still valid). The
  // first call may pass a guess of x (the previous step's impulses): its active set is
  // tried before pivoting, so a persistent contact configuration costs one LU.
  bool solve(const VecX& b, VecX& x, int& pivots, const VecX* guess = nullptr);

 private:
  enum class Type { Free, Fixed, Lower, Upper, Box, Findex, Poly };
  // How each LCP variable relates to x, to guess a complementary basis from an x.
  enum class VarKind { AboveLo, BelowHi, AtHi, AboveZero, BelowZero, AtCap };
  struct Var {
    VarKind kind;
    int row;                   // the row it describes (AtCap: the normal)
    double value;              // lo, hi, or μ (AtCap)
    std::vector<int> rows{};   // AtCap: the bounded rows
    bool absolute = false;     // AtCap: bound on |x| (findex) rather than Σx (polyhedral)
    std::vector<int> vars{};   // AtCap: the LCP variables of the bounded rows (z⁺, z⁻ or β)
  };
  void basis_from(const VecX& x, const VecX& b, std::vector<int>& basic);
  void reduce_rhs(const VecX& b);  // b_red_ from b
  void lcp_q(const VecX& b);       // q_ from b
  void recover(const VecX& b, const VecX& z, VecX& x);
  int add_var(int L_row, double sign, double c);
  void add_var_info(VarKind kind, int row, double value);

  int m_ = 0;
  std::vector<Type> type_;
  std::vector<int> F_, B_;      // free rows; rows carried by LCP variables (local indices)
  std::vector<int> pos_;        // (m) position of a row in B_, or −1
  VecX x_fixed_;                // (m) values of fixed rows, 0 elsewhere
  MatX A_FB_, A_BF_, A_BB_;     // blocks of A
  VecX A_Fx_fixed_, A_Bx_fixed_;  // A_F· x_fixed, A_B· x_fixed
  Eigen::LDLT<MatX> ldlt_FF_;
  MatX Ared_;                   // Schur complement on B
  MatX T_;                      // x_B = x0 + T z (not formed when lower_only_: T = I)
  bool lower_only_ = false;     // every LCP row is a lower row: one variable each, M = Ared
  VecX x0_;
  std::vector<int> upper_var_;  // per B row: the box row's upper multiplier variable, or −1
  VecX hi_;                     // per B row: its upper bound (box rows)
  std::vector<int> L_row_;      // per LCP variable: position in B of its w row, or −1
  std::vector<double> L_sign_, c_;  // its sign, and the constant term
  MatX E_;                      // extra couplings between LCP variables
  MatX M_;                      // the LCP matrix
  std::vector<Var> var_;        // per LCP variable (the first nvar_ entries; the rest is storage)
  int nvar_ = 0;
  LcpActiveSet active_;

  // Scratch (kept for its storage).
  struct Entry { int r, c; double v; };
  std::vector<Entry> T_entries_, E_entries_;
  std::vector<int> var_of_row_, basic_;
  std::vector<char> in_poly_, in_;
  MatX A_FF_, S_FB_, AT_;
  VecX b_red_, bF_, yF_, p_, q_, z_, xB_, wB_;
};

}  // namespace graspsim
