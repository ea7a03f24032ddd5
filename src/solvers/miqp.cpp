#include "solvers/miqp.h"

#include <BonBonminSetup.hpp>
#include <BonCbc.hpp>
#include <BonChooseVariable.hpp>
#include <BonOsiTMINLPInterface.hpp>
#include <BonTMINLP.hpp>
#include <CoinError.hpp>
#include <IpException.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <sstream>

#include "core/clock.h"
#include "core/error.h"

namespace graspsim {
namespace {

constexpr double kIpoptInf = 1e20;  // Ipopt treats |bound| ≥ 1e19 as no bound

std::string dims(Eigen::Index r, Eigen::Index c) { return std::to_string(r) + "x" + std::to_string(c); }

void check_bounds(const VecX& lo, const VecX& hi, int size, const std::string& lo_name,
                  const std::string& hi_name) {
  require(lo.size() == size, "MixedIntegerQp." + lo_name,
          "expected size " + std::to_string(size) + ", got " + std::to_string(lo.size()));
  require(hi.size() == size, "MixedIntegerQp." + hi_name,
          "expected size " + std::to_string(size) + ", got " + std::to_string(hi.size()));
  for (int i = 0; i < size; ++i) {
    require(!std::isnan(lo[i]) && lo[i] < kInf, "MixedIntegerQp." + lo_name,
            "entry " + std::to_string(i) + " is NaN or +inf");
    require(!std::isnan(hi[i]) && hi[i] > -kInf, "MixedIntegerQp." + hi_name,
            "entry " + std::to_string(i) + " is NaN or -inf");
    require(lo[i] <= hi[i], "MixedIntegerQp." + lo_name,
            "entry " + std::to_string(i) + " exceeds " + hi_name + " (" + std::to_string(lo[i]) + " > " +
                show(hi[i]) + ")");
  }
}

void check_options(const MixedIntegerQp& p, const MiqpOptions& o) {
  require(std::isfinite(o.objective_scale) && o.objective_scale > 0, "MiqpOptions.objective_scale",
          "must be finite and > 0");
  require(o.time_limit_s > 0 && !std::isnan(o.time_limit_s), "MiqpOptions.time_limit_s", "must be > 0");
  if (!o.z_fixed.empty()) {
    require(static_cast<int>(o.z_fixed.size()) == p.nz(), "MiqpOptions.z_fixed",
            "expected size " + std::to_string(p.nz()) + " (nz) or empty, got " + std::to_string(o.z_fixed.size()));
    for (size_t i = 0; i < o.z_fixed.size(); ++i)
      require(o.z_fixed[i] == -1 || o.z_fixed[i] == 0 || o.z_fixed[i] == 1, "MiqpOptions.z_fixed",
              "entry " + std::to_string(i) + " must be -1 (free), 0 or 1");
  }
  require(o.x_start.size() == 0 || o.x_start.size() == p.n(), "MiqpOptions.x_start",
          "expected size " + std::to_string(p.n()) + " (n) or empty, got " + std::to_string(o.x_start.size()));
  require(o.x_start.allFinite(), "MiqpOptions.x_start", "not finite");
  require(o.z_start.size() == 0 || o.z_start.size() == p.nz(), "MiqpOptions.z_start",
          "expected size " + std::to_string(p.nz()) + " (nz) or empty, got " + std::to_string(o.z_start.size()));
  require(o.z_start.allFinite(), "MiqpOptions.z_start", "not finite");
}

double objective_of(const MixedIntegerQp& p, const VecX& x) { return 0.5 * x.dot(p.H * x) + p.c.dot(x); }

// The problem as Bonmin sees it. Its variables are v = [x_free; z_free]: continuous variables
// with x_lo = x_hi and binaries fixed by the options are substituted. Rows left without a
// variable are checked here (constant_infeasible) and dropped along with rows free on both
// sides. The objective keeps only the terms in x_free (the constant is recomputed from the
// full x afterwards).
struct Reduced {
  std::vector<int> xfree;  // original indices of the free continuous variables
  std::vector<int> zfree;  // original indices of the free binaries
  VecX xval, zval;         // n, nz: the fixed variables' values (0 where free)
  MatX H;                  // nxf × nxf, symmetrized
  VecX c;                  // nxf, with the fixed variables' coupling
  VecX xl, xu;             // nxf: bounds of the free continuous variables
  MatX J;                  // M × N: the kept rows' coefficients on v
  VecX lo, hi;             // M: their bounds, fixed variables moved over
  bool constant_infeasible = false;
  int nx() const { return static_cast<int>(xfree.size()); }
  int N() const { return nx() + static_cast<int>(zfree.size()); }
  int M() const { return static_cast<int>(J.rows()); }
};

Reduced reduce(const MixedIntegerQp& p, const std::vector<double>& z_fixed) {
  Reduced r;
  const int n = p.n(), nz = p.nz();
  r.xval = VecX::Zero(n);
  r.zval = VecX::Zero(nz);
  for (int k = 0; k < n; ++k) {
    if (p.x_lo[k] == p.x_hi[k])
      r.xval[k] = p.x_lo[k];
    else
      r.xfree.push_back(k);
  }
  for (int j = 0; j < nz; ++j) {
    if (!z_fixed.empty() && z_fixed[j] >= 0)
      r.zval[j] = z_fixed[j];
    else
      r.zfree.push_back(j);
  }
  const int nx = r.nx(), N = r.N();
  const MatX Hs = 0.5 * (p.H + p.H.transpose());
  const VecX Hx = Hs * r.xval;  // the fixed variables' coupling (xval is 0 where free)
  r.H.resize(nx, nx);
  r.c.resize(nx);
  r.xl.resize(nx);
  r.xu.resize(nx);
  for (int a = 0; a < nx; ++a) {
    const int k = r.xfree[a];
    for (int b = 0; b < nx; ++b) r.H(a, b) = Hs(k, r.xfree[b]);
    r.c[a] = p.c[k] + Hx[k];
    r.xl[a] = p.x_lo[k];
    r.xu[a] = p.x_hi[k];
  }
  const VecX shift = p.A * r.xval + (nz ? VecX(p.B * r.zval) : VecX::Zero(p.m()));
  std::vector<int> rows;
  for (int i = 0; i < p.m(); ++i) {
    if (p.row_lo[i] == -kInf && p.row_hi[i] == kInf) continue;
    bool has_var = false;
    for (int k : r.xfree) has_var = has_var || p.A(i, k) != 0.0;
    for (int j : r.zfree) has_var = has_var || p.B(i, j) != 0.0;
    if (has_var) {
      rows.push_back(i);
      continue;
    }
    double scale = std::max(1.0, std::abs(shift[i]));
    if (std::isfinite(p.row_lo[i])) scale = std::max(scale, std::abs(p.row_lo[i]));
    if (std::isfinite(p.row_hi[i])) scale = std::max(scale, std::abs(p.row_hi[i]));
    if (shift[i] < p.row_lo[i] - 1e-9 * scale || shift[i] > p.row_hi[i] + 1e-9 * scale) r.constant_infeasible = true;
  }
  const int M = static_cast<int>(rows.size());
  r.J.resize(M, N);
  r.lo.resize(M);
  r.hi.resize(M);
  for (int a = 0; a < M; ++a) {
    const int i = rows[a];
    for (int b = 0; b < nx; ++b) r.J(a, b) = p.A(i, r.xfree[b]);
    for (int b = 0; b < N - nx; ++b) r.J(a, nx + b) = p.B(i, r.zfree[b]);
    r.lo[a] = p.row_lo[i] - shift[i];
    r.hi[a] = p.row_hi[i] - shift[i];
  }
  return r;
}

double ipopt_bound(double v) { return std::clamp(v, -kIpoptInf, kIpoptInf); }

// The TMINLP over the reduced problem: variables [x_free; z_free], every row linear.
class QpTminlp : public Bonmin::TMINLP {
 public:
  QpTminlp(const Reduced& r, const MiqpOptions& o) : r_(r), o_(o) {
    for (int i = 0; i < r.nx(); ++i)
      for (int j = 0; j <= i; ++j)
        if (r.H(i, j) != 0.0) {
          h_rows_.push_back(i);
          h_cols_.push_back(j);
        }
    for (int a = 0; a < r.M(); ++a)
      for (int b = 0; b < r.N(); ++b)
        if (r.J(a, b) != 0.0) {
          jac_rows_.push_back(a);
          jac_cols_.push_back(b);
          jac_vals_.push_back(r.J(a, b));
        }
  }

