#pragma once
// Building a spook::Problem by hand (the solvers used without the stepper: tests,
// benchmarks, a user's own assembly): rows are appended with their Jacobian entries and
// SPOOK data, then finish() writes J, target, compliance, lo and hi. Trees, v_free,
// contacts and the warm start are set on the problem directly.

#include <utility>
#include <vector>

#include "spook/problem.h"

namespace graspsim::spook {

class ProblemBuilder {
 public:
  explicit ProblemBuilder(Problem& problem) : p_(problem) {}

  // Appends a row with Jacobian entries (column, value) (repeated columns add up); returns
  // its index.
  int add(const std::vector<std::pair<int, double>>& entries, RowKind kind, double target, double compliance,
          double lo, double hi) {
    const int r = static_cast<int>(target_.size());
    for (auto [col, v] : entries) triplets_.emplace_back(r, col, v);
    target_.push_back(target);
    compliance_.push_back(compliance);
    lo_.push_back(lo);
    hi_.push_back(hi);
    p_.kind.push_back(kind);
    return r;
  }

  // Writes the rows added so far into the problem (p.nv must be set).
  void finish() {
    const int n = static_cast<int>(target_.size());
    p_.J.resize(n, p_.nv);
    p_.J.setFromTriplets(triplets_.begin(), triplets_.end());
    p_.target = Eigen::Map<const VecX>(target_.data(), n);
    p_.compliance = Eigen::Map<const VecX>(compliance_.data(), n);
    p_.lo = Eigen::Map<const VecX>(lo_.data(), n);
    p_.hi = Eigen::Map<const VecX>(hi_.data(), n);
  }

 private:
  Problem& p_;
  std::vector<Eigen::Triplet<double>> triplets_;
  std::vector<double> target_, compliance_, lo_, hi_;
};

}  // namespace graspsim::spook
