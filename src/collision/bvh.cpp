#include "collision/bvh.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace graspsim {

namespace {

Obb as_obb(const BoundingBox& box) { return {box.center(), Mat3::Identity(), box.sizes() / 2.0}; }

// Projection radius of a box onto unit-free axis `d`.
double radius(const Obb& b, const Vec3& d) {
  return b.half.x() * std::abs(b.axes.col(0).dot(d)) + b.half.y() * std::abs(b.axes.col(1).dot(d)) +
         b.half.z() * std::abs(b.axes.col(2).dot(d));
}

}  // namespace

bool triangle_overlaps_box(const Vec3& a, const Vec3& b, const Vec3& c, const Obb& box) {
  // Work in the box frame so the box is axis-aligned about the origin.
  const Mat3 Rt = box.axes.transpose();
  const std::array<Vec3, 3> v{Rt * (a - box.centre), Rt * (b - box.centre), Rt * (c - box.centre)};
  const std::array<Vec3, 3> e{v[1] - v[0], v[2] - v[1], v[0] - v[2]};
  auto separated = [&](const Vec3& axis) {
    if (axis.squaredNorm() < 1e-30) return false;  // parallel edges: not a usable axis
    const double p0 = axis.dot(v[0]), p1 = axis.dot(v[1]), p2 = axis.dot(v[2]);
    const double r = box.half.dot(axis.cwiseAbs());
    return std::min({p0, p1, p2}) > r || std::max({p0, p1, p2}) < -r;
  };
  for (int i = 0; i < 3; ++i)
    if (separated(Vec3::Unit(i))) return false;
  if (separated(e[0].cross(e[1]))) return false;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (separated(Vec3::Unit(i).cross(e[j]))) return false;
  return true;
}

namespace {

// The separating-axis test of axis-aligned boxes against one oriented box, with what depends
// on the oriented box alone (its reach along the world axes, its axes' magnitudes) computed
// once: a tree query tests thousands of nodes against the same box.
class ObbTest {
 public:
  explicit ObbTest(const Obb& obb) : obb_(obb), abs_axes_(obb.axes.cwiseAbs()) {
    for (int i = 0; i < 3; ++i) reach_[i] = radius(obb, Vec3::Unit(i));
  }
  bool may_overlap(const BoundingBox& box) const {
    const Vec3 half = box.sizes() / 2.0;
    const Vec3 d = obb_.centre - box.center();
    for (int i = 0; i < 3; ++i) {
      if (std::abs(d[i]) > half[i] + reach_[i]) return false;
      const Vec3 bx = obb_.axes.col(i);
      const double r = half.x() * abs_axes_(0, i) + half.y() * abs_axes_(1, i) + half.z() * abs_axes_(2, i);
      if (std::abs(d.dot(bx)) > r + obb_.half[i]) return false;
    }
    return true;
  }

 private:
  const Obb& obb_;
  Mat3 abs_axes_;
  Vec3 reach_;
};

}  // namespace

bool boxes_may_overlap(const BoundingBox& box, const Obb& obb) { return ObbTest(obb).may_overlap(box); }

MeshBvh::MeshBvh(const Mesh& mesh) {
  const int n = static_cast<int>(mesh.faces.size());
  tri_boxes_.resize(n);
  std::vector<Vec3> centroids(n);
  for (int t = 0; t < n; ++t) {
    BoundingBox box;
    for (int k : mesh.faces[t]) box.extend(mesh.vertices[k]);
    tri_boxes_[t] = box;
    centroids[t] = box.center();
  }
  order_.resize(n);
  for (int t = 0; t < n; ++t) order_[t] = t;
  nodes_.reserve(2 * n);
  if (n > 0) bounds_ = nodes_[build(0, n, centroids)].box;
}

int MeshBvh::build(int first, int count, const std::vector<Vec3>& centroids) {
  const int id = static_cast<int>(nodes_.size());
  nodes_.emplace_back();
  BoundingBox box, cbox;
  for (int i = first; i < first + count; ++i) {
    box.extend(tri_boxes_[order_[i]]);
    cbox.extend(centroids[order_[i]]);
  }
  nodes_[id].box = box;
  constexpr int kLeafSize = 4;
  if (count <= kLeafSize) {
    nodes_[id].first = first;
    nodes_[id].count = count;
    return id;
  }
  // Median split along the widest spread of centroids: balanced depth, O(n log n) build.
  int axis = 0;
  cbox.sizes().maxCoeff(&axis);
  const int half = count / 2;
  std::nth_element(order_.begin() + first, order_.begin() + first + half, order_.begin() + first + count,
                   [&](int s, int t) { return centroids[s][axis] < centroids[t][axis]; });
  const int left = build(first, half, centroids);
  const int right = build(first + half, count - half, centroids);
  nodes_[id].left = left;
  nodes_[id].right = right;
  return id;
}


