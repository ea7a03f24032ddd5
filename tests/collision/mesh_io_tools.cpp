#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "collision/mesh_io.h"
#include "collision/mesh_tools.h"
#include "collision/tessellate.h"
#include "core/error.h"
#include "mesh_test_shapes.h"

namespace graspsim {
namespace {

std::string temp_file(const std::string& name, const std::string& contents) {
  const auto path = std::filesystem::temp_directory_path() / ("graspsim_mesh_test_" + name);
  std::ofstream(path) << contents;
  return path.string();
}

// An ASCII STL of the unit cube [0,1]^3: STL repeats vertices per facet, so welding must
// bring 36 corners back to 8.
std::string cube_stl() {
  const Mesh box = tessellate_box(Vec3(0.5, 0.5, 0.5));
  std::string s = "solid cube\n";
  for (const auto& f : box.faces) {
    s += " facet normal 0 0 0\n  outer loop\n";
    for (int k : f) {
      const Vec3 v = box.vertices[k] + Vec3::Constant(0.5);
      s += "   vertex " + std::to_string(v.x()) + " " + std::to_string(v.y()) + " " + std::to_string(v.z()) + "\n";
    }
    s += "  endloop\n endfacet\n";
  }
  return s + "endsolid cube\n";
}

TEST(MeshIo, LoadsBunnyObjClosedWithReadmeVolume) {
  const auto mesh = load_mesh(test::bunny_path(), "bunny", Vec3::Ones());
  EXPECT_EQ(mesh->name, "bunny");
  EXPECT_EQ(mesh->faces.size(), 6976u);
  EXPECT_EQ(mesh->vertices.size(), 3490u);
  EXPECT_TRUE(is_closed(*mesh));
  // The README's independent script found 1.58714 (6 significant digits).
  EXPECT_NEAR(signed_volume(*mesh), 1.58714, 1e-5);
}

TEST(MeshIo, ScaleMultipliesVolumeAndMirrorKeepsOutwardFaces) {
  const auto unit = load_mesh(test::bunny_path(), "bunny", Vec3::Ones());
  const auto scaled = load_mesh(test::bunny_path(), "bunny", Vec3(0.1, 0.2, 0.3));
  EXPECT_NEAR(signed_volume(*scaled), 0.006 * signed_volume(*unit), 1e-12);
  const auto mirrored = load_mesh(test::bunny_path(), "bunny", Vec3(-1, 1, 1));
  EXPECT_TRUE(is_closed(*mirrored));
  EXPECT_NEAR(signed_volume(*mirrored), signed_volume(*unit), 1e-12);
}

TEST(MeshIo, StlVerticesAreWelded) {
  const auto mesh = load_mesh(temp_file("cube.stl", cube_stl()), "cube", Vec3::Ones());
  EXPECT_EQ(mesh->vertices.size(), 8u);
  EXPECT_EQ(mesh->faces.size(), 12u);
  EXPECT_TRUE(is_closed(*mesh));
  EXPECT_NEAR(signed_volume(*mesh), 1.0, 1e-12);
}

TEST(MeshIo, ErrorsNameTheFile) {
  const std::string missing = "/nonexistent/dir/thing.obj";
  try {
    load_mesh(missing, "thing", Vec3::Ones());
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  const std::string empty = temp_file("empty.obj", "");
  EXPECT_THROW(load_mesh(empty, "empty", Vec3::Ones()), InputError);
  const std::string no_faces = temp_file("points.obj", "v 0 0 0\nv 1 0 0\n");
  try {
    load_mesh(no_faces, "points", Vec3::Ones());
    FAIL() << "no exception";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(no_faces), std::string::npos) << e.what();
  }
  EXPECT_THROW(load_mesh(test::bunny_path(), "bunny", Vec3(1, 0, 1)), InputError);
}

TEST(MeshTools, ClosedDetectsHolesAndFlippedFaces) {
  Mesh box = tessellate_box(Vec3(1, 2, 3));
  EXPECT_TRUE(is_closed(box));
  Mesh holed = box;
  holed.faces.pop_back();
  EXPECT_FALSE(is_closed(holed));
  Mesh flipped = box;
  std::swap(flipped.faces[3][1], flipped.faces[3][2]);
  EXPECT_FALSE(is_closed(flipped));
  holed.name = "holed";
  try {
    require_closed(holed, "geom 'g'");
    FAIL() << "no exception";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("holed"), std::string::npos) << what;
    EXPECT_NE(what.find("geom 'g'"), std::string::npos) << what;
  }
}

TEST(MeshTools, ConvexityTest) {
  EXPECT_TRUE(is_convex(tessellate_box(Vec3(1, 2, 3))));
  EXPECT_TRUE(is_convex(tessellate_sphere(1.0, 24)));
  EXPECT_TRUE(is_convex(tessellate_capsule(0.5, 1.0, 24)));
  EXPECT_FALSE(is_convex(test::l_prism()));
  EXPECT_FALSE(is_convex(*load_mesh(test::bunny_path(), "bunny", Vec3::Ones())));
}

TEST(MeshTools, ConvexHullOfCubeCornersAndInteriorPointsIsTheCube) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<Vec3> pts;
  for (int i = 0; i < 200; ++i) pts.emplace_back(u(rng), u(rng), u(rng));
  for (int i = 0; i < 8; ++i) pts.emplace_back(i & 1 ? 1 : -1, i & 2 ? 1 : -1, i & 4 ? 1 : -1);
  const Mesh hull = convex_hull(pts);
  EXPECT_TRUE(is_closed(hull));
  EXPECT_TRUE(is_convex(hull));
  EXPECT_NEAR(signed_volume(hull), 8.0, 1e-12);  // exactly the cube
}

TEST(MeshTools, ConvexHullContainsEveryInputPoint) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g;
  std::vector<Vec3> pts;
  for (int i = 0; i < 500; ++i) pts.emplace_back(g(rng), 0.5 * g(rng), 2.0 * g(rng));
  const Mesh hull = convex_hull(pts);
  ASSERT_TRUE(is_closed(hull));
  EXPECT_GT(signed_volume(hull), 0.0);
  for (const auto& f : hull.faces) {
    const Vec3& a = hull.vertices[f[0]];
    const Vec3 n = (hull.vertices[f[1]] - a).cross(hull.vertices[f[2]] - a).normalized();
    for (const Vec3& p : pts) ASSERT_LE(n.dot(p - a), 1e-9);  // outward faces: all points behind
  }
}

TEST(MeshTools, ConvexHullRejectsCoplanarPoints) {
  EXPECT_THROW(convex_hull({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 3, 0}}), InputError);
  EXPECT_THROW(convex_hull({{0, 0, 0}, {1, 0, 0}}), InputError);
}

}  // namespace
}  // namespace graspsim
