#include "collision/shapes.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace graspsim {
namespace {

double sgn(double x) { return x >= 0.0 ? 1.0 : -1.0; }
static_assert(sizeof(Vec3) == 3 * sizeof(double), "hull vertices are read as packed doubles");

// As hull_support_index's scan computes it, so that equal means equal.
double dot3(const Vec3& a, const Vec3& d) { return a.x() * d.x() + a.y() * d.y() + a.z() * d.z(); }

// The start of a climb along d: the support at the centre of d's cell of the cube map
// (MeshClimbIndex::cube_start), or the axis extreme.
int cube_start(const MeshClimbIndex& c, const Vec3& d) {
  int axis = 0;
  const double major = d.cwiseAbs().maxCoeff(&axis);
  const int face = 2 * axis + (d[axis] >= 0.0 ? 0 : 1);
  if (c.cube_start.empty() || !(major > 0.0)) return c.axis_extreme[static_cast<size_t>(face)];
  constexpr int K = MeshClimbIndex::kCubeCells;
  auto cell = [&](double x) { return std::clamp(static_cast<int>((x / major + 1.0) * (0.5 * K)), 0, K - 1); };
  return c.cube_start[static_cast<size_t>((face * K + cell(d[(axis + 1) % 3])) * K + cell(d[(axis + 2) % 3]))];
}

// The climb's answer is the scan's, wherever it starts: among vertices equally far it walks
// the plateau (the maximising face, whose vertices its edges connect) to the lowest index.
int climb_support_index(const Mesh& mesh, const MeshClimbIndex& c, const Vec3& d, int hint, bool lowest_of_ties) {
  const std::vector<Vec3>& v = mesh.vertices;
  int at = cube_start(c, d);
  double best = dot3(v[static_cast<size_t>(at)], d);
  // The hint (the last answer, for GJK's nearby directions) when it is further along d. (A hint
  // from another mesh, e.g. a Broadphase reused across models, is only a start.)
  if (hint >= 0 && hint < static_cast<int>(v.size()) &&
      c.neighbour_start[static_cast<size_t>(hint)] != c.neighbour_start[static_cast<size_t>(hint) + 1]) {
    if (const double h = dot3(v[static_cast<size_t>(hint)], d); h > best) best = h, at = hint;
  }
  double runner_up = -kInf;  // the best neighbour of `at` in the last pass
  for (bool moved = true; moved;) {
    moved = false;
    runner_up = -kInf;
    const int from = at;
    for (int k = c.neighbour_start[static_cast<size_t>(from)]; k < c.neighbour_start[static_cast<size_t>(from) + 1]; ++k) {
      const int w = c.neighbours[static_cast<size_t>(k)];
      const double dot = dot3(v[static_cast<size_t>(w)], d);
      if (dot > best) best = dot, at = w, moved = true;
      else runner_up = std::max(runner_up, dot);
    }
  }
  // The scan's answer is the lowest index of the greatest value. qhull leaves out a face's
  // inner points and points within rounding of its plane, which can tie or beat `at` by an
  // ulp: walk the vertices within `near` of it, along hull edges and mesh faces.
  if (!lowest_of_ties) return at;
  const double near = 1e-10 * c.radius * d.norm();
  // Every vertex on the hull: a tie or near tie would be one of its hull neighbours.
  if (c.own_hull && runner_up < best - near) return at;
  std::array<int, kMaxPolygon> plateau;
  int size = 1, answer = at;
  plateau[0] = at;
  auto visit = [&](int w) {
    const double dot = dot3(v[static_cast<size_t>(w)], d);
    if (dot < best - near) return true;
    if (std::find(plateau.begin(), plateau.begin() + size, w) != plateau.begin() + size) return true;
    if (size == kMaxPolygon) return false;  // a plateau this wide: any of it is a support point
    plateau[static_cast<size_t>(size++)] = w;
    if (dot > best || (dot == best && w < answer)) best = dot, answer = w;
    return true;
  };
  for (int i = 0; i < size; ++i) {
    const auto from = static_cast<size_t>(plateau[static_cast<size_t>(i)]);
    for (int k = c.neighbour_start[from]; k < c.neighbour_start[from + 1]; ++k)
      if (!visit(c.neighbours[static_cast<size_t>(k)])) return answer;
    if (c.own_hull) continue;  // its hull edges reach every tie
    for (int k = c.face_start[from]; k < c.face_start[from + 1]; ++k)
      for (int w : mesh.faces[static_cast<size_t>(c.faces[static_cast<size_t>(k)])])
        if (!visit(w)) return answer;
  }
  return answer;
}

}  // namespace