  // The point passed to finalize_solution (empty if none).
  const std::vector<double>& solution() const { return solution_; }

  bool get_variables_types(Ipopt::Index n, VariableType* types) override {
    for (Ipopt::Index i = 0; i < n; ++i) types[i] = i < r_.nx() ? CONTINUOUS : BINARY;
    return true;
  }

  bool get_variables_linearity(Ipopt::Index n, Ipopt::TNLP::LinearityType* types) override {
    for (Ipopt::Index i = 0; i < n; ++i) {
      const bool nonlinear = i < r_.nx() && (r_.H.row(i).array() != 0.0).any();
      types[i] = nonlinear ? Ipopt::TNLP::NON_LINEAR : Ipopt::TNLP::LINEAR;
    }
    return true;
  }

  bool get_constraints_linearity(Ipopt::Index m, Ipopt::TNLP::LinearityType* types) override {
    for (Ipopt::Index i = 0; i < m; ++i) types[i] = Ipopt::TNLP::LINEAR;
    return true;
  }

  bool get_nlp_info(Ipopt::Index& n, Ipopt::Index& m, Ipopt::Index& nnz_jac_g, Ipopt::Index& nnz_h_lag,
                    Ipopt::TNLP::IndexStyleEnum& index_style) override {
    n = r_.N();
    m = r_.M();
    nnz_jac_g = static_cast<Ipopt::Index>(jac_vals_.size());
    nnz_h_lag = static_cast<Ipopt::Index>(h_rows_.size());
    index_style = Ipopt::TNLP::C_STYLE;
    return true;
  }

