// SVG charts: a fixed 480x320 frame, "nice" ticks, a legend, one colour per series.

#include "sweep/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

namespace graspsim::svg {
namespace {

constexpr double kW = 480, kH = 320, kLeft = 64, kRight = 16, kTop = 28, kBottom = 44;
const char* const kColours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

std::string num(double x) {
  char t[32];
  std::snprintf(t, sizeof t, "%.4g", x);
  return t;
}

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  void settle() {  // an empty or flat range still gets an axis
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) {
      const double d = std::max(std::abs(lo) * 0.05, 1e-9);
      lo -= d, hi += d;
    }
  }
};

// Linear or base-10 log axis onto [a, b] pixels.
struct Axis {
  Range r;
  double a, b;
  bool log = false;
  double t(double v) const { return log ? std::log10(v) : v; }
  double px(double v) const { return a + (t(v) - t(r.lo)) / (t(r.hi) - t(r.lo)) * (b - a); }
  std::vector<double> ticks() const {
    std::vector<double> out;
    if (log) {
      for (double e = std::floor(std::log10(r.lo)); e <= std::ceil(std::log10(r.hi)); ++e)
        if (const double v = std::pow(10.0, e); v >= r.lo * (1 - 1e-9) && v <= r.hi * (1 + 1e-9)) out.push_back(v);
      if (out.size() < 2) out = {r.lo, r.hi};
      return out;
    }
    const double raw = (r.hi - r.lo) / 5, mag = std::pow(10.0, std::floor(std::log10(raw)));
    const double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
    for (double v = std::ceil(r.lo / step) * step; v <= r.hi + 1e-9 * step; v += step) out.push_back(std::abs(v) < 1e-12 * step ? 0.0 : v);
    return out;
  }
};

class Frame {
 public:
  Frame(const std::string& title, const std::string& xlabel, const std::string& ylabel, Range xr, Range yr, bool log_x) {
    xr.settle(), yr.settle();
    x_ = {xr, kLeft, kW - kRight, log_x && xr.lo > 0};
    y_ = {yr, kH - kBottom, kTop, false};
    o_ << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kW << "' height='" << kH << "' viewBox='0 0 " << kW << ' ' << kH
       << "' font-family='sans-serif' font-size='11'>\n<rect width='100%' height='100%' fill='white'/>\n"
       << "<text x='" << kW / 2 << "' y='16' text-anchor='middle' font-size='13'>" << escape(title) << "</text>\n"
       << "<text x='" << (kLeft + kW - kRight) / 2 << "' y='" << kH - 6 << "' text-anchor='middle'>" << escape(xlabel) << "</text>\n"
       << "<text transform='translate(12," << (kTop + kH - kBottom) / 2 << ") rotate(-90)' text-anchor='middle'>" << escape(ylabel)
       << "</text>\n";
    for (double v : x_.ticks())
      o_ << "<line x1='" << x_.px(v) << "' x2='" << x_.px(v) << "' y1='" << kTop << "' y2='" << kH - kBottom
         << "' stroke='#ddd'/><text x='" << x_.px(v) << "' y='" << kH - kBottom + 14 << "' text-anchor='middle'>" << num(v) << "</text>\n";
    for (double v : y_.ticks())
      o_ << "<line x1='" << kLeft << "' x2='" << kW - kRight << "' y1='" << y_.px(v) << "' y2='" << y_.px(v)
         << "' stroke='#ddd'/><text x='" << kLeft - 4 << "' y='" << y_.px(v) + 4 << "' text-anchor='end'>" << num(v) << "</text>\n";
    o_ << "<rect x='" << kLeft << "' y='" << kTop << "' width='" << kW - kLeft - kRight << "' height='" << kH - kTop - kBottom
       << "' fill='none' stroke='#444'/>\n";
  }
  const Axis& x() const { return x_; }
  const Axis& y() const { return y_; }
  std::ostringstream& out() { return o_; }
  void legend(const std::vector<std::string>& labels) {
    if (labels.size() < 2 && (labels.empty() || labels[0].empty())) return;
    for (std::size_t i = 0; i < labels.size(); ++i)
      o_ << "<rect x='" << kLeft + 8 << "' y='" << kTop + 6 + 14 * i << "' width='10' height='10' fill='" << colour(i)
         << "'/><text x='" << kLeft + 22 << "' y='" << kTop + 15 + 14 * i << "'>" << escape(labels[i]) << "</text>\n";
  }
  std::string str() {
    o_ << "</svg>\n";
    return o_.str();
  }
  static const char* colour(std::size_t i) { return kColours[i % std::size(kColours)]; }

 private:
  Axis x_, y_;
  std::ostringstream o_;
};

std::vector<std::string> labels_of(const std::vector<Series>& s) {
  std::vector<std::string> l;
  for (const auto& x : s) l.push_back(x.label);
  return l;
}