int hull_support_index(const Mesh& mesh, const Vec3& d, int* hint, bool lowest_of_ties) {
  if (mesh.climb) {
    const int i = climb_support_index(mesh, *mesh.climb, d, hint ? *hint : -1, lowest_of_ties);
    if (hint) *hint = i;
    return i;
  }
  const double* v = mesh.vertices.front().data();  // Vec3 is three packed doubles
  const int n = static_cast<int>(mesh.vertices.size());
  const double x = d.x(), y = d.y(), z = d.z();
  double best = -kInf;
  int index = 0;
  for (int i = 0; i < n; ++i) {  // branch-free so it vectorises
    const double dot = v[3 * i] * x + v[3 * i + 1] * y + v[3 * i + 2] * z;
    index = dot > best ? i : index;
    best = dot > best ? dot : best;
  }
  return index;
}

namespace {

// A unit vector perpendicular to the axis, fixed in the geom frame unless `toward` has a
// clear component off the axis (then the rim point most along `toward`).
Vec3 rim_direction(const ConvexShape& s, const Vec3& toward) {
  const Vec3 a = s.axis();
  const Vec3 off = toward - toward.dot(a) * a;
  const double len = off.norm();
  // Below ~1e-3 rad the direction is noise; a body-fixed one keeps features stable.
  if (len > 1e-3 * toward.norm()) return off / len;
  return s.R.col(0);
}

void box_face(const ConvexShape& s, const Vec3& n, SupportFeature& out) {
  const Vec3 nl = s.R.transpose() * n;
  int k = 0;
  nl.cwiseAbs().maxCoeff(&k);
  const double sk = sgn(nl[k]);
  const int i = (k + 1) % 3, j = (k + 2) % 3;
  // Counter-clockwise about the outward normal sk * e_k.
  static constexpr double a[4] = {1, -1, -1, 1}, b[4] = {1, 1, -1, -1};
  out.poly.n = 0;
  for (int m = 0; m < 4; ++m) {
    const int mm = sk > 0 ? m : 3 - m;
    Vec3 c;
    c[k] = sk * s.size[k];
    c[i] = a[mm] * s.size[i];
    c[j] = b[mm] * s.size[j];
    std::uint32_t corner = (c.x() > 0 ? 1u : 0u) | (c.y() > 0 ? 2u : 0u) | (c.z() > 0 ? 4u : 0u);
    out.poly.push(s.R * c + s.p, corner);
  }
  out.normal = sk * s.R.col(k);
  out.is_face = true;
  out.id = static_cast<std::uint32_t>(2 * k + (sk > 0 ? 1 : 0));
}

// The support of the axis segment s.p ± hl·a moved by `offset` (the cylinder's or capsule's
// surface point over it): the whole line when n is within kFeatureAngle of perpendicular
// to a (c = n·a), else the end towards n. ids: the line's, then the ends' (−a, +a).
void axis_feature(const ConvexShape& s, const Vec3& a, double c, double hl, const Vec3& offset,
                  std::array<std::uint32_t, 3> ids, SupportFeature& out) {
  out.is_face = false;
  if (std::abs(c) <= std::sin(kFeatureAngle)) {
    out.poly.push(s.p - hl * a + offset, 0);
    out.poly.push(s.p + hl * a + offset, 1);
    out.id = ids[0];
    return;
  }
  out.poly.push(s.p + sgn(c) * hl * a + offset, 0);
  out.id = c > 0 ? ids[2] : ids[1];
}

void cylinder_feature(const ConvexShape& s, const Vec3& n, SupportFeature& out) {
  const Vec3 a = s.axis();
  const double c = n.dot(a), r = s.size.x(), hl = s.size.y();
  out.poly.n = 0;
  if (std::abs(c) >= std::cos(kFeatureAngle)) {  // a cap, as a rim polygon
    const double side = sgn(c);
    const Vec3 centre = s.p + side * hl * a;
    const Vec3 u = rim_direction(s, n);
    const Vec3 v = a.cross(u);
    for (int m = 0; m < kRimPoints; ++m) {
      const int mm = side > 0 ? m : (kRimPoints - m) % kRimPoints;  // CCW about the normal
      const double th = 2.0 * M_PI * mm / kRimPoints;
      out.poly.push(centre + r * (std::cos(th) * u + std::sin(th) * v), static_cast<std::uint32_t>(mm));
    }
    out.normal = side * a;
    out.is_face = true;
    out.id = side > 0 ? 1 : 0;
    return;
  }
  axis_feature(s, a, c, hl, r * rim_direction(s, n), {2, 3, 4}, out);  // a line on the side, or a rim point
}

void capsule_feature(const ConvexShape& s, const Vec3& n, SupportFeature& out) {
  const Vec3 a = s.axis();
  const double c = n.dot(a), r = s.size.x(), hl = s.size.y();
  out.poly.n = 0;
  axis_feature(s, a, c, hl, r * n, {0, 1, 2}, out);
}

using Patch = std::array<int, 2 * kMaxPolygon>;

// Adds the faces at vertex v that pass `coplanar` and are not in patch[0, size) yet; false
// when the patch is full.
template <class Coplanar>
bool add_faces_at(const MeshClimbIndex& c, int v, const Coplanar& coplanar, Patch& patch, int& size) {
  for (int k = c.face_start[static_cast<size_t>(v)]; k < c.face_start[static_cast<size_t>(v) + 1]; ++k) {
    const int f = c.faces[static_cast<size_t>(k)];
    if (std::find(patch.begin(), patch.begin() + size, f) != patch.begin() + size || !coplanar(f)) continue;
    if (size == static_cast<int>(patch.size())) return false;
    patch[static_cast<size_t>(size++)] = f;
  }
  return true;
}

// The faces reached from face `seed` through shared vertices and passing `coplanar`, in
// index order (as a scan over all faces meets them), into `patch`; −1 if there are more
// than it holds.
template <class Coplanar>
int coplanar_patch(const Mesh& mesh, const MeshClimbIndex& c, int seed, const Coplanar& coplanar, Patch& patch) {
  int size = 1;
  patch[0] = seed;
  for (int i = 0; i < size; ++i)
    for (int v : mesh.faces[static_cast<size_t>(patch[static_cast<size_t>(i)])])
      if (!add_faces_at(c, v, coplanar, patch, size)) return -1;
  std::sort(patch.begin(), patch.begin() + size);
  return size;
}

// The same set from the vertices passing `on_plane` (every vertex of a coplanar face is on
// the plane), for meshes that are not their own hull: one pass over the vertices and the faces
// at those on the plane, instead of every face.
template <class OnPlane, class Coplanar>
int plane_patch(const Mesh& mesh, const MeshClimbIndex& c, const OnPlane& on_plane, const Coplanar& coplanar,
                Patch& patch) {
  int size = 0;
  for (int v = 0; v < static_cast<int>(mesh.vertices.size()); ++v)
    if (on_plane(v) && !add_faces_at(c, v, coplanar, patch, size)) return -1;
  std::sort(patch.begin(), patch.begin() + size);
  return size;
}

void hull_feature(const ConvexShape& s, const Vec3& n, SupportFeature& out) {
  const Mesh& mesh = *s.mesh;
  const Vec3 nl = s.R.transpose() * n;
  out.poly.n = 0;
  if (mesh.faces.empty()) {  // a bare point set: only its support vertex is known
    int best = 0;
    double best_d = -kInf;
    for (int i = 0; i < static_cast<int>(mesh.vertices.size()); ++i) {
      const double d = mesh.vertices[i].dot(nl);
      if (d > best_d) best_d = d, best = i;
    }
    out.poly.push(s.R * mesh.vertices[best] + s.p, static_cast<std::uint32_t>(best));
    out.is_face = false;
    out.id = static_cast<std::uint32_t>(best);
    return;
  }
  // The face most aligned with n among those at the support vertex: exact whenever n is a
  // face normal (then that face holds the support vertex), which is when we clip.
  const int vbest = hull_support_index(mesh, nl, &s.climb_hint);
  int best = -1;
  double best_d = -kInf;
  Vec3 best_n = Vec3::UnitZ();
  const int nfaces = static_cast<int>(mesh.faces.size());
  auto consider = [&](int f) {
    const auto& t = mesh.faces[f];
    const Vec3 fn = (mesh.vertices[t[1]] - mesh.vertices[t[0]]).cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
    const double len = fn.norm();
    if (len <= 0.0) return;
    const double d = fn.dot(nl) / len;
    if (d > best_d) best_d = d, best = f, best_n = fn / len;
  };
  if (const MeshClimbIndex* c = mesh.climb.get()) {  // its faces at each vertex, in index order
    for (int k = c->face_start[static_cast<size_t>(vbest)]; k < c->face_start[static_cast<size_t>(vbest) + 1]; ++k)
      consider(c->faces[static_cast<size_t>(k)]);
  } else {
    for (int f = 0; f < nfaces; ++f) {
      const auto& t = mesh.faces[f];
      if (t[0] == vbest || t[1] == vbest || t[2] == vbest) consider(f);
    }
  }
  if (best < 0) {  // the support vertex is on no face (a stray interior point): a vertex
    out.poly.push(s.R * mesh.vertices[vbest] + s.p, static_cast<std::uint32_t>(vbest));
    out.is_face = false;
    out.id = static_cast<std::uint32_t>(vbest);
    return;
  }
  // Merge the coplanar triangles of the hull face into one polygon.
  const double offset = best_n.dot(mesh.vertices[mesh.faces[best][0]]);
  std::array<int, kMaxPolygon> ids;
  int count = 0;
  std::uint32_t face_id = static_cast<std::uint32_t>(best);
  auto on_plane = [&](int v) { return std::abs(best_n.dot(mesh.vertices[v]) - offset) < 1e-9 * (1.0 + std::abs(offset)); };
  auto coplanar = [&](int f) {
    bool on = true;
    for (int v : mesh.faces[f]) on = on && on_plane(v);
    return on;
  };
  Patch patch;
  int patch_size = -1;  // (−1: every face is a candidate)
  if (const MeshClimbIndex* c = mesh.climb.get())
    patch_size = c->own_hull ? coplanar_patch(mesh, *c, best, coplanar, patch) : plane_patch(mesh, *c, on_plane, coplanar, patch);
  const int candidates = patch_size >= 0 ? patch_size : nfaces;
  for (int k = 0; k < candidates; ++k) {
    const int f = patch_size >= 0 ? patch[static_cast<size_t>(k)] : k;
    const auto& t = mesh.faces[f];
    if (!coplanar(f)) continue;
    face_id = std::min(face_id, static_cast<std::uint32_t>(f));
    for (int v : t)
      if (std::find(ids.begin(), ids.begin() + count, v) == ids.begin() + count && count < kMaxPolygon) ids[count++] = v;
  }
  out.normal = s.R * best_n;
  out.id = face_id;
  if (count == 3) {  // a lone triangle is already counter-clockwise from outside
    for (int m = 0; m < 3; ++m) out.poly.push(s.R * mesh.vertices[ids[m]] + s.p, static_cast<std::uint32_t>(ids[m]));
    out.is_face = true;
    return;
  }
  Vec3 centre = Vec3::Zero();
  for (int m = 0; m < count; ++m) centre += mesh.vertices[ids[m]];
  centre /= count;
  const Vec3 u = (mesh.vertices[ids[0]] - centre).normalized();
  const Vec3 w = best_n.cross(u);
  std::array<std::pair<double, int>, kMaxPolygon> order;
  for (int m = 0; m < count; ++m) {
    const Vec3 d = mesh.vertices[ids[m]] - centre;
    order[m] = {std::atan2(d.dot(w), d.dot(u)), ids[m]};
  }
  std::sort(order.begin(), order.begin() + count);
  for (int m = 0; m < count; ++m)
    out.poly.push(s.R * mesh.vertices[order[m].second] + s.p, static_cast<std::uint32_t>(order[m].second));
  out.normal = s.R * best_n;
  out.is_face = count >= 3;
  out.id = face_id;
}

}  // namespace

