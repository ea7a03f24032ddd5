#include "steppers/jacobian_rows.h"

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <utility>

namespace graspsim {

void JacobianEntries::out_of_order() { throw std::logic_error("spook assembly: a Jacobian entry added to a row other than the last started"); }

namespace {

// Row r's entries are [begin(r), begin(r + 1)).
int row_end(const JacobianEntries& e, int r, int rows) { return r + 1 < rows ? e.row_begin[r + 1] : e.size(); }

// J from the entries: each row's entries ordered by column (a stable insertion sort of
// their indices: rows are short and nearly always sorted already), repeats summed in the
// order added, written straight into J's compressed arrays (kept storage; Eigen's
// insertBack cost ~4x this per entry), and where each entry's value went recorded
// (layout.slot, layout.first) for the steps that repeat the pattern.
void build_rows(const JacobianEntries& e, int rows, int cols, Eigen::SparseMatrix<double, Eigen::RowMajor>& J,
                JacobianLayout& layout) {
  layout.slot.resize(e.col.size());
  layout.first.resize(e.col.size());
  J.resize(rows, cols);
  J.resizeNonZeros(e.size());  // an upper bound: repeats merge
  int* outer = J.outerIndexPtr();
  int* inner = J.innerIndexPtr();
  double* value = J.valuePtr();
  std::vector<int>& order = layout.order;
  int nnz = 0;
  for (int r = 0; r < rows; ++r) {
    outer[r] = nnz;
    const int begin = e.row_begin[r], end = row_end(e, r, rows);
    if (std::is_sorted(e.col.begin() + begin, e.col.begin() + end, std::less_equal<int>())) {
      // Columns strictly ascending (relative_row's rows on two trees): each entry is its own
      // sum, in place (what the sort below would give, without it).
      for (int k = begin; k < end; ++k, ++nnz) {
        inner[nnz] = e.col[k];
        value[nnz] = e.val[k];
        layout.slot[k] = nnz;
        layout.first[k] = true;
      }
      continue;
    }
    order.clear();
    for (int k = begin; k < end; ++k) order.push_back(k);
    for (size_t k = 1; k < order.size(); ++k)
      for (size_t j = k; j > 0 && e.col[order[j - 1]] > e.col[order[j]]; --j) std::swap(order[j - 1], order[j]);
    for (size_t k = 0; k < order.size(); ++nnz) {
      const int c = e.col[order[k]];
      double sum = 0.0;
      for (bool first = true; k < order.size() && e.col[order[k]] == c; ++k, first = false) {
        sum = first ? e.val[order[k]] : sum + e.val[order[k]];
        layout.slot[order[k]] = nnz;
        layout.first[order[k]] = first;
      }
      inner[nnz] = c;
      value[nnz] = sum;
    }
  }
  outer[rows] = nnz;
  J.resizeNonZeros(nnz);
}

}  // namespace

bool fill_rows(const JacobianEntries& entries, int rows, int cols, Eigen::SparseMatrix<double, Eigen::RowMajor>& J,
               JacobianLayout& layout) {
  if (static_cast<int>(entries.row_begin.size()) != rows)
    throw std::logic_error("spook assembly: Jacobian rows started differ from the problem's rows");
  if (rows == layout.rows && cols == layout.cols && entries.row_begin == layout.row_begin && entries.col == layout.col) {
    double* value = J.valuePtr();
    for (size_t k = 0; k < entries.val.size(); ++k) {
      if (layout.first[k]) value[layout.slot[k]] = entries.val[k];
      else value[layout.slot[k]] += entries.val[k];
    }
    return true;
  }
  layout.row_begin = entries.row_begin;
  layout.col = entries.col;
  layout.rows = rows;
  layout.cols = cols;
  build_rows(entries, rows, cols, J, layout);
  return false;
}

}  // namespace graspsim
