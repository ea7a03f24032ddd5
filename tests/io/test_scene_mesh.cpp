// The scene mesh reader, checked by counts and by the enclosed volume (divergence theorem:
// V = Σ (a · (b × c)) / 6 over faces, positive iff faces wind counter-clockwise outside).

#include <gtest/gtest.h>

#include <cstring>

#include "collision/mesh_io.h"
#include "io_test_util.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;

double signed_volume(const Mesh& m) {
  double v = 0.0;
  for (const auto& f : m.faces) v += m.vertices[f[0]].dot(m.vertices[f[1]].cross(m.vertices[f[2]])) / 6.0;
  return v;
}

// Small integer coordinates: the sums are exact up to a few ulps of the result.
constexpr double kTol = 1e-14;

TEST(SceneMesh, ObjWithPolygonsAndAllCornerForms) {
  const auto m = load_mesh(test::data_dir() + "/pyramid.obj", "pyramid", Vec3::Ones());
  EXPECT_EQ(m->name, "pyramid");
  EXPECT_EQ(m->vertices.size(), 5u);
  EXPECT_EQ(m->faces.size(), 6u);  // quad base as 2 triangles + 4 sides
  EXPECT_NEAR(signed_volume(*m), 1.0 / 3.0, kTol);
}

TEST(SceneMesh, AsciiStlMergesSharedCorners) {
  const auto m = load_mesh(test::data_dir() + "/cube_ascii.stl", "cube", Vec3::Ones());
  EXPECT_EQ(m->vertices.size(), 8u);
  EXPECT_EQ(m->faces.size(), 12u);
  EXPECT_NEAR(signed_volume(*m), 1.0, kTol);
}

TEST(SceneMesh, BinaryStlEvenWhenTheHeaderSaysSolid) {
  // A binary copy of the ASCII cube, written here so the fixture stays human-readable.
  const auto ascii = load_mesh(test::data_dir() + "/cube_ascii.stl", "cube", Vec3::Ones());
  std::string data(80, ' ');
  std::memcpy(data.data(), "solid but actually binary", 25);
  const std::uint32_t n = static_cast<std::uint32_t>(ascii->faces.size());
  data.append(reinterpret_cast<const char*>(&n), 4);
  for (const auto& f : ascii->faces) {
    float rec[12] = {0, 0, 0};
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) rec[3 + 3 * k + c] = static_cast<float>(ascii->vertices[f[k]][c]);
    data.append(reinterpret_cast<const char*>(rec), sizeof rec);
    data.append(2, '\0');
  }
  TempDir dir;
  const auto m = load_mesh(dir.write("cube.stl", data), "cube", Vec3::Ones());
  EXPECT_EQ(m->vertices.size(), 8u);
  EXPECT_EQ(m->faces.size(), 12u);
  EXPECT_NEAR(signed_volume(*m), 1.0, kTol);
}

TEST(SceneMesh, ScaleMultipliesVolumeAndMirroringKeepsOrientation) {
  const std::string path = test::data_dir() + "/cube_ascii.stl";
  EXPECT_NEAR(signed_volume(*load_mesh(path, "c", Vec3(2, 3, 0.5))), 3.0, kTol);
  // A mirror (negative determinant) would turn the faces inside out unless the winding flips.
  EXPECT_NEAR(signed_volume(*load_mesh(path, "c", Vec3(-2, 1, 1))), 2.0, kTol);
}

TEST(SceneMesh, StanfordBunnyFromSharedData) {
  const auto m = load_mesh(std::string(GRASPSIM_SHARED_DIR) + "/data/meshes/bunny_watertight_6976tri.obj",
                                 "bunny", Vec3::Ones());
  EXPECT_EQ(m->faces.size(), 6976u);  // as the file name says
  // Watertight closed surface with Euler characteristic 2: V = F/2 + 2.
  EXPECT_EQ(m->vertices.size(), 6976u / 2 + 2);
  EXPECT_GT(signed_volume(*m), 0.0);
}

TEST(SceneMesh, ErrorsNameTheFile) {
  // Scene meshes go through assimp (collision/mesh_io.h); every failure is an InputError
  // that names the file and says what is wrong with it.
  TempDir dir;
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.write("a.obj", "v 0 0\n"), "a", Vec3::Ones()); }), "a.obj");
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.write("b.obj", "v 0 0 0\nf 1 x 1\n"), "b", Vec3::Ones()); }),
                  "Invalid face index");
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.write("c.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n"), "c", Vec3::Ones()); }),
                  "no triangles");
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.write("d.obj", "# nothing\n"), "d", Vec3::Ones()); }), "d.obj");
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.write("e.ply", "ply\n"), "e", Vec3::Ones()); }), "e.ply");
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.write("f.stl", "solid x\nfacet\nvertex 0 0 0\nvertex 1 0 0\nendsolid\n"), "f", Vec3::Ones()); }),
                  "f.stl");
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.path("none.obj"), "n", Vec3::Ones()); }), "file not found");
  // A folder or a device is not "not found" (issue 18: /dev/zero read as a mesh).
  EXPECT_CONTAINS(input_error([&] { load_mesh(dir.path(""), "n", Vec3::Ones()); }), "not a regular file");
  EXPECT_CONTAINS(input_error([&] { load_mesh("/dev/null", "n", Vec3::Ones()); }), "not a regular file");
}

}  // namespace
}  // namespace graspsim