  bool get_bounds_info(Ipopt::Index n, Ipopt::Number* x_l, Ipopt::Number* x_u, Ipopt::Index m,
                       Ipopt::Number* g_l, Ipopt::Number* g_u) override {
    for (Ipopt::Index i = 0; i < n; ++i) {
      x_l[i] = i < r_.nx() ? ipopt_bound(r_.xl[i]) : 0.0;
      x_u[i] = i < r_.nx() ? ipopt_bound(r_.xu[i]) : 1.0;
    }
    for (Ipopt::Index a = 0; a < m; ++a) {
      g_l[a] = ipopt_bound(r_.lo[a]);
      g_u[a] = ipopt_bound(r_.hi[a]);
    }
    return true;
  }

  bool get_starting_point(Ipopt::Index n, bool init_x, Ipopt::Number* x, bool init_z, Ipopt::Number*,
                          Ipopt::Number*, Ipopt::Index, bool init_lambda, Ipopt::Number*) override {
    if (init_z || init_lambda) return false;  // no multipliers to offer
    if (!init_x) return true;
    for (Ipopt::Index i = 0; i < n; ++i) {
      if (i < r_.nx()) {
        const int k = r_.xfree[i];
        x[i] = std::clamp(o_.x_start.size() ? o_.x_start[k] : 0.0, r_.xl[i], r_.xu[i]);
      } else {
        const int j = r_.zfree[i - r_.nx()];
        x[i] = o_.z_start.size() ? std::clamp(o_.z_start[j], 0.0, 1.0) : 0.5;
      }
    }
    return true;
  }

