#include "steppers/jacobian_rows.h"

#include <stdexcept>
#include <utility>

namespace graspsim {

void JacobianEntries::out_of_order() { throw std::logic_error("spook assembly: a Jacobian entry added to a row other than the last started"); }

namespace {

// Row r's entries are [begin(r), begin(r + 1)).
int row_end(const JacobianEntries& e, int r, int rows) { return r + 1 < rows ? e.row_begin[r + 1] : e.size(); }

// J from the entries, each row sorted by column in place (stable insertion sort: rows are
// short and nearly always sorted already) and repeats summed, written straight into J's
// compressed arrays (kept storage; Eigen's insertBack cost ~4x this per entry).
void build_rows(JacobianEntries& e, int rows, int cols, Eigen::SparseMatrix<double, Eigen::RowMajor>& J) {
  J.resize(rows, cols);
  J.resizeNonZeros(e.size());  // an upper bound: repeats merge
  int* outer = J.outerIndexPtr();
  int* inner = J.innerIndexPtr();
  double* value = J.valuePtr();
  int nnz = 0;
  for (int r = 0; r < rows; ++r) {
    outer[r] = nnz;
    const int begin = e.row_begin[r], end = row_end(e, r, rows);
    for (int k = begin + 1; k < end; ++k)
      for (int j = k; j > begin && e.col[j - 1] > e.col[j]; --j) {
        std::swap(e.col[j - 1], e.col[j]);
        std::swap(e.val[j - 1], e.val[j]);
      }
    for (int k = begin; k < end;) {
      const int c = e.col[k];
      double sum = e.val[k++];
      while (k < end && e.col[k] == c) sum += e.val[k++];
      inner[nnz] = c;
      value[nnz++] = sum;
    }
  }
  outer[rows] = nnz;
  J.resizeNonZeros(nnz);
}

// The same, leaving the entries in their order and recording where each one's value goes
// (layout.slot, layout.first).
void build_rows_recorded(const JacobianEntries& e, int rows, int cols, Eigen::SparseMatrix<double, Eigen::RowMajor>& J,
                         JacobianLayout& layout) {
  layout.slot.resize(e.col.size());
  layout.first.resize(e.col.size());
  J.resize(rows, cols);
  J.resizeNonZeros(e.size());
  int* outer = J.outerIndexPtr();
  int* inner = J.innerIndexPtr();
  double* value = J.valuePtr();
  std::vector<int>& order = layout.order;
  int nnz = 0;
  for (int r = 0; r < rows; ++r) {
    outer[r] = nnz;
    order.clear();
    for (int k = e.row_begin[r]; k < row_end(e, r, rows); ++k) order.push_back(k);
    for (size_t k = 1; k < order.size(); ++k)  // (the same stable sort, of indices)
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
  layout.has_slots = true;
}

}  // namespace

bool fill_rows(JacobianEntries& entries, int rows, int cols, Eigen::SparseMatrix<double, Eigen::RowMajor>& J,
               JacobianLayout& layout) {
  if (static_cast<int>(entries.row_begin.size()) != rows)
    throw std::logic_error("spook assembly: Jacobian rows started differ from the problem's rows");
  if (rows == layout.rows && cols == layout.cols && entries.row_begin == layout.row_begin && entries.col == layout.col) {
    if (!layout.has_slots) {
      build_rows_recorded(entries, rows, cols, J, layout);
      return true;
    }
    double* value = J.valuePtr();
    for (size_t k = 0; k < entries.val.size(); ++k) {
      if (layout.first[k]) value[layout.slot[k]] = entries.val[k];
      else value[layout.slot[k]] += entries.val[k];
    }
    return true;
  }
  layout.has_slots = false;
  layout.row_begin = entries.row_begin;
  layout.col = entries.col;
  layout.rows = rows;
  layout.cols = cols;
  build_rows(entries, rows, cols, J);
  return false;
}

}  // namespace graspsim
