#include "collision/tessellate.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/error.h"

namespace graspsim {

namespace {

// Surface of revolution about z from a profile of (radius, z) points running bottom to top.
// A zero radius is a pole (one vertex); any other point becomes a ring of n vertices.
Mesh revolve(const std::vector<std::pair<double, double>>& profile, int n, const std::string& name) {
  Mesh mesh;
  mesh.name = name;
  std::vector<std::vector<int>> levels;  // vertex ids per profile point (1 for a pole)
  for (const auto& [r, z] : profile) {
    std::vector<int> ids;
    const int count = r == 0.0 ? 1 : n;
    for (int j = 0; j < count; ++j) {
      const double t = 2.0 * std::numbers::pi * j / n;
      ids.push_back(static_cast<int>(mesh.vertices.size()));
      mesh.vertices.emplace_back(r * std::cos(t), r * std::sin(t), z);
    }
    levels.push_back(std::move(ids));
  }
  for (size_t i = 0; i + 1 < levels.size(); ++i) {
    const auto& lo = levels[i];
    const auto& hi = levels[i + 1];
    for (int j = 0; j < n; ++j) {
      const int k = (j + 1) % n;
      if (lo.size() == 1) {
        mesh.faces.push_back({lo[0], hi[k], hi[j]});
      } else if (hi.size() == 1) {
        mesh.faces.push_back({lo[j], lo[k], hi[0]});
      } else {  // quad split in two, counter-clockwise seen from outside
        mesh.faces.push_back({lo[j], lo[k], hi[k]});
        mesh.faces.push_back({lo[j], hi[k], hi[j]});
      }
    }
  }
  return mesh;
}

void check_size(double value, const char* what) {
  require(std::isfinite(value) && value > 0.0, "tessellate", std::string(what) + " must be positive");
}

}  // namespace

Mesh tessellate_sphere(double radius, int resolution) {
  check_size(radius, "sphere radius");
  const int n = std::max(3, resolution), bands = std::max(2, n / 2);
  std::vector<std::pair<double, double>> profile;
  for (int i = 0; i <= bands; ++i) {
    const double phi = -std::numbers::pi / 2 + std::numbers::pi * i / bands;
    const bool pole = i == 0 || i == bands;
    profile.emplace_back(pole ? 0.0 : radius * std::cos(phi), radius * std::sin(phi));
  }
  return revolve(profile, n, "sphere");
}

Mesh tessellate_capsule(double radius, double half_length, int resolution) {
  check_size(radius, "capsule radius");
  check_size(half_length, "capsule half-length");
  const int n = std::max(3, resolution), bands = std::max(1, n / 4);  // per hemisphere
  std::vector<std::pair<double, double>> profile;
  for (int cap = 0; cap < 2; ++cap) {
    const double zc = cap == 0 ? -half_length : half_length;
    for (int i = 0; i <= bands; ++i) {
      const double phi = (cap == 0 ? -std::numbers::pi / 2 : 0.0) + std::numbers::pi / 2 * i / bands;
      const bool pole = (cap == 0 && i == 0) || (cap == 1 && i == bands);
      profile.emplace_back(pole ? 0.0 : radius * std::cos(phi), zc + radius * std::sin(phi));
    }
  }
  return revolve(profile, n, "capsule");
}

Mesh tessellate_cylinder(double radius, double half_length, int resolution) {
  check_size(radius, "cylinder radius");
  check_size(half_length, "cylinder half-length");
  return revolve({{0.0, -half_length}, {radius, -half_length}, {radius, half_length}, {0.0, half_length}},
                 std::max(3, resolution), "cylinder");
}

Mesh tessellate_box(const Vec3& h) {
  check_size(h.minCoeff(), "box half-extent");
  Mesh mesh;
  mesh.name = "box";
  for (int i = 0; i < 8; ++i)  // bit 0 → x, bit 1 → y, bit 2 → z
    mesh.vertices.emplace_back(i & 1 ? h.x() : -h.x(), i & 2 ? h.y() : -h.y(), i & 4 ? h.z() : -h.z());
  const int quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& q : quads) {
    mesh.faces.push_back({q[0], q[1], q[2]});
    mesh.faces.push_back({q[0], q[2], q[3]});
  }
  return mesh;
}

Mesh tessellate(const Model& model, int geom, int resolution) {
  const Geom& g = model.geoms.at(geom);
  Mesh mesh;
  switch (g.type) {
    case GeomType::Sphere: mesh = tessellate_sphere(g.size.x(), resolution); break;
    case GeomType::Box: mesh = tessellate_box(g.size); break;
    case GeomType::Capsule: mesh = tessellate_capsule(g.size.x(), g.size.y(), resolution); break;
    case GeomType::Cylinder: mesh = tessellate_cylinder(g.size.x(), g.size.y(), resolution); break;
    case GeomType::ConvexMesh:
    case GeomType::TriangleMesh:
      require(g.mesh >= 0 && g.mesh < static_cast<int>(model.meshes.size()) && model.meshes[g.mesh],
              "geom '" + g.name + "'", "has no mesh");
      return *model.meshes[g.mesh];
    case GeomType::Plane:
      throw InputError("geom '" + g.name + "': a plane cannot be tessellated into a closed mesh");
  }
  mesh.name = g.name;
  return mesh;
}

}  // namespace graspsim