// Viridis at five stops, interpolated.
std::string viridis(double f) {
  static const double c[5][3] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  f = std::clamp(f, 0.0, 1.0) * 4;
  const int i = std::min(3, static_cast<int>(f));
  const double u = f - i;
  char t[16];
  std::snprintf(t, sizeof t, "#%02x%02x%02x", static_cast<int>(c[i][0] + u * (c[i + 1][0] - c[i][0])),
                static_cast<int>(c[i][1] + u * (c[i + 1][1] - c[i][1])), static_cast<int>(c[i][2] + u * (c[i + 1][2] - c[i][2])));
  return t;
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '\'') out += "&#39;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string line_chart(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                       const std::vector<Series>& series, bool log_x) {
  Range xr, yr;
  for (const auto& s : series) {
    for (double v : s.x) xr.add(v);
    for (const auto* ys : {&s.y, &s.lo, &s.hi})
      for (double v : *ys) yr.add(v);
  }
  Frame f(title, xlabel, ylabel, xr, yr, log_x);
  for (std::size_t k = 0; k < series.size(); ++k) {
    const Series& s = series[k];
    if (s.lo.size() == s.x.size() && s.hi.size() == s.x.size() && !s.x.empty()) {
      f.out() << "<polygon fill='" << Frame::colour(k) << "' fill-opacity='0.18' stroke='none' points='";
      for (std::size_t i = 0; i < s.x.size(); ++i) f.out() << f.x().px(s.x[i]) << ',' << f.y().px(s.hi[i]) << ' ';
      for (std::size_t i = s.x.size(); i-- > 0;) f.out() << f.x().px(s.x[i]) << ',' << f.y().px(s.lo[i]) << ' ';
      f.out() << "'/>\n";
    }
    f.out() << "<polyline fill='none' stroke='" << Frame::colour(k) << "' stroke-width='2' points='";
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.y[i])) f.out() << f.x().px(s.x[i]) << ',' << f.y().px(s.y[i]) << ' ';
    f.out() << "'/>\n";
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.y[i]))
        f.out() << "<circle cx='" << f.x().px(s.x[i]) << "' cy='" << f.y().px(s.y[i]) << "' r='3' fill='" << Frame::colour(k) << "'/>\n";
  }
  f.legend(labels_of(series));
  return f.str();
}

std::string heat_map(const std::string& title, const std::string& xlabel, const std::string& ylabel,
                     const std::vector<double>& xs, const std::vector<double>& ys, const std::vector<std::vector<double>>& values) {
  Range vr;
  for (const auto& row : values)
    for (double v : row) vr.add(v);
  vr.settle();
  // Cells are drawn by index; the tick labels are the values.
  Range xr, yr;
  xr.add(-0.5), xr.add(static_cast<double>(xs.size()) - 0.5);
  yr.add(-0.5), yr.add(static_cast<double>(ys.size()) - 0.5);
  std::ostringstream o;
  const double w = (kW - kLeft - kRight - 40) / static_cast<double>(std::max<std::size_t>(xs.size(), 1));
  const double h = (kH - kTop - kBottom) / static_cast<double>(std::max<std::size_t>(ys.size(), 1));
  o << "<svg xmlns='http://www.w3.org/2000/svg' width='" << kW << "' height='" << kH << "' font-family='sans-serif' font-size='11'>\n"
    << "<rect width='100%' height='100%' fill='white'/><text x='" << kW / 2 << "' y='16' text-anchor='middle' font-size='13'>"
    << escape(title) << "</text>\n";
  for (std::size_t r = 0; r < ys.size(); ++r)
    for (std::size_t c = 0; c < xs.size(); ++c) {
      const double v = r < values.size() && c < values[r].size() ? values[r][c] : NAN;
      const double x0 = kLeft + w * c, y0 = kH - kBottom - h * (r + 1);
      o << "<rect x='" << x0 << "' y='" << y0 << "' width='" << w << "' height='" << h << "' fill='"
        << (std::isfinite(v) ? viridis((v - vr.lo) / (vr.hi - vr.lo)) : "#fff") << "' stroke='#fff'><title>" << num(v) << "</title></rect>\n";
      if (xs.size() * ys.size() <= 64 && std::isfinite(v))
        o << "<text x='" << x0 + w / 2 << "' y='" << y0 + h / 2 + 4 << "' text-anchor='middle' fill='"
          << ((v - vr.lo) / (vr.hi - vr.lo) > 0.6 ? "#000" : "#fff") << "'>" << num(v) << "</text>\n";
    }
  const std::size_t xstep = std::max<std::size_t>(1, xs.size() / 8), ystep = std::max<std::size_t>(1, ys.size() / 10);
  for (std::size_t c = 0; c < xs.size(); c += xstep)
    o << "<text x='" << kLeft + w * (c + 0.5) << "' y='" << kH - kBottom + 14 << "' text-anchor='middle'>" << num(xs[c]) << "</text>\n";
  for (std::size_t r = 0; r < ys.size(); r += ystep)
    o << "<text x='" << kLeft - 4 << "' y='" << kH - kBottom - h * (r + 0.5) + 4 << "' text-anchor='end'>" << num(ys[r]) << "</text>\n";
  o << "<text x='" << (kLeft + kW - kRight - 40) / 2 << "' y='" << kH - 6 << "' text-anchor='middle'>" << escape(xlabel) << "</text>\n"
    << "<text transform='translate(12," << (kTop + kH - kBottom) / 2 << ") rotate(-90)' text-anchor='middle'>" << escape(ylabel) << "</text>\n";
  for (int i = 0; i < 20; ++i)  // the colour bar
    o << "<rect x='" << kW - kRight - 24 << "' y='" << kH - kBottom - (i + 1) * (kH - kTop - kBottom) / 20 << "' width='12' height='"
      << (kH - kTop - kBottom) / 20 + 0.5 << "' fill='" << viridis((i + 0.5) / 20) << "'/>\n";
  o << "<text x='" << kW - kRight - 18 << "' y='" << kTop - 2 << "' text-anchor='middle'>" << num(vr.hi) << "</text>"
    << "<text x='" << kW - kRight - 18 << "' y='" << kH - kBottom + 14 << "' text-anchor='middle'>" << num(vr.lo) << "</text>\n</svg>\n";
  return o.str();
}

