#pragma once
// Broadphase: sweep-and-prune over the geoms' world AABBs (inflated by their margins),
// with the pair filters, and the collide() driver that runs the narrowphase on each pair.

#include <array>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "collision/bvh.h"
#include "collision/contact.h"
#include "collision/narrowphase.h"
#include "model/model.h"

namespace graspsim {

struct Aabb {
  Vec3 lo = Vec3::Zero(), hi = Vec3::Zero();
  // A box that overlaps nothing: for geoms that never collide (visual meshes), whose real
  // box would cost a pass over every vertex each step.
  static Aabb none() { return {Vec3::Constant(kInf), Vec3::Constant(-kInf)}; }
  bool overlaps(const Aabb& o) const {
    return (lo.array() <= o.hi.array()).all() && (o.lo.array() <= hi.array()).all();
  }
};

// World AABB of geom g at pose X_WG (tight for every type; a plane is the half-space
// below it, bounded only along an axis-aligned normal). `hints`: where a convex mesh's
// climbs for its six extremes start, and are left (see hull_support_index).
Aabb geom_aabb(const Model& model, int g, const Pose& X_WG, std::array<int, 6>* hints = nullptr);

// World AABB of points given in a frame at X_WG (a mesh's vertices, or its hull's: the same box).
Aabb points_aabb(const std::vector<Vec3>& points, const Pose& X_WG);

// True if the filters let geoms ga and gb touch: different bodies, not both static,
// Model::bodies_may_collide, and (a.group & b.mask) && (b.group & a.mask).
bool geoms_may_collide(const Model& model, int ga, int gb);

// True if no contact force can move the body: every joint up to the world is Fixed or
// belongs to a kinematic body (whose motion is prescribed). Two such bodies never need
// contacts: a kinematic pusher grazing the ground, two prescribed fingers.
bool body_is_static(const Model& model, int body);

class Broadphase {
 public:
  // Candidate pairs (a < b) with overlapping boxes that pass the filters, sorted by (a, b).
  // The sweep order is kept between calls, so coherent motion sorts in near-linear time.
  // Pairs of bodies with frozen_pair(frozen_bodies) flags are left out (CollideOptions).
  const std::vector<std::pair<int, int>>& find_pairs(const Model& model, const std::vector<Aabb>& boxes,
                                                     const std::vector<char>* frozen_bodies = nullptr);

  // The triangle-mesh trees of `model`, built on first use and kept while the model's meshes
  // are the same objects (meshes are shared and immutable, so their addresses identify them).
  const BvhCache& bvhs(const Model& model);

  std::vector<Aabb> boxes;  // collide()'s per-geom boxes, kept for their storage
  // Per geom, where each of a convex mesh's six extreme-vertex climbs ended last step (its
  // next starts there: a body turns little in a step).
  std::vector<std::array<int, 6>> box_hints;
  // Pairs the narrowphase found apart, with a direction that showed it (ContactSet::
  // separating_axis), sorted by pair: collide() tests a pair along its direction first and
  // skips the narrowphase while the geoms stay farther apart than the margin along it.
  // Any direction proves that much, so the axes of another model or step are only starts.
  struct PairAxis {
    std::uint64_t pair = 0;  // geom_a << 32 | geom_b
    Vec3 axis = Vec3::UnitZ();
  };
  std::vector<PairAxis> pair_axes, pair_axes_next;

 private:
  std::vector<const Mesh*> bvh_meshes_;
  std::unique_ptr<BvhCache> bvhs_;
  std::vector<int> order_;
  std::vector<char> is_static_;
  std::vector<std::pair<int, int>> pairs_;
  // find_pairs with frozen bodies: which geoms move, the running maximum of hi.x along the
  // sweep order, and the positions of boxes unbounded in +x.
  template <class Forward, class Consider>
  void around_moving(const Model& model, const std::vector<Aabb>& boxes, const std::vector<char>& frozen,
                     const Forward& sweep_forward, const Consider& consider);
  std::vector<char> moves_;
  std::vector<double> reach_;
  std::vector<int> unbounded_;
};

// Narrowphase over the broadphase pairs: `out` gets the pairs that have points, geom_a <
// geom_b, in pair order. X_WG holds every geom's world pose. Each pair uses the margin
// max(options.margin, geom margins). `out`'s elements are reused (their point storage too),
// so a step whose pairs keep touching allocates nothing.
void collide(const Model& model, const std::vector<Pose>& X_WG, const CollideOptions& options, Broadphase& bp,
             std::vector<ContactSet>& out);

}  // namespace graspsim
