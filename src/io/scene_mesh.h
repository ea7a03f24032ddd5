#pragma once
// The one place scene files load mesh files. For now a small reader of STL (ASCII and
// binary) and Wavefront OBJ (v and f lines); may later switch to assimp.

#include <memory>
#include <string>

#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

// Reads `path`, multiplies vertices by `scale` per axis (a mirroring scale flips the face
// winding so faces stay counter-clockwise from outside). Throws InputError naming the file.
std::shared_ptr<Mesh> load_scene_mesh(const std::string& path, const std::string& name, const Vec3& scale);

}  // namespace graspsim