std::string histogram(const std::string& title, const std::string& xlabel, const std::vector<Series>& samples,
                      const std::vector<Marker>& markers) {
  Range xr;
  std::size_t n = 0;
  for (const auto& s : samples) {
    for (double v : s.x) xr.add(v);
    n = std::max(n, s.x.size());
  }
  for (const auto& m : markers) xr.add(m.x);
  xr.settle();
  const int bins = std::clamp(static_cast<int>(std::sqrt(static_cast<double>(n))) + 1, 5, 40);
  std::vector<std::vector<double>> counts(samples.size(), std::vector<double>(bins, 0.0));
  Range yr;
  yr.add(0);
  for (std::size_t k = 0; k < samples.size(); ++k)
    for (double v : samples[k].x)
      if (std::isfinite(v)) {
        const int b = std::clamp(static_cast<int>((v - xr.lo) / (xr.hi - xr.lo) * bins), 0, bins - 1);
        yr.add(++counts[k][static_cast<std::size_t>(b)]);
      }
  Frame f(title, xlabel, "jobs", xr, yr, false);
  const double bw = (xr.hi - xr.lo) / bins;
  for (std::size_t k = 0; k < samples.size(); ++k)
    for (int b = 0; b < bins; ++b) {
      if (counts[k][static_cast<std::size_t>(b)] == 0) continue;
      const double x0 = f.x().px(xr.lo + b * bw), x1 = f.x().px(xr.lo + (b + 1) * bw);
      const double y1 = f.y().px(counts[k][static_cast<std::size_t>(b)]), y0 = f.y().px(0);
      f.out() << "<rect x='" << x0 << "' y='" << y1 << "' width='" << x1 - x0 << "' height='" << y0 - y1 << "' fill='" << Frame::colour(k)
              << "' fill-opacity='" << (samples.size() > 1 ? 0.45 : 0.8) << "'/>\n";
    }
  for (const auto& m : markers)
    f.out() << "<line x1='" << f.x().px(m.x) << "' x2='" << f.x().px(m.x) << "' y1='" << kTop << "' y2='" << kH - kBottom
            << "' stroke='#000' stroke-width='2' stroke-dasharray='5,3'/><text x='" << f.x().px(m.x) + 4 << "' y='" << kTop + 12 << "'>"
            << escape(m.label) << "</text>\n";
  f.legend(labels_of(samples));
  return f.str();
}

std::string scatter(const std::string& title, const std::string& xlabel, const std::string& ylabel, const std::vector<Series>& series,
                    const std::vector<Marker>& markers) {
  Range xr, yr;
  for (const auto& s : series) {
    for (double v : s.x) xr.add(v);
    for (double v : s.y) yr.add(v);
  }
  for (const auto& m : markers) xr.add(m.x), yr.add(m.y);
  Frame f(title, xlabel, ylabel, xr, yr, false);
  for (std::size_t k = 0; k < series.size(); ++k)
    for (std::size_t i = 0; i < series[k].x.size(); ++i)
      if (std::isfinite(series[k].x[i]) && std::isfinite(series[k].y[i]))
        f.out() << "<circle cx='" << f.x().px(series[k].x[i]) << "' cy='" << f.y().px(series[k].y[i]) << "' r='2.5' fill='"
                << Frame::colour(k) << "' fill-opacity='0.6'/>\n";
  for (const auto& m : markers) {
    const double x = f.x().px(m.x), y = f.y().px(m.y);
    f.out() << "<path d='M" << x - 7 << ',' << y - 7 << " L" << x + 7 << ',' << y + 7 << " M" << x - 7 << ',' << y + 7 << " L" << x + 7
            << ',' << y - 7 << "' stroke='#000' stroke-width='3'/><text x='" << x + 9 << "' y='" << y - 6 << "'>" << escape(m.label)
            << "</text>\n";
  }
  f.legend(labels_of(series));
  return f.str();
}

}  // namespace graspsim::svg
