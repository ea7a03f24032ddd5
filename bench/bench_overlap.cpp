// Overlap volumes (seed 004's contact model) and triangle-mesh contacts, on a bunny-vs-box
// pair, a finger-sized box on a 6 cm bunny (overlap_volume_mesh_convex against CGAL), and on
// convex pairs. With FCL, its mesh-vs-box collision query (contacts on, up to 8)
// is timed on the same bunny/box pair as a reference for collide_trimesh: FCL has no
// overlap volume, so that comparison is of contact generation only.
#include <benchmark/benchmark.h>

#include "collision/bvh.h"
#include "collision/mesh_collide.h"
#include "collision/mesh_io.h"
#include "collision/mesh_tools.h"
#include "collision/overlap.h"
#include "collision/tessellate.h"

#ifdef GRASPSIM_HAVE_FCL
#include <fcl/fcl.h>
#endif

namespace graspsim {
namespace {

std::shared_ptr<Mesh> bunny(double scale = 1.0) {  // 2 × 1.9 × 1.5 at scale 1
  return load_mesh(std::string(GRASPSIM_SHARED_DIR) + "/data/meshes/bunny_watertight_6976tri.obj", "bunny",
                   Vec3::Constant(scale));
}

const Vec3 kBoxHalf(0.4, 0.4, 0.4);
const Pose kBoxPose{Vec3(0.5, 0.3, 0.1), quat_exp(Vec3(0.2, 0.3, 0.1))};  // cuts into the bunny's side

void BM_OverlapBunnyBoxCgal(benchmark::State& state) {
  const auto b = bunny();
  const Mesh box = tessellate_box(kBoxHalf);
  double volume = 0.0;
  for (auto _ : state) {
    const OverlapResult r = overlap_volume(*b, Pose::Identity(), false, box, kBoxPose, true);
    benchmark::DoNotOptimize(r);  // the const overload: read-only (the lvalue one wrote back 0 with GCC 12)
    volume = r.volume;
  }
  state.counters["volume"] = volume;
}
BENCHMARK(BM_OverlapBunnyBoxCgal)->Unit(benchmark::kMillisecond);

void BM_OverlapBunnyBoxMeshConvex(benchmark::State& state) {  // the pair above, by clipping near B
  const auto b = bunny();
  const MeshBvh bvh(*b);
  const Mesh box = tessellate_box(kBoxHalf);
  double volume = 0.0;
  for (auto _ : state) {
    const OverlapResult r = overlap_volume_mesh_convex(*b, bvh, Pose::Identity(), box, kBoxPose);
    benchmark::DoNotOptimize(r);
    volume = r.volume;
  }
  state.counters["volume"] = volume;
}
BENCHMARK(BM_OverlapBunnyBoxMeshConvex)->Unit(benchmark::kMicrosecond);

// A finger link (a 1 × 2 × 4 cm box) pressing 1.5 mm into the bunny scaled to 6 cm, with its
// 2 × 4 cm side on the surface at the given vertex: the case a penalty stepper calls tens of
// thousands of times. The cost follows the number of the bunny's triangles inside the finger.
struct FingerOnBunny {
  std::shared_ptr<Mesh> mesh = bunny(0.03);
  Vec3 half{0.005, 0.01, 0.02};
  Mesh box = tessellate_box(half);
  Pose X_WB;
  explicit FingerOnBunny(int vertex) {
    Vec3 n = Vec3::Zero();  // area-weighted normal at the vertex
    for (const auto& f : mesh->faces)
      if (f[0] == vertex || f[1] == vertex || f[2] == vertex)
        n += (mesh->vertices[f[1]] - mesh->vertices[f[0]]).cross(mesh->vertices[f[2]] - mesh->vertices[f[0]]);
    n.normalize();
    X_WB = {mesh->vertices[vertex] + n * (half.x() - 0.0015), Quat::FromTwoVectors(Vec3::UnitX(), n)};
  }
};

void BM_OverlapFingerBunnyMeshConvex(benchmark::State& state) {
  const FingerOnBunny s(static_cast<int>(state.range(0)));
  const MeshBvh bvh(*s.mesh);
  double volume = 0.0;
  size_t records = 0;
  for (auto _ : state) {
    const OverlapResult r = overlap_volume_mesh_convex(*s.mesh, bvh, Pose::Identity(), s.box, s.X_WB);
    benchmark::DoNotOptimize(r);
    volume = r.volume;
    records = r.boundary_a.size() + r.boundary_b.size();
  }
  state.counters["volume_mm3"] = volume * 1e9;
  state.counters["records"] = static_cast<double>(records);
}
BENCHMARK(BM_OverlapFingerBunnyMeshConvex)->Arg(0)->Arg(1000)->Arg(2500)->Unit(benchmark::kMicrosecond);

void BM_OverlapCapsuleFingerBunnyMeshConvex(benchmark::State& state) {  // B with 84 face planes
  const FingerOnBunny s(static_cast<int>(state.range(0)));
  const MeshBvh bvh(*s.mesh);
  const Mesh capsule = tessellate_capsule(0.008, 0.015, 12);
  const Pose X_WB = s.X_WB * Pose{Vec3(0.008 - s.half.x(), 0, 0), Quat::Identity()};  // 1.5 mm deep too
  double volume = 0.0;
  for (auto _ : state) {
    const OverlapResult r = overlap_volume_mesh_convex(*s.mesh, bvh, Pose::Identity(), capsule, X_WB);
    benchmark::DoNotOptimize(r);
    volume = r.volume;
  }
  state.counters["volume_mm3"] = volume * 1e9;
}
BENCHMARK(BM_OverlapCapsuleFingerBunnyMeshConvex)->Arg(1000)->Unit(benchmark::kMicrosecond);

void BM_OverlapFingerBunnyCgal(benchmark::State& state) {
  const FingerOnBunny s(static_cast<int>(state.range(0)));
  double volume = 0.0;
  for (auto _ : state) {
    const OverlapResult r = overlap_volume_cgal(*s.mesh, Pose::Identity(), s.box, s.X_WB);
    benchmark::DoNotOptimize(r);
    volume = r.volume;
  }
  state.counters["volume_mm3"] = volume * 1e9;
}
BENCHMARK(BM_OverlapFingerBunnyCgal)->Arg(0)->Arg(1000)->Arg(2500)->Unit(benchmark::kMicrosecond);

void BM_OverlapBoxBoxClip(benchmark::State& state) {
  const Mesh a = tessellate_box(Vec3(0.5, 0.3, 0.2)), b = tessellate_box(Vec3(0.4, 0.4, 0.25));
  const Pose X_WA{Vec3(0.1, 0.0, -0.1), quat_exp(Vec3(0.3, -0.2, 0.7))};
  const Pose X_WB{Vec3(0.45, 0.2, 0.05), quat_exp(Vec3(-0.5, 0.4, 0.1))};
  for (auto _ : state) benchmark::DoNotOptimize(overlap_volume_convex(a, X_WA, b, X_WB).volume);
}
BENCHMARK(BM_OverlapBoxBoxClip)->Unit(benchmark::kMicrosecond);

void BM_OverlapBoxBoxCgal(benchmark::State& state) {
  const Mesh a = tessellate_box(Vec3(0.5, 0.3, 0.2)), b = tessellate_box(Vec3(0.4, 0.4, 0.25));
  const Pose X_WA{Vec3(0.1, 0.0, -0.1), quat_exp(Vec3(0.3, -0.2, 0.7))};
  const Pose X_WB{Vec3(0.45, 0.2, 0.05), quat_exp(Vec3(-0.5, 0.4, 0.1))};
  for (auto _ : state) benchmark::DoNotOptimize(overlap_volume_cgal(a, X_WA, b, X_WB).volume);
}
BENCHMARK(BM_OverlapBoxBoxCgal)->Unit(benchmark::kMicrosecond);

void BM_OverlapSphereSphereClip(benchmark::State& state) {
  const Mesh s = tessellate_sphere(1.0, static_cast<int>(state.range(0)));
  for (auto _ : state)
    benchmark::DoNotOptimize(overlap_volume_convex(s, Pose::Identity(), s, Pose{Vec3(1.2, 0, 0), Quat::Identity()}).volume);
  state.counters["triangles"] = static_cast<double>(s.faces.size());
}
BENCHMARK(BM_OverlapSphereSphereClip)->Arg(16)->Arg(32)->Unit(benchmark::kMillisecond);

struct BunnyBoxModel {
  Model model;
  BunnyBoxModel() {
    model.meshes.push_back(bunny());
    Geom g;
    g.name = "bunny";
    g.type = GeomType::TriangleMesh;
    g.mesh = 0;
    model.geoms.push_back(g);
    g.name = "box";
    g.type = GeomType::Box;
    g.mesh = -1;
    g.size = kBoxHalf;
    model.geoms.push_back(g);
  }
};

void BM_CollideTrimeshBunnyBox(benchmark::State& state) {
  const BunnyBoxModel m;
  const BvhCache cache(m.model);
  size_t points = 0;
  for (auto _ : state) {
    const ContactSet c = collide_trimesh(m.model, cache, 0, Pose::Identity(), 1, kBoxPose, 0.0);
    benchmark::DoNotOptimize(c);
    points = c.points.size();
  }
  state.counters["contacts"] = static_cast<double>(points);
}
BENCHMARK(BM_CollideTrimeshBunnyBox)->Unit(benchmark::kMicrosecond);

#ifdef GRASPSIM_HAVE_FCL
fcl::Transform3d to_fcl(const Pose& X) {
  fcl::Transform3d T = fcl::Transform3d::Identity();
  T.linear() = X.R();
  T.translation() = X.p;
  return T;
}

void BM_FclBunnyBoxCollide(benchmark::State& state) {
  const auto b = bunny();
  std::vector<fcl::Vector3d> verts(b->vertices.begin(), b->vertices.end());
  std::vector<fcl::Triangle> tris;
  for (const auto& f : b->faces) tris.emplace_back(f[0], f[1], f[2]);
  auto geometry = std::make_shared<fcl::BVHModel<fcl::OBBRSSd>>();
  geometry->beginModel();
  geometry->addSubModel(verts, tris);
  geometry->endModel();
  fcl::CollisionObjectd mesh(geometry, fcl::Transform3d::Identity());
  fcl::CollisionObjectd box(std::make_shared<fcl::Boxd>(2 * kBoxHalf), to_fcl(kBoxPose));
  fcl::CollisionRequestd request(8, true);  // up to 8 contacts, with contact data
  size_t points = 0;
  for (auto _ : state) {
    fcl::CollisionResultd result;
    fcl::collide(&mesh, &box, request, result);
    benchmark::DoNotOptimize(result);
    points = result.numContacts();
  }
  state.counters["contacts"] = static_cast<double>(points);
}
BENCHMARK(BM_FclBunnyBoxCollide)->Unit(benchmark::kMicrosecond);
#endif

}  // namespace
}  // namespace graspsim

BENCHMARK_MAIN();
