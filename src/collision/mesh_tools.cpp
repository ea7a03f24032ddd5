#include "collision/mesh_tools.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <memory>
#include <utility>

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

#include "core/error.h"

namespace graspsim {

namespace {

using DirectedEdges = std::map<std::pair<int, int>, int>;  // (from, to) -> face

DirectedEdges directed_edges(const Mesh& mesh, std::string* problem) {
  DirectedEdges edges;
  for (int f = 0; f < static_cast<int>(mesh.faces.size()); ++f) {
    for (int k = 0; k < 3; ++k) {
      const int a = mesh.faces[f][k], b = mesh.faces[f][(k + 1) % 3];
      if (!edges.emplace(std::make_pair(a, b), f).second && problem && problem->empty())
        *problem = "edge " + std::to_string(a) + "-" + std::to_string(b) +
                   " is used twice in the same direction (inconsistent winding or non-manifold)";
    }
  }
  return edges;
}

// Empty when closed, else a description of the first defect found.
std::string closure_problem(const Mesh& mesh) {
  if (mesh.faces.empty()) return "has no faces";
  const int nv = static_cast<int>(mesh.vertices.size());
  for (const auto& f : mesh.faces)
    for (int i : f)
      if (i < 0 || i >= nv) return "face index " + std::to_string(i) + " out of range";
  std::string problem;
  const DirectedEdges edges = directed_edges(mesh, &problem);
  if (!problem.empty()) return problem;
  for (const auto& [e, f] : edges)
    if (!edges.count({e.second, e.first}))
      return "edge " + std::to_string(e.first) + "-" + std::to_string(e.second) +
             " has no opposite face (the surface has a hole)";
  return {};
}

}  // namespace

bool is_closed(const Mesh& mesh) { return closure_problem(mesh).empty(); }

void require_closed(const Mesh& mesh, const std::string& where) {
  const std::string problem = closure_problem(mesh);
  require(problem.empty(), where, "mesh '" + mesh.name + "' is not closed: " + problem);
}

bool is_convex(const Mesh& mesh, double tol) {
  if (!is_closed(mesh)) return false;
  Eigen::AlignedBox3d box;
  for (const Vec3& v : mesh.vertices) box.extend(v);
  const double eps = tol * box.diagonal().norm();
  const DirectedEdges edges = directed_edges(mesh, nullptr);
  for (const auto& [e, f] : edges) {
    const int g = edges.at({e.second, e.first});
    const auto& F = mesh.faces[f];
    const auto& G = mesh.faces[g];
    const Vec3& a = mesh.vertices[F[0]];
    const Vec3 n = (mesh.vertices[F[1]] - a).cross(mesh.vertices[F[2]] - a).normalized();
    for (int k : G)
      if (n.dot(mesh.vertices[k] - a) > eps) return false;
  }
  return true;
}

namespace {

// A hull triangle: indices into the points in qhull's order, and whether swapping the last
// two makes it counter-clockwise seen from outside.
struct HullTriangle {
  std::array<int, 3> v;
  bool flip;
  std::array<int, 3> outward() const { return flip ? std::array<int, 3>{v[0], v[2], v[1]} : v; }
};

// qhull's triangulated hull of `points`. Throws InputError (naming `name`) for degenerate input.
std::vector<HullTriangle> hull_triangles(const std::vector<Vec3>& points, const std::string& name) {
  require(points.size() >= 4, name, "a convex hull needs at least 4 points");
  std::vector<double> coords;
  coords.reserve(3 * points.size());
  for (const Vec3& p : points) coords.insert(coords.end(), {p.x(), p.y(), p.z()});

  qhT qh_storage;
  qhT* qh = &qh_storage;
  FILE* devnull = std::fopen("/dev/null", "w");  // qhull reports errors here; we throw instead
  QHULL_LIB_CHECK
  qh_zero(qh, devnull);
  char options[] = "qhull Qt";  // triangulated output
  const int exitcode = qh_new_qhull(qh, 3, static_cast<int>(points.size()), coords.data(), False,
                                    options, nullptr, devnull);
  std::vector<HullTriangle> triangles;
  if (exitcode == 0) {
    facetT* facet;
    FORALLfacets {
      std::array<int, 3> tri{};
      int k = 0;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) {
        if (k < 3) tri[k] = qh_pointid(qh, vertex->point);
        ++k;
      }
      if (k != 3) continue;
      const Vec3 n(facet->normal[0], facet->normal[1], facet->normal[2]);
      const Vec3& a = points[tri[0]];
      triangles.push_back({tri, (points[tri[1]] - a).cross(points[tri[2]] - a).dot(n) < 0});
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(devnull);
  require(exitcode == 0 && !triangles.empty(), name,
          "qhull failed (are the points coplanar or degenerate?), exit code " + std::to_string(exitcode));
  return triangles;
}

// Offsets and entries (CSR) of per-vertex lists, each sorted and without repeats.
void to_csr(std::vector<std::vector<int>>& lists, std::vector<int>& start, std::vector<int>& flat) {
  start.assign(1, 0);
  for (auto& l : lists) {
    std::sort(l.begin(), l.end());
    l.erase(std::unique(l.begin(), l.end()), l.end());
    flat.insert(flat.end(), l.begin(), l.end());
    start.push_back(static_cast<int>(flat.size()));
  }
}

// Every vertex reached from vertex 0 along the faces' edges.
bool connected(const Mesh& mesh, const MeshClimbIndex& index) {
  std::vector<char> seen(mesh.vertices.size(), 0);
  std::vector<int> todo{0};
  seen[0] = 1;
  size_t reached = 1;
  while (!todo.empty()) {
    const int v = todo.back();
    todo.pop_back();
    for (int k = index.face_start[v]; k < index.face_start[v + 1]; ++k)
      for (int w : mesh.faces[index.faces[k]])
        if (!seen[w]) seen[w] = 1, ++reached, todo.push_back(w);
  }
  return reached == mesh.vertices.size();
}

}  // namespace

namespace {

// The hull mesh of `points` from their hull triangles: its vertices in the order the
// triangles meet them, its faces outward.
Mesh hull_mesh(const std::vector<Vec3>& points, const std::vector<HullTriangle>& triangles, const std::string& name) {
  Mesh hull;
  hull.name = name;
  std::map<int, int> index;  // point -> hull vertex, in the order qhull meets them
  for (const HullTriangle& t : triangles) {
    for (int id : t.v)
      if (index.emplace(id, static_cast<int>(hull.vertices.size())).second) hull.vertices.push_back(points[id]);
    std::array<int, 3> face = t.outward();
    for (int& id : face) id = index.at(id);
    hull.faces.push_back(face);
  }
  return hull;
}

}  // namespace

Mesh convex_hull(const std::vector<Vec3>& points, const std::string& name) {
  return hull_mesh(points, hull_triangles(points, name), name);
}

namespace {

// The climb index of `mesh` over its hull's triangles (qhull), with own_hull decided.
std::shared_ptr<MeshClimbIndex> climb_index(const Mesh& mesh, const std::vector<HullTriangle>& hull) {
  const size_t n = mesh.vertices.size();
  std::vector<std::vector<int>> neighbours(n), faces(n);
  std::vector<char> on_hull(n, 0);
  for (const HullTriangle& h : hull)
    for (int k = 0; k < 3; ++k) {
      const auto& t = h.v;
      neighbours[t[k]].push_back(t[(k + 1) % 3]);
      neighbours[t[k]].push_back(t[(k + 2) % 3]);
      on_hull[t[k]] = 1;
    }
  for (size_t f = 0; f < mesh.faces.size(); ++f)
    for (int v : mesh.faces[f]) faces[v].push_back(static_cast<int>(f));
  auto index = std::make_shared<MeshClimbIndex>();
  to_csr(neighbours, index->neighbour_start, index->neighbours);
  to_csr(faces, index->face_start, index->faces);
  // The first hull vertex furthest along d.
  auto support = [&](const Vec3& d) {
    int best = -1;
    double best_dot = 0.0;
    for (size_t i = 0; i < n; ++i)
      if (on_hull[i] && (best < 0 || mesh.vertices[i].dot(d) > best_dot))
        best = static_cast<int>(i), best_dot = mesh.vertices[i].dot(d);
    return best;
  };
  constexpr int K = MeshClimbIndex::kCubeCells;
  index->cube_start.assign(6 * K * K, 0);
  for (int face = 0; face < 6; ++face) {
    const int axis = face / 2;
    const double sign = face % 2 == 0 ? 1.0 : -1.0;
    index->axis_extreme[static_cast<size_t>(face)] = support(sign * Vec3::Unit(axis));
    for (int cu = 0; cu < K; ++cu)
      for (int cw = 0; cw < K; ++cw) {
        Vec3 d;
        d[axis] = sign;
        d[(axis + 1) % 3] = -1.0 + (cu + 0.5) * 2.0 / K;
        d[(axis + 2) % 3] = -1.0 + (cw + 0.5) * 2.0 / K;
        index->cube_start[static_cast<size_t>((face * K + cu) * K + cw)] = support(d);
      }
  }
  for (const Vec3& v : mesh.vertices) index->radius = std::max(index->radius, v.norm());
  index->own_hull = std::all_of(on_hull.begin(), on_hull.end(), [](char c) { return c != 0; }) && is_convex(mesh) &&
                    connected(mesh, *index);
  return index;
}

constexpr size_t kClimbMinVertices = 32;  // below this a scan is as fast

}  // namespace

std::shared_ptr<const Mesh> with_climb_index(const std::shared_ptr<const Mesh>& mesh) {
  if (!mesh || mesh->climb || mesh->hull || mesh->vertices.size() < 4) return mesh;
  std::vector<HullTriangle> triangles;
  try {
    triangles = hull_triangles(mesh->vertices, mesh->name);
  } catch (const InputError&) {
    return mesh;  // flat or degenerate: the scan handles it
  }
  const std::shared_ptr<MeshClimbIndex> index = climb_index(*mesh, triangles);
  const bool climbs = mesh->vertices.size() >= kClimbMinVertices;
  // A convex mesh's faces are its hull's (a vertex inside a face, as a cap's centre, only
  // costs its polygon a scan). Not so a non-convex one's faces at a support vertex (a dent,
  // or a face across one), and finding a hull face's polygon would scan every vertex: it
  // collides as the hull itself. (Convex within 1e-6 of its size: a file's printed digits
  // can dent a rounded edge's flat strips by ~1e-9, which changes no face.)
  const bool needs_hull = !index->own_hull && !is_convex(*mesh, 1e-6);
  if (!climbs && !needs_hull) return mesh;
  auto copy = std::make_shared<Mesh>(*mesh);
  if (climbs) copy->climb = index;
  if (needs_hull) {
    // (qhull once: the hull's own triangles are its faces, whose edges are all a climb needs.)
    auto hull = std::make_shared<Mesh>(hull_mesh(mesh->vertices, triangles, mesh->name + ":hull"));
    if (hull->vertices.size() >= kClimbMinVertices) {
      std::vector<HullTriangle> own;
      for (const auto& f : hull->faces) own.push_back({f, false});
      hull->climb = climb_index(*hull, own);
    }
    copy->hull = std::move(hull);
  }
  return copy;
}

double signed_volume(const Mesh& mesh) {
  double v6 = 0.0;
  const Vec3 o = mesh.vertices.empty() ? Vec3::Zero() : mesh.vertices.front();
  for (const auto& f : mesh.faces)
    v6 += (mesh.vertices[f[0]] - o).dot((mesh.vertices[f[1]] - o).cross(mesh.vertices[f[2]] - o));
  return v6 / 6.0;
}

Mesh transformed(const Mesh& mesh, const Pose& X) {
  Mesh out = mesh;
  for (Vec3& v : out.vertices) v = X * v;
  return out;
}

}  // namespace graspsim
