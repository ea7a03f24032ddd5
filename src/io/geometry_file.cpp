#include "io/geometry_file.h"

#include <cmath>

#include "io/atomic_file.h"

namespace graspsim {
namespace {

// Nine significant digits: a float's precision, what a renderer uses, and a third of the
// file a mesh would take at %.17g.
double rounded(double x) {
  if (x == 0.0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 8 - static_cast<int>(std::floor(std::log10(std::abs(x)))));
  return std::round(x * scale) / scale;
}

nlohmann::json vec(const Vec3& x) { return {rounded(x.x()), rounded(x.y()), rounded(x.z())}; }

}  // namespace

nlohmann::json geometry_json(const Model& model) {
  nlohmann::json bodies = nlohmann::json::array();
  for (const Body& b : model.bodies)
    bodies.push_back({{"name", b.name}, {"parent", b.parent}, {"kinematic", b.kinematic}});
  nlohmann::json geoms = nlohmann::json::array();
  for (const Geom& g : model.geoms) {
    const Quat& q = g.X_body_geom.q;
    nlohmann::json j = {{"name", g.name},
                        {"type", to_string(g.type)},
                        {"body", g.body},
                        {"pos", vec(g.X_body_geom.p)},
                        {"quat", {rounded(q.w()), rounded(q.x()), rounded(q.y()), rounded(q.z())}},
                        {"size", vec(g.size)},
                        {"collides", !g.never_collides()}};
    if (g.mesh >= 0) j["mesh"] = g.mesh;
    geoms.push_back(std::move(j));
  }
  nlohmann::json meshes = nlohmann::json::array();
  for (const auto& m : model.meshes) {
    std::vector<double> vertices;
    vertices.reserve(3 * m->vertices.size());
    for (const Vec3& v : m->vertices)
      for (int k = 0; k < 3; ++k) vertices.push_back(rounded(v[k]));
    std::vector<int> faces;
    faces.reserve(3 * m->faces.size());
    for (const auto& f : m->faces) faces.insert(faces.end(), f.begin(), f.end());
    meshes.push_back({{"name", m->name}, {"vertices", std::move(vertices)}, {"faces", std::move(faces)}});
  }
  return {{"format", "graspsim geometry"}, {"version", kGeometryFileVersion}, {"bodies", std::move(bodies)},
          {"geoms", std::move(geoms)}, {"meshes", std::move(meshes)}};
}

void write_geometry_file(const std::filesystem::path& path, const Model& model) {
  write_atomically(path, geometry_json(model).dump() + "\n");
}

}  // namespace graspsim
