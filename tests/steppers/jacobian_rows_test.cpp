// fill_rows against Eigen's setFromTriplets, bit for bit: rows built anew, rows written
// through a recorded pattern, and a pattern that changes, on random rows with unsorted
// columns, repeated columns, empty rows and rows already in column order.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "steppers/jacobian_rows.h"

namespace graspsim {
namespace {

using SparseRows = Eigen::SparseMatrix<double, Eigen::RowMajor>;

struct Pattern {
  std::vector<std::vector<int>> cols;  // per row, in the order added
};

Pattern random_pattern(std::mt19937_64& rng, int rows, int cols) {
  std::uniform_int_distribution<int> count(0, 9), col(0, cols - 1);
  Pattern p;
  p.cols.resize(rows);
  for (size_t i = 0; i < p.cols.size(); ++i) {
    std::vector<int>& r = p.cols[i];
    const int n = count(rng);
    for (int k = 0; k < n; ++k) r.push_back(col(rng));  // any order, repeats allowed
    if (i % 3 == 0) {  // and strictly ascending, as a contact row on two trees comes (built without a sort)
      std::sort(r.begin(), r.end());
      r.erase(std::unique(r.begin(), r.end()), r.end());
    }
  }
  return p;
}

// The entries of the pattern with random values, and the same as triplets.
void fill(const Pattern& p, std::mt19937_64& rng, JacobianEntries& e, std::vector<Eigen::Triplet<double>>& t) {
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  e.clear();
  t.clear();
  for (int r = 0; r < static_cast<int>(p.cols.size()); ++r) {
    e.start_row();
    for (int c : p.cols[r]) {
      const double v = value(rng);
      e.add(r, c, v);
      t.emplace_back(r, c, v);
    }
  }
}

void expect_same_bits(const SparseRows& a, const SparseRows& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.cols(), b.cols());
  ASSERT_EQ(a.nonZeros(), b.nonZeros());
  for (int r = 0; r <= a.rows(); ++r) ASSERT_EQ(a.outerIndexPtr()[r], b.outerIndexPtr()[r]) << "row " << r;
  for (int k = 0; k < a.nonZeros(); ++k) {
    ASSERT_EQ(a.innerIndexPtr()[k], b.innerIndexPtr()[k]) << "entry " << k;
    ASSERT_EQ(std::bit_cast<std::uint64_t>(a.valuePtr()[k]), std::bit_cast<std::uint64_t>(b.valuePtr()[k]))
        << "entry " << k;
  }
}

TEST(JacobianRows, GivesSetFromTripletsBitsWhetherBuiltOrWrittenThroughItsPattern) {
  std::mt19937_64 rng(5);
  JacobianEntries entries;
  JacobianLayout layout;
  std::vector<Eigen::Triplet<double>> triplets;
  SparseRows J, expected;
  const int cols = 30;
  for (int trial = 0; trial < 40; ++trial) {
    const int rows = 1 + trial % 13;
    const Pattern p = random_pattern(rng, rows, cols);
    // The first step builds J and records where its entries went; the later steps write
    // their values through that record.
    for (int step = 0; step < 4; ++step) {
      fill(p, rng, entries, triplets);
      const bool kept = fill_rows(entries, rows, cols, J, layout);
      EXPECT_EQ(kept, step > 0) << "trial " << trial << " step " << step;
      expected.resize(rows, cols);
      expected.setFromTriplets(triplets.begin(), triplets.end());  // sums repeats in the order given
      expected.makeCompressed();
      expect_same_bits(J, expected);
    }
  }
}

TEST(JacobianRows, RejectsEntriesOfAnEarlierRowAndRowCountsThatDiffer) {
  JacobianEntries e;
  e.start_row();
  e.start_row();
  EXPECT_THROW(e.add(0, 1, 1.0), std::logic_error);
  e.add(1, 1, 1.0);
  JacobianLayout layout;
  SparseRows J;
  EXPECT_THROW(fill_rows(e, 3, 4, J, layout), std::logic_error);
  EXPECT_FALSE(fill_rows(e, 2, 4, J, layout));
  EXPECT_EQ(J.coeff(1, 1), 1.0);
}

}  // namespace
}  // namespace graspsim
