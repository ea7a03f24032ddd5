#pragma once
// A constraint Jacobian from triplets that the row builders append row by row, rebuilt every
// step but with the same sparsity pattern while the contacts persist: the pattern is then
// kept and only the values are written.

#include <Eigen/SparseCore>
#include <utility>
#include <vector>

namespace graspsim {

// Where each Jacobian triplet's value went in J's value array and whether it began its
// entry's sum, for the (row, col) sequence `keys` of the step that built J (fill_rows).
struct JacobianLayout {
  std::vector<std::pair<int, int>> keys;
  std::vector<int> slot;
  std::vector<char> first;
  bool has_slots = false;  // slot and first hold for keys (recorded once the pattern recurs)
  std::vector<int> order;  // scratch: a row's triplets by column
  int rows = -1, cols = -1;
};

// J from this step's triplets; returns whether its pattern is last step's. A pattern that
// recurs (the contacts kept their slots and points) is recorded once, then the values are
// written in place through the record: the same sums in the same order, so the same bits,
// with no sort. While the pattern keeps changing (an unsettled pile), J is built as it
// always was and only the triplets' (row, col) are kept, to see it recur.
bool fill_rows(std::vector<Eigen::Triplet<double>>& triplets, int rows, int cols,
               Eigen::SparseMatrix<double, Eigen::RowMajor>& J, JacobianLayout& layout);

}  // namespace graspsim
