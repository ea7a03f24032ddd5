#include "steppers/jacobian_rows.h"

#include <stdexcept>

namespace graspsim {
namespace {

// Whether this step's triplets have last step's (row, col) sequence.
bool same_pattern(const std::vector<Eigen::Triplet<double>>& triplets, int rows, int cols,
                  const JacobianLayout& layout) {
  if (rows != layout.rows || cols != layout.cols || triplets.size() != layout.keys.size()) return false;
  for (size_t k = 0; k < triplets.size(); ++k)
    if (triplets[k].row() != layout.keys[k].first || triplets[k].col() != layout.keys[k].second) return false;
  return true;
}

// J from its triplets, which the builders append row by row (rows ascending): each row's
// entries are sorted by column (stably) and duplicates summed in the order they were
// added, as setFromTriplets would, but written straight into J's compressed arrays (kept
// storage; Eigen's insertBack cost ~4x this per entry on a pile's 16k entries a step).
void build_rows(std::vector<Eigen::Triplet<double>>& triplets, int rows, int cols,
                Eigen::SparseMatrix<double, Eigen::RowMajor>& J) {
  J.resize(rows, cols);
  J.resizeNonZeros(static_cast<Eigen::Index>(triplets.size()));  // an upper bound: duplicates merge
  int* outer = J.outerIndexPtr();
  int* inner = J.innerIndexPtr();
  double* value = J.valuePtr();
  const size_t size = triplets.size();
  size_t t = 0;
  int nnz = 0;
  for (int r = 0; r < rows; ++r) {
    outer[r] = nnz;
    const size_t begin = t;
    while (t < size && triplets[t].row() == r) ++t;
    for (size_t k = begin + 1; k < t; ++k)  // insertion sort: stable, in place, rows are short
      for (size_t j = k; j > begin && triplets[j - 1].col() > triplets[j].col(); --j)
        std::swap(triplets[j - 1], triplets[j]);
    for (size_t k = begin; k < t;) {
      const int col = triplets[k].col();
      double sum = triplets[k++].value();
      while (k < t && triplets[k].col() == col) sum += triplets[k++].value();
      inner[nnz] = col;
      value[nnz++] = sum;
    }
  }
  outer[rows] = nnz;
  J.resizeNonZeros(nnz);
  if (t != size) throw std::logic_error("spook assembly: Jacobian entries out of row order");
}

// The same, recording where each triplet's value goes (layout.slot, layout.first).
void build_rows_recorded(const std::vector<Eigen::Triplet<double>>& triplets, int rows, int cols,
                         Eigen::SparseMatrix<double, Eigen::RowMajor>& J, JacobianLayout& layout) {
  layout.slot.resize(triplets.size());
  layout.first.resize(triplets.size());
  J.resize(rows, cols);
  std::vector<int>& order = layout.order;
  size_t t = 0;
  int nnz = 0;
  for (int r = 0; r < rows; ++r) {
    J.startVec(r);
    order.clear();
    for (; t < triplets.size() && triplets[t].row() == r; ++t) order.push_back(static_cast<int>(t));
    for (size_t k = 1; k < order.size(); ++k)  // (the same stable sort, of indices)
      for (size_t j = k; j > 0 && triplets[order[j - 1]].col() > triplets[order[j]].col(); --j)
        std::swap(order[j - 1], order[j]);
    for (size_t k = 0; k < order.size(); ++nnz) {
      const int col = triplets[order[k]].col();
      double value = 0.0;
      for (bool first = true; k < order.size() && triplets[order[k]].col() == col; ++k, first = false) {
        value = first ? triplets[order[k]].value() : value + triplets[order[k]].value();
        layout.slot[order[k]] = nnz;
        layout.first[order[k]] = first;
      }
      J.insertBack(r, col) = value;
    }
  }
  J.finalize();
  layout.has_slots = true;
}

}  // namespace

bool fill_rows(std::vector<Eigen::Triplet<double>>& triplets, int rows, int cols,
               Eigen::SparseMatrix<double, Eigen::RowMajor>& J, JacobianLayout& layout) {
  if (same_pattern(triplets, rows, cols, layout)) {
    if (!layout.has_slots) {
      build_rows_recorded(triplets, rows, cols, J, layout);
      return true;
    }
    double* value = J.valuePtr();
    for (size_t k = 0; k < triplets.size(); ++k) {
      if (layout.first[k]) value[layout.slot[k]] = triplets[k].value();
      else value[layout.slot[k]] += triplets[k].value();
    }
    return true;
  }
  layout.has_slots = false;
  layout.keys.resize(triplets.size());
  for (size_t k = 0; k < triplets.size(); ++k) layout.keys[k] = {triplets[k].row(), triplets[k].col()};
  layout.rows = rows;
  layout.cols = cols;
  build_rows(triplets, rows, cols, J);
  return false;
}

}  // namespace graspsim
