// Narrowphase throughput, pairs per second, for box-box, capsule-box and convex-convex
// (50-vertex hulls of random points on a sphere), next to FCL 0.7 doing the same pairs
// (fcl::collide with contacts enabled, up to 8 contacts) in the same run. Both engines see
// the same 1024 seeded pose pairs, about half of them touching.

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <vector>

#include "collision/narrowphase.h"

#ifdef GRASPSIM_HAVE_FCL
#include <fcl/fcl.h>
#endif

namespace graspsim {
namespace {

constexpr int kPoses = 1024;

struct PosePair {
  Pose a, b;
};

std::vector<PosePair> make_poses(std::uint64_t seed, double spread) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> u(-spread, spread);
  std::vector<PosePair> out;
  for (int i = 0; i < kPoses; ++i) {
    auto q = [&] { return Quat(g(rng), g(rng), g(rng), g(rng)).normalized(); };
    out.push_back({Pose{Vec3::Zero(), q()}, Pose{Vec3(u(rng), u(rng), u(rng)), q()}});
  }
  return out;
}

// Convex hull triangles of points in general position (brute force; setup only).
std::shared_ptr<Mesh> hull_of_sphere_points(int count, double radius, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  auto mesh = std::make_shared<Mesh>();
  for (int i = 0; i < count; ++i) mesh->vertices.push_back(radius * Vec3(g(rng), g(rng), g(rng)).normalized());
  const auto& p = mesh->vertices;
  for (int i = 0; i < count; ++i)
    for (int j = i + 1; j < count; ++j)
      for (int k = j + 1; k < count; ++k) {
        const Vec3 n = (p[j] - p[i]).cross(p[k] - p[i]);
        int above = 0, below = 0;
        for (const Vec3& v : p) {
          const double d = n.dot(v - p[i]);
          above += d > 1e-12, below += d < -1e-12;
        }
        if (above == 0) mesh->faces.push_back({i, j, k});
        else if (below == 0) mesh->faces.push_back({i, k, j});
      }
  return mesh;
}

struct Setup {
  GeomType ta, tb;
  Vec3 sa, sb;
  std::shared_ptr<Mesh> ma, mb;
  std::vector<PosePair> poses;
};

Setup box_box() { return {GeomType::Box, GeomType::Box, {0.3, 0.2, 0.4}, {0.25, 0.35, 0.15}, {}, {}, make_poses(1, 0.7)}; }
Setup capsule_box() {
  return {GeomType::Capsule, GeomType::Box, {0.1, 0.3, 0}, {0.25, 0.35, 0.15}, {}, {}, make_poses(2, 0.6)};
}
Setup convex_convex() {
  return {GeomType::ConvexMesh, GeomType::ConvexMesh, Vec3::Ones(), Vec3::Ones(),
          hull_of_sphere_points(50, 0.3, 3), hull_of_sphere_points(50, 0.25, 4), make_poses(3, 0.75)};
}

void run_graspsim(benchmark::State& state, const Setup& s, bool mpr = false) {
  ContactSet cs;
  CollideOptions opt;
  opt.mpr = mpr;
  size_t i = 0, touching = 0, points = 0;
  for (auto _ : state) {
    const PosePair& pp = s.poses[i++ % kPoses];
    collide_shapes(make_shape(s.ta, s.sa, pp.a, s.ma.get()), make_shape(s.tb, s.sb, pp.b, s.mb.get()), 0.0, opt, cs);
    touching += !cs.points.empty();
    points += cs.points.size();
    benchmark::DoNotOptimize(cs.points.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["touching"] = static_cast<double>(touching) / state.iterations();
  state.counters["points/pair"] = touching ? static_cast<double>(points) / touching : 0.0;
}

void BM_graspsim_box_box(benchmark::State& st) { static const Setup s = box_box(); run_graspsim(st, s); }
void BM_graspsim_capsule_box(benchmark::State& st) { static const Setup s = capsule_box(); run_graspsim(st, s); }
void BM_graspsim_convex_convex(benchmark::State& st) { static const Setup s = convex_convex(); run_graspsim(st, s); }
BENCHMARK(BM_graspsim_box_box);
BENCHMARK(BM_graspsim_capsule_box);
BENCHMARK(BM_graspsim_convex_convex);
// The same with MPR for penetrating pairs, as FCL uses: approximate depth and normal.
void BM_graspsim_convex_convex_mpr(benchmark::State& st) { static const Setup s = convex_convex(); run_graspsim(st, s, true); }
BENCHMARK(BM_graspsim_convex_convex_mpr);

#ifdef GRASPSIM_HAVE_FCL
std::shared_ptr<fcl::CollisionGeometryd> fcl_geometry(GeomType t, const Vec3& size, const std::shared_ptr<Mesh>& mesh) {
  switch (t) {
    case GeomType::Box: return std::make_shared<fcl::Boxd>(2 * size.x(), 2 * size.y(), 2 * size.z());
    case GeomType::Capsule: return std::make_shared<fcl::Capsuled>(size.x(), 2 * size.y());
    default: {
      auto verts = std::make_shared<std::vector<fcl::Vector3d>>(mesh->vertices.begin(), mesh->vertices.end());
      auto faces = std::make_shared<std::vector<int>>();
      for (const auto& f : mesh->faces) faces->insert(faces->end(), {3, f[0], f[1], f[2]});
      return std::make_shared<fcl::Convexd>(verts, static_cast<int>(mesh->faces.size()), faces);
    }
  }
}

fcl::Transform3d to_fcl(const Pose& x) {
  fcl::Transform3d t = fcl::Transform3d::Identity();
  t.linear() = x.R();
  t.translation() = x.p;
  return t;
}

void run_fcl(benchmark::State& state, const Setup& s) {
  const auto ga = fcl_geometry(s.ta, s.sa, s.ma), gb = fcl_geometry(s.tb, s.sb, s.mb);
  std::vector<std::pair<fcl::Transform3d, fcl::Transform3d>> tfs;
  for (const PosePair& pp : s.poses) tfs.emplace_back(to_fcl(pp.a), to_fcl(pp.b));
  fcl::CollisionRequestd request(8, true);
  fcl::CollisionResultd result;
  size_t i = 0, touching = 0, points = 0;
  for (auto _ : state) {
    const auto& tf = tfs[i++ % kPoses];
    result.clear();
    fcl::collide(ga.get(), tf.first, gb.get(), tf.second, request, result);
    touching += result.isCollision();
    points += result.numContacts();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["touching"] = static_cast<double>(touching) / state.iterations();
  state.counters["points/pair"] = touching ? static_cast<double>(points) / touching : 0.0;
}

void BM_fcl_box_box(benchmark::State& st) { static const Setup s = box_box(); run_fcl(st, s); }
void BM_fcl_capsule_box(benchmark::State& st) { static const Setup s = capsule_box(); run_fcl(st, s); }
void BM_fcl_convex_convex(benchmark::State& st) { static const Setup s = convex_convex(); run_fcl(st, s); }
BENCHMARK(BM_fcl_box_box);
BENCHMARK(BM_fcl_capsule_box);
BENCHMARK(BM_fcl_convex_convex);
#endif

}  // namespace
}  // namespace graspsim

BENCHMARK_MAIN();
