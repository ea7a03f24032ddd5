#include "collision/mesh_tools.h"

#include <algorithm>
#include <cstdio>
#include <map>
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

Mesh convex_hull(const std::vector<Vec3>& points, const std::string& name) {
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
  Mesh hull;
  hull.name = name;
  if (exitcode == 0) {
    std::map<int, int> index;  // qhull point id -> hull vertex
    facetT* facet;
    FORALLfacets {
      std::array<int, 3> tri{};
      int k = 0;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) {
        const int id = qh_pointid(qh, vertex->point);
        auto [it, inserted] = index.emplace(id, static_cast<int>(hull.vertices.size()));
        if (inserted) hull.vertices.push_back(points[id]);
        if (k < 3) tri[k] = it->second;
        ++k;
      }
      if (k != 3) continue;
      const Vec3 n(facet->normal[0], facet->normal[1], facet->normal[2]);
      const Vec3& a = hull.vertices[tri[0]];
      if ((hull.vertices[tri[1]] - a).cross(hull.vertices[tri[2]] - a).dot(n) < 0) std::swap(tri[1], tri[2]);
      hull.faces.push_back(tri);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(devnull);
  require(exitcode == 0 && !hull.faces.empty(), name,
          "qhull failed (are the points coplanar or degenerate?), exit code " + std::to_string(exitcode));
  return hull;
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
