#pragma once
// geometry.json: what a run's bodies look like, written beside its recordings so that a
// viewer replays bodies.csv without the engine (web/, `graspsim view`). docs/recordings.md
// describes the format.

#include <filesystem>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace graspsim {

inline constexpr int kGeometryFileVersion = 1;

// The model's bodies, geoms (type, size, pose in their body, collision group) and meshes
// (vertices in the geom frame, triangles), as JSON.
nlohmann::json geometry_json(const Model& model);

// Writes geometry_json(model) to `path` atomically. Throws InputError naming the file.
void write_geometry_file(const std::filesystem::path& path, const Model& model);

}  // namespace graspsim
