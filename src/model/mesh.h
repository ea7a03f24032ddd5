#pragma once
// Triangle mesh data as stored in the Model (shared, immutable once built).

#include <array>
#include <string>
#include <vector>

#include "core/types.h"

namespace graspsim {

struct Mesh {
  std::string name;
  std::vector<Vec3> vertices;            // in the geom frame, already scaled (m)
  std::vector<std::array<int, 3>> faces; // counter-clockwise seen from outside
};

}  // namespace graspsim