  bool eval_f(Ipopt::Index, const Ipopt::Number* v, bool, Ipopt::Number& f) override {
    const Eigen::Map<const VecX> x(v, r_.nx());
    f = o_.objective_scale * (0.5 * x.dot(r_.H * x) + r_.c.dot(x));
    return true;
  }

  bool eval_grad_f(Ipopt::Index n, const Ipopt::Number* v, bool, Ipopt::Number* grad) override {
    const Eigen::Map<const VecX> x(v, r_.nx());
    Eigen::Map<VecX> g(grad, n);
    g.setZero();
    g.head(r_.nx()) = o_.objective_scale * (r_.H * x + r_.c);
    return true;
  }

  bool eval_g(Ipopt::Index, const Ipopt::Number* v, bool, Ipopt::Index m, Ipopt::Number* g) override {
    std::fill(g, g + m, 0.0);
    for (size_t e = 0; e < jac_vals_.size(); ++e) g[jac_rows_[e]] += jac_vals_[e] * v[jac_cols_[e]];
    return true;
  }

  bool eval_jac_g(Ipopt::Index, const Ipopt::Number*, bool, Ipopt::Index, Ipopt::Index nele, Ipopt::Index* iRow,
                  Ipopt::Index* jCol, Ipopt::Number* values) override {
    if (values == nullptr) {
      for (Ipopt::Index e = 0; e < nele; ++e) {
        iRow[e] = jac_rows_[e];
        jCol[e] = jac_cols_[e];
      }
    } else {
      std::copy(jac_vals_.begin(), jac_vals_.end(), values);
    }
    return true;
  }

  bool eval_h(Ipopt::Index, const Ipopt::Number*, bool, Ipopt::Number obj_factor, Ipopt::Index,
              const Ipopt::Number*, bool, Ipopt::Index nele, Ipopt::Index* iRow, Ipopt::Index* jCol,
              Ipopt::Number* values) override {
    if (values == nullptr) {
      for (Ipopt::Index e = 0; e < nele; ++e) {
        iRow[e] = h_rows_[e];
        jCol[e] = h_cols_[e];
      }
    } else {
      const double f = obj_factor * o_.objective_scale;
      for (Ipopt::Index e = 0; e < nele; ++e) values[e] = f * r_.H(h_rows_[e], h_cols_[e]);
    }
    return true;
  }

  void finalize_solution(SolverReturn, Ipopt::Index n, const Ipopt::Number* v, Ipopt::Number) override {
    if (v != nullptr)
      solution_.assign(v, v + n);
    else
      solution_.clear();
  }

  const BranchingInfo* branchingInfo() const override { return nullptr; }
  const SosInfo* sosConstraints() const override { return nullptr; }

 private:
  const Reduced& r_;
  const MiqpOptions& o_;
  std::vector<int> h_rows_, h_cols_;
  std::vector<int> jac_rows_, jac_cols_;
  std::vector<double> jac_vals_;
  std::vector<double> solution_;
};

// Bonmin 1.8.9's default branching (BonChooseVariable, NLP strong branching) keeps strong
// branching past a candidate whose two children are both infeasible (or cut off) and lets a
// later candidate overwrite the "node infeasible" verdict with "some can be fixed";
// chooseVariable then fixes that candidate both ways and Osi aborts the process
// (OsiSimpleInteger::createBranch: "upper > lower" assertion; coin-or/Bonmin#40, #46). Seen
// on about 2 % of small random MIQPs and at once on complementarity ones. This restores
// the verdict; everything else is Bonmin's.
class SafeChooseVariable : public Bonmin::BonChooseVariable {
 public:
  explicit SafeChooseVariable(const Bonmin::BonChooseVariable& other) : Bonmin::BonChooseVariable(other) {}
  OsiChooseVariable* clone() const override { return new SafeChooseVariable(*this); }