ConvexShape make_shape(GeomType type, const Vec3& size, const Pose& X_WG, const Mesh* mesh) {
  ConvexShape s;
  s.type = type;
  s.size = size;
  s.mesh = mesh;
  s.p = X_WG.p;
  s.R = X_WG.R();
  return s;
}

ConvexShape make_shape(const Model& model, int geom, const Pose& X_WG) {
  const Geom& g = model.geoms[geom];
  const Mesh* mesh = g.mesh >= 0 ? model.meshes[g.mesh].get() : nullptr;
  if (mesh && g.type == GeomType::ConvexMesh) mesh = &collision_hull(*mesh);
  return make_shape(g.type, g.size, X_WG, mesh);
}

Vec3 support_core(const ConvexShape& s, const Vec3& dir) {
  switch (s.type) {
    case GeomType::Sphere: return s.p;
    case GeomType::Capsule: return s.p + sgn(dir.dot(s.axis())) * s.size.y() * s.axis();
    case GeomType::Box: {
      const Vec3 dl = s.R.transpose() * dir;
      return s.p + s.R * Vec3(sgn(dl.x()) * s.size.x(), sgn(dl.y()) * s.size.y(), sgn(dl.z()) * s.size.z());
    }
    case GeomType::Cylinder: {
      const Vec3 dl = s.R.transpose() * dir;
      const double rho = std::hypot(dl.x(), dl.y());
      Vec3 c(0.0, 0.0, sgn(dl.z()) * s.size.y());
      if (rho > 1e-14 * dl.norm()) c.head<2>() = s.size.x() * dl.head<2>() / rho;
      return s.p + s.R * c;
    }
    case GeomType::ConvexMesh: {
      const Vec3 dl = s.R.transpose() * dir;
      return s.p + s.R * s.mesh->vertices[hull_support_index(*s.mesh, dl, &s.climb_hint)];
    }
    default: return s.p;  // planes and triangle meshes never reach the convex path
  }
}

Vec3 support(const ConvexShape& s, const Vec3& dir) {
  const double r = s.radius();
  if (r == 0.0) return support_core(s, dir);
  const double len = dir.norm();
  return support_core(s, dir) + (len > 0 ? r / len : 0.0) * dir;
}

void supporting_feature(const ConvexShape& s, const Vec3& n, SupportFeature& out) {
  switch (s.type) {
    case GeomType::Box: return box_face(s, n, out);
    case GeomType::Cylinder: return cylinder_feature(s, n, out);
    case GeomType::Capsule: return capsule_feature(s, n, out);
    case GeomType::ConvexMesh: return hull_feature(s, n, out);
    default:
      out.poly.n = 0;
      out.poly.push(support(s, n), 0);
      out.is_face = false;
      out.id = 0;
  }
}

std::array<Vec3, 8> box_corners(const ConvexShape& box) {
  std::array<Vec3, 8> c;
  for (int i = 0; i < 8; ++i) {
    const Vec3 l((i & 1) ? box.size.x() : -box.size.x(), (i & 2) ? box.size.y() : -box.size.y(),
                 (i & 4) ? box.size.z() : -box.size.z());
    c[i] = box.R * l + box.p;
  }
  return c;
}

}  // namespace graspsim
