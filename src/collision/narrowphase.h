#pragma once
// Narrowphase: contact manifolds of geom pairs, dispatched through a GeomType × GeomType
// table of pure functions. Exact closed forms for the primitive pairs (sphere, capsule,
// box, plane, cylinder-plane); GJK (own) + EPA (libccd) with supporting-feature clipping
// for every other convex pair. Normals point from A to B; depth > 0 means penetration,
// pairs closer than `margin` give points with depth in [−margin, 0].

#include "collision/contact.h"
#include "collision/shapes.h"
#include "model/model.h"

namespace graspsim {

struct CollideOptions {
  double margin = 0.0;   // the driver uses max(margin, geom margins) per pair (m)
  // 0: face contacts report the corners of their overlap polygon (at most 8). n ≥ 2: a face
  // contact becomes an n×n grid of cells clipped to the penetrating polygon, one point per
  // non-empty cell at its centroid, with the cell's area and the interpolated depth.
  int patch_grid = 0;
  // General convex path, penetrating pairs: false = EPA (the exact minimum translation);
  // true = MPR (libccd), faster but its depth and normal are along a portal direction,
  // not the minimum (what FCL does for convex shapes).
  bool mpr = false;
  // Per body (optional): 0 moves, 1 fixed, 2 frozen (asleep, not moved since its last
  // collision). collide() skips a pair of a frozen body and a fixed or frozen one: its caller
  // keeps that pair's contacts from before.
  const std::vector<char>* frozen_bodies = nullptr;
};

// Whether a pair of bodies with these frozen_bodies flags is one collide() skips.
inline bool frozen_pair(char a, char b) { return a && b && (a == 2 || b == 2); }

class BvhCache;

// Contacts between geoms ga and gb at world poses X_WA, X_WB. Pairs with a triangle mesh go
// to collide_trimesh, using the trees in `bvhs` when given (else temporary ones).
ContactSet collide_geoms(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB,
                         double margin, const CollideOptions& options, const BvhCache* bvhs = nullptr);
// The same into `out`, whose point storage is reused (convex pairs allocate nothing once it
// has room).
void collide_geoms(const Model& model, int ga, const Pose& X_WA, int gb, const Pose& X_WB, double margin,
                   const CollideOptions& options, const BvhCache* bvhs, ContactSet& out);

// The same for free-standing convex shapes (no Model), through the same table; throws
// InputError for a cell without a function (triangle meshes need the Model: collide_geoms).
void collide_shapes(const ConvexShape& a, const ConvexShape& b, double margin,
                    const CollideOptions& options, ContactSet& out);

// The general convex path (GJK/EPA + feature clipping) for any two bounded convex shapes;
// exposed to cross-check the closed forms.
void collide_convex_general(const ConvexShape& a, const ConvexShape& b, double margin,
                            const CollideOptions& options, ContactSet& out);

}  // namespace graspsim