 protected:
  int doStrongBranching(OsiSolverInterface* solver, OsiBranchingInformation* info, int numberToDo,
                        int returnCriterion) override {
    const int rc = Bonmin::BonChooseVariable::doStrongBranching(solver, info, numberToDo, returnCriterion);
    for (const Bonmin::HotInfo& r : results_)
      if (r.upStatus() == 1 && r.downStatus() == 1) return -1;  // the node is infeasible
    return rc;
  }
};

// BonminSetup with the branching method above swapped in after initialize().
class Setup : public Bonmin::BonminSetup {
 public:
  void make_branching_safe() {
    if (auto* choose = dynamic_cast<Bonmin::BonChooseVariable*>(branchingMethod_)) {
      OsiChooseVariable* safe = new SafeChooseVariable(*choose);
      delete branchingMethod_;
      branchingMethod_ = safe;
    }
  }
};

// Serializes Bonmin: sequential MUMPS is not reentrant (see miqp.h).
std::mutex& bonmin_mutex() {
  static std::mutex m;
  return m;
}

// Fills x, z and the objective of `res` from the reduced solution v = [x_free; z_free]
// (binaries rounded to exact 0/1).
void unpack(const MixedIntegerQp& p, const Reduced& r, const std::vector<double>& v, MiqpResult& res) {
  res.x = r.xval;
  res.z = r.zval;
  for (int a = 0; a < r.nx(); ++a) res.x[r.xfree[a]] = v[a];
  for (size_t b = 0; b < r.zfree.size(); ++b) res.z[r.zfree[b]] = std::round(std::clamp(v[r.nx() + b], 0.0, 1.0));
  res.objective = objective_of(p, res.x);
}

// One solve of the reduced problem, the caller's clock already running; the options are
// checked. Leaves solve_ms to the caller.
MiqpResult solve_reduced(const MixedIntegerQp& p, const Reduced& r, const MiqpOptions& o, double time_limit_s) {
  MiqpResult res;
  if (r.constant_infeasible) {
    res.status = MiqpStatus::Infeasible;
    res.message = "a row without free variables is violated";
    return res;
  }
  if (r.N() == 0) {  // nothing left to choose: every (kept) row was constant and satisfied
    res.status = MiqpStatus::Optimal;
    unpack(p, r, {}, res);
    return res;
  }

  Ipopt::SmartPtr<QpTminlp> tminlp = new QpTminlp(r, o);
  std::ostringstream opts;
  opts.precision(17);
  opts << "bonmin.algorithm B-BB\n"
       << "print_level 0\n"
       << "sb yes\n"
       << "bonmin.bb_log_level 0\n"
       << "bonmin.nlp_log_level 0\n"
       << "bonmin.lp_log_level 0\n"
       << "bonmin.milp_log_level 0\n"
       << "bonmin.oa_log_level 0\n"
       << "bonmin.fp_log_level 0\n"
       << "bonmin.time_limit " << time_limit_s << "\n"
       << "max_cpu_time " << time_limit_s << "\n"
       << "tol 1e-9\n"
       << "constr_viol_tol 1e-9\n"
       << "bound_relax_factor 1e-10\n"
       // Ipopt's "acceptable" exit allows a constraint violation of 1e-2 by default: a node
       // would then be "solved" at a point that breaks its rows (seen: a 2 mm penetration).
       << "acceptable_constr_viol_tol 1e-8\n"
       << "acceptable_tol 1e-8\n"
       << "bonmin.integer_tolerance 1e-6\n"
       << "bonmin.allowable_gap 1e-9\n"
       << "bonmin.allowable_fraction_gap 1e-9\n"
       << "bonmin.cutoff_decr 0\n";  // the default 1e-5 would skip solutions within 1e-5 of the incumbent

  try {
    Setup bonmin;
    bonmin.initializeOptionsAndJournalist();
    // Nothing on the console: Ipopt's and Bonmin's journal output goes nowhere.
    bonmin.journalist()->DeleteAllJournals();
    bonmin.readOptionsString(opts.str());  // also keeps bonmin.opt in the working directory unread
    bonmin.initialize(Ipopt::GetRawPtr(tminlp));
    bonmin.make_branching_safe();
    Bonmin::Bab bb;
    bb(bonmin);
    res.nodes = bb.numNodes();
    std::vector<double> sol = tminlp->solution();
    if (sol.empty() && bb.bestSolution() != nullptr) sol.assign(bb.bestSolution(), bb.bestSolution() + r.N());
    const bool have = static_cast<int>(sol.size()) == r.N();
    switch (bb.mipStatus()) {
      case Bonmin::Bab::FeasibleOptimal:
        res.status = have ? MiqpStatus::Optimal : MiqpStatus::Failed;
        if (!have) res.message = "Bonmin reported an optimum without a solution";
        break;
      case Bonmin::Bab::ProvenInfeasible:
        res.status = MiqpStatus::Infeasible;
        res.message = "infeasible";
        break;
      case Bonmin::Bab::Feasible:
        res.status = MiqpStatus::Failed;
        res.message = "stopped before proving optimality (time limit?); the best feasible point is returned";
        break;
      case Bonmin::Bab::UnboundedOrInfeasible:
        res.status = MiqpStatus::Failed;
        res.message = "continuous relaxation unbounded or infeasible";
        break;
      default:
        res.status = MiqpStatus::Failed;
        res.message = "no solution found (time limit or NLP failure)";
        break;
    }
    if (have) unpack(p, r, sol, res);
  } catch (Bonmin::TNLPSolver::UnsolvedError* e) {
    res = {};
    res.message = "Bonmin: " + e->solverName() + " could not solve a node's NLP (" + e->errorName() + ")";
    delete e;
  } catch (const CoinError& e) {
    res = {};
    res.message = "Bonmin: " + e.className() + "::" + e.methodName() + ": " + e.message();
  } catch (const Ipopt::IpoptException& e) {
    res = {};
    res.message = "Ipopt: " + e.Message();
  } catch (const std::exception& e) {
    res = {};
    res.message = std::string("Bonmin: ") + e.what();
  } catch (...) {
    res = {};
    res.message = "Bonmin: unknown exception";
  }
  return res;
}

}  // namespace

double max_violation(const MixedIntegerQp& p, const VecX& x, const VecX& z) {
  double viol = 0.0;
  const VecX ax = p.nz() ? VecX(p.A * x + p.B * z) : VecX(p.A * x);
  for (int i = 0; i < p.m(); ++i) viol = std::max({viol, p.row_lo[i] - ax[i], ax[i] - p.row_hi[i]});
  for (int i = 0; i < p.n(); ++i) viol = std::max({viol, p.x_lo[i] - x[i], x[i] - p.x_hi[i]});
  return viol;
}

void check_miqp(const MixedIntegerQp& p) {
  const int n = p.n(), m = p.m(), nz = p.nz();
  require(p.H.rows() == n && p.H.cols() == n, "MixedIntegerQp.H",
          "expected " + dims(n, n) + " (n = size of c), got " + dims(p.H.rows(), p.H.cols()));
  require(p.H.allFinite(), "MixedIntegerQp.H", "not finite");
  require(p.c.allFinite(), "MixedIntegerQp.c", "not finite");
  const double hmax = n ? p.H.cwiseAbs().maxCoeff() : 0.0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j)
      require(std::abs(p.H(i, j) - p.H(j, i)) <= 1e-12 * hmax, "MixedIntegerQp.H",
              "not symmetric at (" + std::to_string(i) + ", " + std::to_string(j) + ")");
  require(p.A.rows() == m && p.A.cols() == n, "MixedIntegerQp.A",
          "expected " + dims(m, n) + " (m = size of row_lo, n = size of c), got " + dims(p.A.rows(), p.A.cols()));
  require(p.A.allFinite(), "MixedIntegerQp.A", "not finite");
  require(nz == 0 || p.B.rows() == m, "MixedIntegerQp.B",
          "expected " + dims(m, nz) + " (m = size of row_lo), got " + dims(p.B.rows(), p.B.cols()));
  require(p.B.allFinite(), "MixedIntegerQp.B", "not finite");
  check_bounds(p.row_lo, p.row_hi, m, "row_lo", "row_hi");
  check_bounds(p.x_lo, p.x_hi, n, "x_lo", "x_hi");
}

