#pragma once
// What the penalty stepper knows of each geom's solid, computed once per Model: a closed
// triangle mesh (primitives tessellated, meshes as loaded), whether it is convex, and a BVH
// for the non-convex ones; and the overlap query that picks the right method per pair.

#include <memory>
#include <vector>

#include "collision/broadphase.h"
#include "collision/bvh.h"
#include "collision/contact.h"
#include "model/model.h"

namespace graspsim {

class PenaltyGeometry {
 public:
  // Segments around the axis of a tessellated sphere, capsule or cylinder: a sphere of 32
  // holds 99.4 % of the true volume, and a contact's volume changes by the same factor.
  static constexpr int kResolution = 32;
  // Meshes with more triangles than this get a BVH (all non-convex ones do): a finger
  // touching them meets a few of their triangles.
  static constexpr std::size_t kTreeFaces = 64;

  // Throws InputError naming the geom if its mesh is not closed (a volume needs a solid).
  explicit PenaltyGeometry(const Model& model);

  // The overlap of geom a at X_a with geom b at X_b, side A = geom a: half-space clipping
  // when one is a plane (the tree's triangles below it); mesh-vs-convex clipping (the tree's
  // triangles near the other, which must be convex) when the finer of the two has a tree;
  // convex clipping of two coarse convex meshes; CGAL corefinement when neither is convex
  // (exact, but milliseconds per call).
  OverlapResult overlap(int a, const Pose& X_a, int b, const Pose& X_b) const;

  bool convex(int g) const { return shapes_[g].convex; }

  // geom_aabb, from a mesh's convex-hull vertices only (the same box: a box around a set is
  // the box around its hull), so a 3.5k-vertex bunny costs ~100 transforms, not 3.5k.
  Aabb aabb(const Model& model, int g, const Pose& X_WG) const;

 private:
  struct Shape {
    std::shared_ptr<const Mesh> mesh;  // null for a plane
    bool convex = false, plane = false, drawn_only = false;
    std::shared_ptr<const MeshBvh> bvh;  // non-convex meshes
    std::vector<Vec3> hull;              // mesh geoms: the hull's vertices (mesh frame)
  };
  std::vector<Shape> shapes_;
};

}  // namespace graspsim
