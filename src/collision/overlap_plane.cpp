#include "collision/overlap_plane.h"

#include <algorithm>
#include <cmath>

namespace graspsim {

namespace {

// The triangles of `a` that can reach below the plane, by the tree: an oriented box in A's
// frame spanning, within A's bounding ball, the slab from the plane down to the ball's bottom.
void candidates(const MeshBvh& bvh, const Pose& X_WA, const Vec3& p, const Vec3& n, std::vector<int>& out) {
  const BoundingBox& b = bvh.bounds();
  const Vec3 c = b.center();
  const double radius = 0.5 * b.diagonal().norm();
  const Pose X_AW = X_WA.inverse();
  const Vec3 n_A = X_AW.q * n;
  const double d = n_A.dot(c - X_AW * p);  // the ball's centre above the plane
  const double top = std::min(0.0, d + radius), bottom = d - radius;
  Obb box;
  box.axes.col(0) = n_A;
  box.axes.col(1) = n_A.unitOrthogonal();
  box.axes.col(2) = n_A.cross(box.axes.col(1));
  box.centre = c + n_A * (0.5 * (top + bottom) - d);
  box.half = Vec3(0.5 * (top - bottom), radius, radius);
  bvh.query(box, out);
}

}  // namespace

OverlapResult overlap_volume_halfspace(const Mesh& a, const Pose& X_WA, const Vec3& p_W, const Vec3& n_W,
                                       const MeshBvh* bvh) {
  OverlapResult r;
  thread_local std::vector<int> faces;  // (the query is hot: no allocation once warm)
  faces.clear();
  if (bvh) {
    candidates(*bvh, X_WA, p_W, n_W, faces);
    if (faces.empty()) return r;
  } else {
    faces.resize(a.faces.size());
    for (size_t f = 0; f < faces.size(); ++f) faces[f] = static_cast<int>(f);
  }
  // Clipped in A's frame, where the vertices are: the plane moves, not the mesh; the results
  // are placed in the world at the end.
  const Pose X_AW = X_WA.inverse();
  const Vec3 n = X_AW.q * n_W, p = X_AW * p_W;
  const Mat3 R_WA = X_WA.R();
  // Volume and first moment by tetrahedra from p: the cap lies in the plane through p, so its
  // tetrahedra are flat and only A's clipped faces count.
  double volume = 0.0;
  Vec3 moment = Vec3::Zero();
  Vec3 cap_area2 = Vec3::Zero();  // twice the cap's vector area, from its edges
  Vec3 cap_moment = Vec3::Zero();
  Vec3 poly[4];
  for (int index : faces) {
    const auto& f = a.faces[index];
    const Vec3* v[3] = {&a.vertices[f[0]], &a.vertices[f[1]], &a.vertices[f[2]]};
    double d[3];
    for (int k = 0; k < 3; ++k) d[k] = n.dot(*v[k] - p);
    // Inside is d <= 0, by sign alone: a vertex on the plane is inside, and every edge whose
    // ends differ in sign is cut once, so the cut edges close up without a tolerance.
    if (d[0] > 0.0 && d[1] > 0.0 && d[2] > 0.0) continue;
    int m = 0;
    int on_plane_from = -1;  // index in poly of the edge lying in the plane (the cut)
    for (int k = 0; k < 3; ++k) {
      const int l = (k + 1) % 3;
      if (d[k] <= 0.0) poly[m++] = *v[k];
      if ((d[k] <= 0.0) != (d[l] <= 0.0)) {
        if (d[k] <= 0.0) on_plane_from = m;  // leaving the half-space: the cut edge starts here
        poly[m++] = *v[k] + (*v[l] - *v[k]) * (d[k] / (d[k] - d[l]));
      }
    }
    if (m < 3) continue;
    const Vec3 cross = (poly[1] - poly[0]).cross(poly[2] - poly[0]) +
                       (m == 4 ? (poly[2] - poly[0]).cross(poly[3] - poly[0]) : Vec3::Zero());
    const double area = 0.5 * cross.norm();
    Vec3 centre = Vec3::Zero();
    for (int i = 1; i + 1 < m; ++i) {
      const Vec3 x0 = poly[0] - p, x1 = poly[i] - p, x2 = poly[i + 1] - p;
      const double tv = x0.dot(x1.cross(x2)) / 6.0;
      volume += tv;
      moment += tv * (x0 + x1 + x2) / 4.0;
      const double ta = 0.5 * (x1 - x0).cross(x2 - x0).norm();
      centre += ta * (x0 + x1 + x2) / 3.0;
    }
    if (area > 0.0) r.boundary_a.push_back({area, X_WA * (p + centre / area), R_WA * cross.normalized()});
    if (on_plane_from >= 0) {
      // The cap runs along this edge the other way (its outward normal is n).
      const Vec3 x = poly[(on_plane_from + 1) % m] - p, y = poly[on_plane_from] - p;
      const double w = n.dot(x.cross(y));
      cap_area2 += x.cross(y);
      cap_moment += w * (x + y);
    }
  }
  if (!(volume > 0.0)) return {};
  r.volume = volume;
  r.centroid = X_WA * (p + moment / volume);
  const double cap_area = 0.5 * n.dot(cap_area2);
  if (cap_area > 0.0) r.boundary_b.push_back({cap_area, X_WA * (p + cap_moment / (6.0 * cap_area)), n_W});
  return r;
}

}  // namespace graspsim
