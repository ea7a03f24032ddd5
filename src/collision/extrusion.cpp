#include "collision/extrusion.h"

#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Partition_traits_2.h>
#include <CGAL/Polygon_2.h>
#include <CGAL/convex_hull_2.h>
#include <CGAL/partition_2.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <list>

#include "core/error.h"

namespace graspsim {
namespace {

// Exact predicates: the orientation and simplicity tests are decided exactly on the given doubles,
// and a partition only joins existing vertices, so the pieces' corners are the outline's points.
using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
using Traits = CGAL::Partition_traits_2<Kernel>;
using Point = Traits::Point_2;
using Polygon = Traits::Polygon_2;

constexpr std::size_t kOptimalUpTo = 64;  // optimal_convex_partition_2 is O(n^4): 100 points take 0.16 s

Point to_cgal(const Vec2& p) { return {p.x(), p.y()}; }

Polygon to_polygon(const Outline& o) {
  Polygon poly;
  for (const Vec2& p : o) poly.push_back(to_cgal(p));
  return poly;
}

// Splits a convex polygon along diagonals until every piece has at most kMaxPieceVertices.
void add_fitting(const Outline& piece, std::vector<Outline>& out) {
  if (piece.size() <= kMaxPieceVertices) {
    out.push_back(piece);
    return;
  }
  const std::size_t half = piece.size() / 2;
  add_fitting(Outline(piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(half) + 1), out);
  Outline rest(piece.begin() + static_cast<std::ptrdiff_t>(half), piece.end());
  rest.push_back(piece.front());
  add_fitting(rest, out);
}

}  // namespace

double signed_area(const Outline& poly) {
  double a = 0;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Vec2& p = poly[i];
    const Vec2& q = poly[(i + 1) % poly.size()];
    a += p.x() * q.y() - q.x() * p.y();
  }
  return 0.5 * a;
}

Outline convex_hull(const Outline& points) {
  std::vector<Point> in, out;
  for (const Vec2& p : points) in.push_back(to_cgal(p));
  CGAL::convex_hull_2(in.begin(), in.end(), std::back_inserter(out));
  Outline hull;
  for (const Point& p : out) hull.emplace_back(p.x(), p.y());
  return hull;
}

Outline simple_outline(const Outline& points) {
  if (points.size() > kMaxOutlinePoints)
    throw InputError("the outline has " + std::to_string(points.size()) + " points; the limit is " +
                     std::to_string(kMaxOutlinePoints));
  for (const Vec2& p : points)
    if (!p.allFinite()) throw InputError("the outline has a non-finite point");
  Outline o;
  for (const Vec2& p : points)
    if (o.empty() || p != o.back()) o.push_back(p);
  while (o.size() > 1 && o.back() == o.front()) o.pop_back();
  // Drop points where the outline goes straight on or doubles back on itself, until none is left.
  for (bool changed = true; changed && o.size() >= 3;) {
    changed = false;
    for (std::size_t i = 0; i < o.size() && o.size() >= 3; ++i) {
      const Point a = to_cgal(o[(i + o.size() - 1) % o.size()]), b = to_cgal(o[i]), c = to_cgal(o[(i + 1) % o.size()]);
      if (CGAL::orientation(a, b, c) == CGAL::COLLINEAR) {
        o.erase(o.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
  if (o.size() < 3) throw InputError("the outline needs at least 3 points that are not on one line");
  if (!to_polygon(o).is_simple()) throw InputError("the outline crosses or touches itself (it must be a simple polygon)");
  if (signed_area(o) < 0) std::reverse(o.begin(), o.end());
  return o;
}

bool is_convex(const Outline& ccw) {
  for (std::size_t i = 0; i < ccw.size(); ++i) {
    const Point a = to_cgal(ccw[i]), b = to_cgal(ccw[(i + 1) % ccw.size()]), c = to_cgal(ccw[(i + 2) % ccw.size()]);
    if (CGAL::orientation(a, b, c) != CGAL::LEFT_TURN) return false;
  }
  return true;
}

std::vector<Outline> convex_pieces(const Outline& ccw) {
  std::vector<Outline> out;
  if (is_convex(ccw)) {
    add_fitting(ccw, out);
    return out;
  }
  const Polygon poly = to_polygon(ccw);
  std::list<Polygon> parts;
  if (ccw.size() <= kOptimalUpTo)
    CGAL::optimal_convex_partition_2(poly.vertices_begin(), poly.vertices_end(), std::back_inserter(parts), Traits());
  else
    CGAL::greene_approx_convex_partition_2(poly.vertices_begin(), poly.vertices_end(), std::back_inserter(parts), Traits());
  for (const Polygon& part : parts) {
    Outline piece;
    for (auto v = part.vertices_begin(); v != part.vertices_end(); ++v) piece.emplace_back(v->x(), v->y());
    if (signed_area(piece) < 0) std::reverse(piece.begin(), piece.end());
    add_fitting(piece, out);
  }
  return out;
}

Mesh extrude(const Outline& ccw, double height, std::string name) {
  Mesh m;
  m.name = std::move(name);
  const int n = static_cast<int>(ccw.size());
  for (double z : {-height / 2, height / 2})
    for (const Vec2& p : ccw) m.vertices.emplace_back(p.x(), p.y(), z);
  for (int i = 1; i + 1 < n; ++i) {
    m.faces.push_back({0, i + 1, i});          // bottom, seen from below
    m.faces.push_back({n, n + i, n + i + 1});  // top
  }
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    m.faces.push_back({i, j, n + j});
    m.faces.push_back({i, n + j, n + i});
  }
  return m;
}

bool outline_contains(const Outline& poly, const Vec2& q) {
  if (poly.empty()) return false;
  bool in = false;
  for (std::size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const Vec2 &a = poly[j], &b = poly[i];
    if ((a.y() > q.y()) != (b.y() > q.y()) && q.x() < a.x() + (q.y() - a.y()) * (b.x() - a.x()) / (b.y() - a.y()))
      in = !in;
  }
  return in;
}

double outline_signed_distance(const Outline& poly, const Vec2& q, Vec2* away) {
  double best = std::numeric_limits<double>::infinity();
  Vec2 nearest = q, edge_normal = Vec2::UnitX();
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Vec2& a = poly[i];
    const Vec2 e = poly[(i + 1) % poly.size()] - a;
    const Vec2 c = a + std::clamp((q - a).dot(e) / e.squaredNorm(), 0.0, 1.0) * e;
    const double d = (q - c).norm();
    if (d < best) best = d, nearest = c, edge_normal = Vec2(e.y(), -e.x()).normalized();
  }
  const bool inside = outline_contains(poly, q);
  if (away) *away = best > 0 ? Vec2((inside ? nearest - q : q - nearest).normalized()) : edge_normal;
  return inside ? -best : best;
}

}  // namespace graspsim
