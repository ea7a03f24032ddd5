#pragma once
// Loading triangle meshes from files (OBJ, STL, and whatever else assimp reads).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

// The limits on a mesh file (docs/errors.md): its size, and its triangles once read.
constexpr std::uintmax_t kMaxMeshFileBytes = std::uintmax_t{1} << 30;
constexpr std::size_t kMaxMeshTriangles = 10'000'000;

// Reads every mesh in the file, triangulates it, welds vertices at identical positions and
// multiplies coordinates by `scale` (per axis; a negative determinant flips the winding back
// so faces stay counter-clockwise seen from outside). Throws InputError naming the file
// when it is missing, not a regular file, beyond the limits, unreadable or holds no triangles.
std::shared_ptr<Mesh> load_mesh(const std::string& path, const std::string& name,
                                const Vec3& scale = Vec3::Ones());

}  // namespace graspsim
