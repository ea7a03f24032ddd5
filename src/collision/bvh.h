#pragma once
// Axis-aligned bounding-box tree over the triangles of one mesh, in the mesh's own frame.
// Built once per mesh (the tree is immutable; hold it next to the Model in a BvhCache) and
// queried with boxes, oriented boxes, or another tree.

#include <memory>
#include <utility>
#include <vector>

#include "core/types.h"
#include "model/mesh.h"
#include "model/model.h"

namespace graspsim {

using BoundingBox = Eigen::AlignedBox3d;

// An oriented box: centre, unit axes as the columns of `axes`, half-extents along them.
struct Obb {
  Vec3 centre = Vec3::Zero();
  Mat3 axes = Mat3::Identity();
  Vec3 half = Vec3::Zero();
};

// True if the (closed) triangle abc and the box intersect (separating-axis test, 13 axes).
bool triangle_overlaps_box(const Vec3& a, const Vec3& b, const Vec3& c, const Obb& box);
// Conservative box-box test on the 6 face axes (may report a few false overlaps; never misses).
bool boxes_may_overlap(const BoundingBox& box, const Obb& obb);

class MeshBvh {
 public:
  MeshBvh() = default;
  explicit MeshBvh(const Mesh& mesh);

  int triangle_count() const { return static_cast<int>(tri_boxes_.size()); }
  const BoundingBox& bounds() const { return bounds_; }  // empty for an empty mesh
  const BoundingBox& triangle_box(int tri) const { return tri_boxes_[tri]; }

  // Append the triangles whose bounding boxes overlap the query (in the mesh frame):
  // a conservative candidate set for an exact test.
  void query(const BoundingBox& box, std::vector<int>& out) const;
  void query(const Obb& box, std::vector<int>& out) const;
  // Candidate triangle pairs (this, other) with `other`'s mesh placed at X_this_other, boxes
  // grown by `inflate` (to include pairs up to that far apart).
  void query(const MeshBvh& other, const Pose& X_this_other, std::vector<std::pair<int, int>>& out,
             double inflate = 0.0) const;

 private:
  struct Node {
    BoundingBox box;
    int left = -1, right = -1;  // children (both -1 for a leaf)
    int first = 0, count = 0;   // leaf: triangles order_[first, first + count)
  };
  int build(int first, int count, const std::vector<Vec3>& centroids);
  template <class Overlaps>
  void collect(int node, const Overlaps& overlaps, std::vector<int>& out) const;
  void pairs(int a, const MeshBvh& other, int b, const Pose& X, double inflate,
             std::vector<std::pair<int, int>>& out) const;

  std::vector<Node> nodes_;      // nodes_[0] is the root
  std::vector<int> order_;       // triangle indices grouped by leaf
  std::vector<BoundingBox> tri_boxes_;  // per triangle
  BoundingBox bounds_;
};

// Exact: the triangles of `mesh` (which `bvh` was built from) that intersect the box.
std::vector<int> triangles_overlapping(const Mesh& mesh, const MeshBvh& bvh, const Obb& box);
std::vector<int> triangles_overlapping(const Mesh& mesh, const MeshBvh& bvh, const BoundingBox& box);

// One tree per mesh of the model that a TriangleMesh geom uses, built eagerly so the cache
// is immutable and safe to share between threads.
class BvhCache {
 public:
  BvhCache() = default;
  explicit BvhCache(const Model& model);
  // The tree of model.meshes[mesh], or nullptr when that mesh has none.
  const MeshBvh* find(int mesh) const;

 private:
  std::vector<std::unique_ptr<MeshBvh>> trees_;  // by mesh index
};

}  // namespace graspsim
