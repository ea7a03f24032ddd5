#include "collision/mesh_io.h"

#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <assimp/Importer.hpp>
#include <filesystem>
#include <map>
#include <tuple>

#include "core/error.h"

namespace graspsim {

namespace {

// Appends one assimp mesh, welding vertices by exact position (assimp keeps vertices with
// different normals apart, which would make a watertight OBJ look open).
void append_mesh(const aiMesh& in, Mesh& out, std::map<std::tuple<double, double, double>, int>& index) {
  std::vector<int> remap(in.mNumVertices);
  for (unsigned i = 0; i < in.mNumVertices; ++i) {
    const aiVector3D& v = in.mVertices[i];
    const auto key = std::make_tuple(double(v.x), double(v.y), double(v.z));
    auto [it, inserted] = index.emplace(key, static_cast<int>(out.vertices.size()));
    if (inserted) out.vertices.emplace_back(v.x, v.y, v.z);
    remap[i] = it->second;
  }
  for (unsigned f = 0; f < in.mNumFaces; ++f) {
    const aiFace& face = in.mFaces[f];
    if (face.mNumIndices != 3) continue;  // points and lines left over after triangulation
    std::array<int, 3> tri{remap[face.mIndices[0]], remap[face.mIndices[1]], remap[face.mIndices[2]]};
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) continue;  // collapsed by welding
    out.faces.push_back(tri);
  }
}

}  // namespace

std::shared_ptr<Mesh> load_mesh(const std::string& path, const std::string& name, const Vec3& scale) {
  const std::string where = "mesh '" + name + "' (file '" + path + "')";
  namespace fs = std::filesystem;
  std::error_code ec;
  require(fs::exists(path, ec), where, "file not found");
  require(fs::is_regular_file(path, ec), where, "not a regular file (a folder or a device)");
  require(fs::file_size(path, ec) <= kMaxMeshFileBytes, where,
          "larger than 1 GiB (the limit for a mesh file: docs/errors.md)");
  require(scale.allFinite() && (scale.array() != 0.0).all(), where, "scale must be finite and non-zero");

  Assimp::Importer importer;
  const unsigned flags = aiProcess_Triangulate | aiProcess_JoinIdenticalVertices |
                         aiProcess_PreTransformVertices | aiProcess_FindDegenerates;
  const aiScene* scene = importer.ReadFile(path, flags);
  require(scene != nullptr && scene->mRootNode != nullptr, where,
          std::string("cannot read: ") + importer.GetErrorString());

  auto mesh = std::make_shared<Mesh>();
  mesh->name = name;
  std::map<std::tuple<double, double, double>, int> index;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) append_mesh(*scene->mMeshes[m], *mesh, index);
  require(!mesh->faces.empty(), where, "contains no triangles");
  require(mesh->faces.size() <= kMaxMeshTriangles, where,
          "more than 10 million triangles (the limit for a mesh: docs/errors.md)");

  for (Vec3& v : mesh->vertices) v = v.cwiseProduct(scale);
  if (scale.prod() < 0.0)  // a mirror turns the winding inside out
    for (auto& f : mesh->faces) std::swap(f[1], f[2]);
  return mesh;
}

}  // namespace graspsim
