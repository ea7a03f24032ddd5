#pragma once
// A constraint Jacobian from the entries that the row builders append row by row, rebuilt
// every step but with the same sparsity pattern while the contacts persist: the pattern is
// then kept and only the values are written.

#include <Eigen/SparseCore>
#include <utility>
#include <vector>

namespace graspsim {

// J's entries as the builders append them: each row started (start_row, rows in order)
// before its entries are added, in any column order, a column possibly more than once
// (summed in the order added). Kept between steps for its capacity.
struct JacobianEntries {
  std::vector<int> row_begin;  // row r's entries start at row_begin[r] (rows started so far)
  std::vector<int> col;
  std::vector<double> val;
  void clear() {
    row_begin.clear();
    col.clear();
    val.clear();
  }
  void start_row() { row_begin.push_back(size()); }
  // An entry of the last row started; throws std::logic_error for any other row.
  void add(int row, int c, double v) {
    if (row + 1 != static_cast<int>(row_begin.size())) out_of_order();
    col.push_back(c);
    val.push_back(v);
  }
  // Room for n entries of the last row started, to be written at the returned columns and
  // values (a whole contact row at once: one size check, not one an entry).
  std::pair<int*, double*> extend(int row, int n) {
    if (row + 1 != static_cast<int>(row_begin.size())) out_of_order();
    const size_t k = col.size();
    col.resize(k + static_cast<size_t>(n));
    val.resize(k + static_cast<size_t>(n));
    return {col.data() + k, val.data() + k};
  }
  int size() const { return static_cast<int>(col.size()); }

 private:
  [[noreturn]] static void out_of_order();
};

// The pattern (row_begin, col) of the step that built J, and where each of its entries'
// values went in J's value array and whether it began its sum (fill_rows).
struct JacobianLayout {
  std::vector<int> row_begin, col;
  std::vector<int> slot;
  std::vector<char> first;
  std::vector<int> order;  // scratch: a row's entries by column
  int rows = -1, cols = -1;
};

// J (rows × cols) from this step's entries; returns whether its pattern is last step's.
// A new pattern builds J (each row sorted by column, stably, repeats summed in the order
// added, as setFromTriplets would) and records where each entry went; a pattern that
// recurs (the contacts kept their slots and points) has its values written in place
// through that record: the same sums in the same order, so the same bits, with no sort.
bool fill_rows(const JacobianEntries& entries, int rows, int cols, Eigen::SparseMatrix<double, Eigen::RowMajor>& J,
               JacobianLayout& layout);

}  // namespace graspsim
