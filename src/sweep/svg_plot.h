#pragma once
// Small SVG charts for the sweep report (a self-contained HTML page, no plotting stack on
// the machine that runs the sweep): lines with a spread band, heat maps, histograms and
// scatter plots.

#include <string>
#include <vector>

namespace graspsim::svg {

struct Series {
  std::string label;
  std::vector<double> x, y, lo, hi;  // lo/hi: the band (may be empty)
};

struct Marker {  // a reference point (scatter) or value (histogram: a vertical line)
  std::string label;
  double x = 0, y = 0;
};

std::string line_chart(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                       const std::vector<Series>& series, bool log_x);

// values[row][col] at (xs[col], ys[row]); NaN cells are left blank.
std::string heat_map(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                     const std::vector<double>& xs, const std::vector<double>& ys,
                     const std::vector<std::vector<double>>& values);

std::string histogram(const std::string& title, const std::string& xlabel, const std::vector<Series>& samples,
                      const std::vector<Marker>& markers);

std::string scatter(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                    const std::vector<Series>& series, const std::vector<Marker>& markers);

std::string escape(const std::string& text);

}  // namespace graspsim::svg
