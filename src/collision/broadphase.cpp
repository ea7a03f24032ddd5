#include "collision/broadphase.h"

#include <algorithm>
#include <cmath>

#include "collision/shapes.h"
#include "core/error.h"

namespace graspsim {
namespace {

Aabb around(const Vec3& centre, const Vec3& half) { return {centre - half, centre + half}; }

Aabb plane_aabb(const Pose& X_WG) {
  const Vec3 n = X_WG.R().col(2);
  Aabb box{Vec3::Constant(-kInf), Vec3::Constant(kInf)};
  for (int k = 0; k < 3; ++k) {
    if (std::abs(std::abs(n[k]) - 1.0) > 1e-12) continue;
    if (n[k] > 0) box.hi[k] = X_WG.p[k];
    else box.lo[k] = X_WG.p[k];
  }
  return box;
}

// A convex mesh's box from its six extreme vertices along the world axes.
Aabb hull_aabb(const Mesh& mesh, const Mat3& R, const Vec3& p, std::array<int, 6>* hints) {
  Aabb box;
  for (int k = 0; k < 3; ++k) {
    const Vec3 axis = R.row(k).transpose();  // world axis k in the mesh frame
    box.hi[k] = axis.dot(mesh.vertices[hull_support_index(mesh, axis, hints ? &(*hints)[2 * k] : nullptr, false)]) + p[k];
    box.lo[k] = axis.dot(mesh.vertices[hull_support_index(mesh, -axis, hints ? &(*hints)[2 * k + 1] : nullptr, false)]) + p[k];
  }
  return box;
}

}  // namespace

Aabb points_aabb(const std::vector<Vec3>& points, const Pose& X_WG) {
  const Mat3 R = X_WG.R();
  Aabb box{Vec3::Constant(kInf), Vec3::Constant(-kInf)};
  for (const Vec3& v : points) {
    const Vec3 w = R * v + X_WG.p;
    box.lo = box.lo.cwiseMin(w);
    box.hi = box.hi.cwiseMax(w);
  }
  return box;
}

Aabb geom_aabb(const Model& model, int g, const Pose& X_WG, std::array<int, 6>* hints) {
  const Geom& geom = model.geoms[g];
  const Vec3& s = geom.size;
  const Mat3 R = X_WG.R();
  switch (geom.type) {
    case GeomType::Plane: return plane_aabb(X_WG);
    case GeomType::Sphere: return around(X_WG.p, Vec3::Constant(s.x()));
    case GeomType::Box: return around(X_WG.p, R.cwiseAbs() * s);
    case GeomType::Capsule: return around(X_WG.p, R.col(2).cwiseAbs() * s.y() + Vec3::Constant(s.x()));
    case GeomType::Cylinder: {
      const Vec3 a = R.col(2);
      // The cap disc's extent along world axis k is r·sqrt(1 − a_k²).
      const Vec3 disc = (Vec3::Ones() - a.cwiseAbs2()).cwiseMax(0.0).cwiseSqrt() * s.x();
      return around(X_WG.p, a.cwiseAbs() * s.y() + disc);
    }
    case GeomType::ConvexMesh: {
      const Mesh& mesh = collision_hull(*model.meshes[geom.mesh]);
      return mesh.climb ? hull_aabb(mesh, R, X_WG.p, hints) : points_aabb(mesh.vertices, X_WG);
    }
    case GeomType::TriangleMesh: return points_aabb(model.meshes[geom.mesh]->vertices, X_WG);
  }
  return around(X_WG.p, Vec3::Zero());
}

bool body_is_static(const Model& model, int body) {
  for (int b = body; b > 0; b = model.bodies[b].parent) {
    const Body& bd = model.bodies[b];
    if (!bd.kinematic && model.joints[bd.joint].type != JointType::Fixed) return false;
  }
  return true;
}

bool geoms_may_collide(const Model& model, int ga, int gb) {
  const Geom &a = model.geoms[ga], &b = model.geoms[gb];
  if (a.body == b.body) return false;
  if (!((a.group & b.mask) && (b.group & a.mask))) return false;
  if (body_is_static(model, a.body) && body_is_static(model, b.body)) return false;
  return model.bodies_may_collide(a.body, b.body);
}

const std::vector<std::pair<int, int>>& Broadphase::find_pairs(const Model& model, const std::vector<Aabb>& boxes,
                                                               const std::vector<char>* frozen_bodies) {
  const int n = static_cast<int>(boxes.size());
  if (static_cast<int>(order_.size()) != n) {
    order_.resize(n);
    for (int i = 0; i < n; ++i) order_[i] = i;
  }
  is_static_.resize(n);
  for (int i = 0; i < n; ++i) is_static_[i] = body_is_static(model, model.geoms[i].body);
  // Insertion sort on lo.x (ties by index): linear when the order barely changes.
  auto before = [&](int i, int j) {
    return boxes[i].lo.x() < boxes[j].lo.x() || (boxes[i].lo.x() == boxes[j].lo.x() && i < j);
  };
  for (int i = 1; i < n; ++i) {
    const int g = order_[i];
    int k = i;
    for (; k > 0 && before(g, order_[k - 1]); --k) order_[k] = order_[k - 1];
    order_[k] = g;
  }
  pairs_.clear();
  auto consider = [&](int a, int b) {
    if (frozen_bodies && frozen_pair((*frozen_bodies)[model.geoms[a].body], (*frozen_bodies)[model.geoms[b].body]))
      return;
    if (!boxes[a].overlaps(boxes[b])) return;
    if (is_static_[a] && is_static_[b]) return;
    const int lo = std::min(a, b), hi = std::max(a, b);
    if (geoms_may_collide(model, lo, hi)) pairs_.emplace_back(lo, hi);
  };
  auto sweep_forward = [&](int i) {
    const int a = order_[i];
    for (int k = i + 1; k < n; ++k) {
      if (boxes[order_[k]].lo.x() > boxes[a].hi.x()) break;
      consider(a, order_[k]);
    }
  };
  if (frozen_bodies) {
    around_moving(model, boxes, *frozen_bodies, sweep_forward, consider);
  } else {
    for (int i = 0; i < n; ++i) sweep_forward(i);
  }
  std::sort(pairs_.begin(), pairs_.end());
  return pairs_;
}

// Every pair that frozen_pair and the static check let through has a geom that moves (of a
// body with flag 0, or a kinematic one): only those sweep, forward as usual and backward
// over the geoms before them that do not move (the ones that move find such pairs going
// forward). Backward stops where no earlier box reaches (a running maximum of hi.x); boxes
// unbounded in +x are met one by one instead.
template <class Forward, class Consider>
void Broadphase::around_moving(const Model& model, const std::vector<Aabb>& boxes, const std::vector<char>& frozen,
                               const Forward& sweep_forward, const Consider& consider) {
  const int n = static_cast<int>(boxes.size());
  moves_.resize(static_cast<size_t>(n));
  reach_.resize(static_cast<size_t>(n));
  unbounded_.clear();
  double reach = -kInf;
  bool look_back = false;  // a bounded geom that does not move: else going forward finds all
  for (int i = 0; i < n; ++i) {
    const int g = order_[i];
    const char f = frozen[model.geoms[g].body];
    moves_[g] = f == 0 || (f == 1 && !is_static_[g]);
    if (boxes[g].hi.x() == kInf) {
      unbounded_.push_back(i);
    } else {
      reach = std::max(reach, boxes[g].hi.x());
      look_back = look_back || !moves_[g];
    }
    reach_[i] = reach;
  }
  for (int i = 0; i < n; ++i) {
    const int a = order_[i];
    if (!moves_[a]) continue;
    sweep_forward(i);
    for (int k = i - 1; look_back && k >= 0 && reach_[k] >= boxes[a].lo.x(); --k)
      if (!moves_[order_[k]] && boxes[order_[k]].hi.x() != kInf) consider(a, order_[k]);
    for (int k : unbounded_)
      if (k < i && !moves_[order_[k]]) consider(a, order_[k]);
  }
}

const BvhCache& Broadphase::bvhs(const Model& model) {
  // (Compared in place: called for every pair, a list of the model's meshes would be an
  // allocation a pair and a step, ~190 a step on the Shadow Hand.)
  const bool same = bvhs_ && std::equal(model.meshes.begin(), model.meshes.end(), bvh_meshes_.begin(),
                                        bvh_meshes_.end(), [](const auto& m, const Mesh* p) { return m.get() == p; });
  if (!same) {
    bvhs_ = std::make_unique<BvhCache>(model);
    bvh_meshes_.clear();
    for (const auto& m : model.meshes) bvh_meshes_.push_back(m.get());
  }
  return *bvhs_;
}

namespace {

// Whether convex geoms a and b are farther apart than `margin` along the unit direction n
// (from a to b): the gap between their support planes is a lower bound on their distance, so
// then the narrowphase would find no point. The slack keeps the two tests from disagreeing
// by rounding (the narrowphase's distances are good to ~1e-10 of the shapes' size).
constexpr double kAxisSlack = 1e-9;  // m
bool apart_along(const Model& model, int a, const Pose& X_WA, int b, const Pose& X_WB, const Vec3& n, double margin) {
  auto convex = [&](int g) {
    const GeomType t = model.geoms[g].type;
    return t != GeomType::Plane && t != GeomType::TriangleMesh;
  };
  if (!convex(a) || !convex(b)) return false;
  const ConvexShape sa = make_shape(model, a, X_WA), sb = make_shape(model, b, X_WB);
  return support(sb, -n).dot(n) - support(sa, n).dot(n) > margin + kAxisSlack;
}

}  // namespace

void collide(const Model& model, const std::vector<Pose>& X_WG, const CollideOptions& options, Broadphase& bp,
             std::vector<ContactSet>& out) {
  if (static_cast<int>(X_WG.size()) != model.ngeom())  // (require() would build its strings every call)
    require(false, "collide", "need one pose per geom");
  std::vector<Aabb>& boxes = bp.boxes;
  boxes.resize(static_cast<size_t>(model.ngeom()));
  bp.box_hints.resize(static_cast<size_t>(model.ngeom()), {-1, -1, -1, -1, -1, -1});
  for (int g = 0; g < model.ngeom(); ++g) {
    if (model.geoms[g].never_collides()) {
      boxes[g] = Aabb::none();
      continue;
    }
    const double m = std::max(options.margin, model.geoms[g].margin);
    boxes[g] = geom_aabb(model, g, X_WG[g], &bp.box_hints[g]);
    boxes[g].lo.array() -= m;
    boxes[g].hi.array() += m;
  }
  size_t n = 0, last = 0;
  bp.pair_axes_next.clear();
  for (const auto& [a, b] : bp.find_pairs(model, boxes, options.frozen_bodies)) {
    const double margin = std::max({options.margin, model.geoms[a].margin, model.geoms[b].margin});
    const std::uint64_t key = static_cast<std::uint64_t>(a) << 32 | static_cast<std::uint32_t>(b);
    while (last < bp.pair_axes.size() && bp.pair_axes[last].pair < key) ++last;
    if (last < bp.pair_axes.size() && bp.pair_axes[last].pair == key &&
        apart_along(model, a, X_WG[a], b, X_WG[b], bp.pair_axes[last].axis, margin)) {
      bp.pair_axes_next.push_back(bp.pair_axes[last]);
      continue;
    }
    if (n == out.size()) out.emplace_back();
    collide_geoms(model, a, X_WG[a], b, X_WG[b], margin, options, &bp.bvhs(model), out[n]);
    if (!out[n].points.empty()) ++n;
    else if (out[n].separating_axis != Vec3::Zero()) bp.pair_axes_next.push_back({key, out[n].separating_axis});
  }
  bp.pair_axes.swap(bp.pair_axes_next);
  out.resize(n);
}

}  // namespace graspsim
