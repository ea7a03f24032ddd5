#pragma once
// Extruded outlines (prisms) that collide as their true shape: a simple polygon is split into
// convex polygons, exactly (the pieces tile the outline; no point is moved), and each piece is
// extruded into a convex mesh. Contacts on a non-convex outline then land where the outline
// really is (a pusher in a concave waist touches the waist, not the convex hull), and a piece's
// bottom face is the part of the true footprint under it.

#include <string>
#include <vector>

#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

using Vec2 = Eigen::Vector2d;
using Outline = std::vector<Vec2>;

// Limits, so a bad outline cannot make the load quadratic or quartic in its size.
inline constexpr std::size_t kMaxOutlinePoints = 4096;
// A piece's faces are clipped as polygons of at most collision's kMaxPolygon (64) vertices;
// larger convex pieces are halved along a diagonal until they fit.
inline constexpr std::size_t kMaxPieceVertices = 60;

// The outline cleaned (repeated and collinear points dropped, a closing repeat of the first
// point dropped) and made counter-clockwise. InputError (text without a location: the caller
// names the file and line) when it has fewer than 3 distinct points, a non-finite or
// zero-area outline, or crosses itself.
Outline simple_outline(const Outline& points);

// True when the (cleaned, counter-clockwise) outline turns left at every vertex.
bool is_convex(const Outline& ccw);

// Convex pieces of a simple counter-clockwise outline whose union is the outline: CGAL's
// optimal convex partition (fewest pieces) up to 64 vertices, Greene's approximation above;
// pieces larger than kMaxPieceVertices are halved. A convex outline is one piece.
std::vector<Outline> convex_pieces(const Outline& ccw);

// The prism over a counter-clockwise convex polygon from z = -height/2 to +height/2, its faces
// triangulated counter-clockwise seen from outside.
Mesh extrude(const Outline& ccw, double height, std::string name);

double signed_area(const Outline& poly);  // positive counter-clockwise

// The convex hull of the points, counter-clockwise, without collinear points.
Outline convex_hull(const Outline& points);

// Whether q lies inside a simple polygon (either orientation, convex or not; crossing number).
bool outline_contains(const Outline& poly, const Vec2& q);

// Signed distance from q to a simple polygon's boundary (negative inside). `away`, when
// given: the unit direction that leads out of the polygon fastest from q (away from the
// nearest boundary point; on the boundary, the nearest edge's outward normal for a
// counter-clockwise polygon).
double outline_signed_distance(const Outline& poly, const Vec2& q, Vec2* away = nullptr);

}  // namespace graspsim