template <class Overlaps>
void MeshBvh::collect(int node, const Overlaps& overlaps, std::vector<int>& out) const {
  const Node& n = nodes_[node];
  if (!overlaps(n.box)) return;
  if (n.left < 0) {
    for (int i = n.first; i < n.first + n.count; ++i)
      if (overlaps(tri_boxes_[order_[i]])) out.push_back(order_[i]);
    return;
  }
  collect(n.left, overlaps, out);
  collect(n.right, overlaps, out);
}

void MeshBvh::query(const BoundingBox& box, std::vector<int>& out) const {
  if (!nodes_.empty()) collect(0, [&](const BoundingBox& b) { return b.intersects(box); }, out);
}

void MeshBvh::query(const Obb& box, std::vector<int>& out) const {
  const ObbTest test(box);
  if (!nodes_.empty()) collect(0, [&](const BoundingBox& b) { return test.may_overlap(b); }, out);
}

void MeshBvh::query(const MeshBvh& other, const Pose& X, std::vector<std::pair<int, int>>& out,
                    double inflate) const {
  if (!nodes_.empty() && !other.nodes_.empty()) pairs(0, other, 0, X, inflate, out);
}

void MeshBvh::pairs(int a, const MeshBvh& other, int b, const Pose& X, double inflate,
                    std::vector<std::pair<int, int>>& out) const {
  const Node& na = nodes_[a];
  const Node& nb = other.nodes_[b];
  const Mat3 R = X.R();
  auto placed = [&](const BoundingBox& box) {
    return Obb{X * box.center(), R, box.sizes() / 2.0 + Vec3::Constant(inflate)};
  };
  if (!boxes_may_overlap(na.box, placed(nb.box))) return;
  const bool a_leaf = na.left < 0, b_leaf = nb.left < 0;
  if (a_leaf && b_leaf) {
    for (int i = na.first; i < na.first + na.count; ++i)
      for (int j = nb.first; j < nb.first + nb.count; ++j)
        if (boxes_may_overlap(tri_boxes_[order_[i]], placed(other.tri_boxes_[other.order_[j]])))
          out.emplace_back(order_[i], other.order_[j]);
    return;
  }
  // Descend the larger node so both trees shrink at a similar rate.
  if (b_leaf || (!a_leaf && na.box.volume() >= nb.box.volume())) {
    pairs(na.left, other, b, X, inflate, out);
    pairs(na.right, other, b, X, inflate, out);
  } else {
    pairs(a, other, nb.left, X, inflate, out);
    pairs(a, other, nb.right, X, inflate, out);
  }
}

std::vector<int> triangles_overlapping(const Mesh& mesh, const MeshBvh& bvh, const Obb& box) {
  std::vector<int> candidates, out;
  bvh.query(box, candidates);
  for (int t : candidates) {
    const auto& f = mesh.faces[t];
    if (triangle_overlaps_box(mesh.vertices[f[0]], mesh.vertices[f[1]], mesh.vertices[f[2]], box))
      out.push_back(t);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int> triangles_overlapping(const Mesh& mesh, const MeshBvh& bvh, const BoundingBox& box) {
  return triangles_overlapping(mesh, bvh, as_obb(box));
}

BvhCache::BvhCache(const Model& model) {
  trees_.resize(model.meshes.size());
  for (const Geom& g : model.geoms)
    if (g.type == GeomType::TriangleMesh && g.mesh >= 0 && g.mesh < static_cast<int>(trees_.size()) &&
        !trees_[g.mesh] && model.meshes[g.mesh])
      trees_[g.mesh] = std::make_unique<MeshBvh>(*model.meshes[g.mesh]);
}

const MeshBvh* BvhCache::find(int mesh) const {
  return mesh >= 0 && mesh < static_cast<int>(trees_.size()) ? trees_[mesh].get() : nullptr;
}

}  // namespace graspsim