MiqpResult solve_miqp_bonmin(const MixedIntegerQp& p, const MiqpOptions& o) {
  check_miqp(p);
  check_options(p, o);
  const Reduced r = reduce(p, o.z_fixed);
  std::lock_guard<std::mutex> lock(bonmin_mutex());
  const auto t0 = Clock::now();
  MiqpResult res = solve_reduced(p, r, o, o.time_limit_s);
  res.solve_ms = ms_since(t0);
  // Bonmin's word is checked, not trusted: an "optimum" that breaks a row is a failure.
  if (res.status == MiqpStatus::Optimal) {
    const double viol = max_violation(p, res.x, res.z);
    if (viol > 1e-7) {
      res.status = MiqpStatus::Failed;
      res.message = "Bonmin returned a point that violates the constraints by " + show(viol);
    }
  }
  return res;
}

MiqpResult solve_miqp_enumerate(const MixedIntegerQp& p, const MiqpOptions& o) {
  check_miqp(p);
  check_options(p, o);
  const int nz = p.nz();
  require(nz <= 20, "solve_miqp_enumerate", "nz = " + std::to_string(nz) + " binaries, at most 20 enumerated");
  std::lock_guard<std::mutex> lock(bonmin_mutex());
  const auto t0 = Clock::now();
  MiqpResult best;
  best.status = MiqpStatus::Infeasible;
  best.message = "no assignment of the binaries is feasible";
  bool have_best = false;
  std::string failure;
  int feasible = 0;
  std::vector<double> fix(nz);
  for (long k = 0; k < (1L << nz); ++k) {
    // z_0 is the most significant bit: k runs through z in lexicographic order.
    bool consistent = true;
    for (int j = 0; j < nz; ++j) {
      fix[j] = static_cast<double>((k >> (nz - 1 - j)) & 1);
      if (!o.z_fixed.empty() && o.z_fixed[j] >= 0 && o.z_fixed[j] != fix[j]) consistent = false;
    }
    if (!consistent) continue;
    const double left = o.time_limit_s - ms_since(t0) * 1e-3;
    if (left <= 0) {
      failure = "time limit reached after " + std::to_string(k) + " assignments";
      break;
    }
    const MiqpResult one = solve_reduced(p, reduce(p, fix), o, left);
    if (one.status == MiqpStatus::Infeasible) continue;
    if (one.status == MiqpStatus::Failed) {
      if (failure.empty()) failure = "assignment " + std::to_string(k) + " (z_0 most significant): " + one.message;
      continue;
    }
    ++feasible;
    if (!have_best || one.objective < best.objective - 1e-9 * std::max(1.0, std::abs(best.objective))) {
      best.x = one.x;
      best.z = one.z;
      best.objective = one.objective;
      have_best = true;
    }
  }
  best.nodes = feasible;
  if (have_best) {
    best.status = MiqpStatus::Optimal;
    best.message.clear();
  }
  if (!failure.empty()) {
    best.status = MiqpStatus::Failed;
    best.message = failure;
  }
  best.solve_ms = ms_since(t0);
  return best;
}

}  // namespace graspsim
