#include "io/scene_mesh.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "core/error.h"

namespace graspsim {
namespace {

std::string lower_extension(const std::string& path) {
  const size_t dot = path.find_last_of('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

// STL stores every triangle's corners separately; identical corners become one vertex.
class VertexMerger {
 public:
  explicit VertexMerger(Mesh& mesh) : mesh_(mesh) {}
  int add(const Vec3& v) {
    const auto [it, inserted] = ids_.emplace(std::array<double, 3>{v.x(), v.y(), v.z()}, int(mesh_.vertices.size()));
    if (inserted) mesh_.vertices.push_back(v);
    return it->second;
  }

 private:
  Mesh& mesh_;
  std::map<std::array<double, 3>, int> ids_;
};

void read_binary_stl(const std::string& data, Mesh& mesh) {
  std::uint32_t n = 0;
  std::memcpy(&n, data.data() + 80, 4);
  VertexMerger merge(mesh);
  for (std::uint32_t i = 0; i < n; ++i) {
    const char* tri = data.data() + 84 + 50 * size_t(i) + 12;  // skip the normal
    std::array<int, 3> f;
    for (int k = 0; k < 3; ++k) {
      float c[3];
      std::memcpy(c, tri + 12 * k, 12);
      f[k] = merge.add(Vec3(c[0], c[1], c[2]));
    }
    mesh.faces.push_back(f);
  }
}

void read_ascii_stl(const std::string& path, const std::string& data, Mesh& mesh) {
  std::istringstream in(data);
  VertexMerger merge(mesh);
  std::string word;
  std::vector<int> corners;
  while (in >> word) {
    if (word != "vertex") continue;
    Vec3 v;
    if (!(in >> v.x() >> v.y() >> v.z())) throw InputError("mesh file '" + path + "': malformed 'vertex' line");
    corners.push_back(merge.add(v));
    if (corners.size() == 3) mesh.faces.push_back({corners[0], corners[1], corners[2]}), corners.clear();
  }
  if (!corners.empty()) throw InputError("mesh file '" + path + "': a facet does not have 3 vertices");
}

// OBJ: `v x y z` and `f a b c ...` with a, a/t, a//n or a/t/n; 1-based or negative
// (relative) indices; polygons become triangle fans.
void read_obj(const std::string& path, const std::string& data, Mesh& mesh) {
  std::istringstream in(data);
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    const std::string where = path + ":" + std::to_string(line_no);
    if (tag == "v") {
      Vec3 v;
      if (!(ls >> v.x() >> v.y() >> v.z())) throw InputError(where + ": malformed vertex");
      mesh.vertices.push_back(v);
    } else if (tag == "f") {
      std::vector<int> poly;
      for (std::string corner; ls >> corner;) {
        long idx = 0;
        try {
          idx = std::stol(corner.substr(0, corner.find('/')));
        } catch (const std::exception&) {
          throw InputError(where + ": malformed face corner '" + corner + "'");
        }
        const long n = long(mesh.vertices.size());
        const long zero_based = idx > 0 ? idx - 1 : n + idx;
        if (idx == 0 || zero_based < 0 || zero_based >= n)
          throw InputError(where + ": face refers to vertex " + std::to_string(idx) + " of " + std::to_string(n));
        poly.push_back(int(zero_based));
      }
      if (poly.size() < 3) throw InputError(where + ": a face needs at least 3 vertices");
      for (size_t k = 1; k + 1 < poly.size(); ++k) mesh.faces.push_back({poly[0], poly[k], poly[k + 1]});
    }
  }
}

}  // namespace

std::shared_ptr<Mesh> load_scene_mesh(const std::string& path, const std::string& name, const Vec3& scale) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot open mesh file '" + path + "' (mesh '" + name + "')");
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto mesh = std::make_shared<Mesh>();
  mesh->name = name;
  const std::string ext = lower_extension(path);
  if (ext == "obj") {
    read_obj(path, data, *mesh);
  } else if (ext == "stl") {
    // A binary STL may also begin with "solid", so decide by the size its header implies.
    std::uint32_t n = 0;
    if (data.size() >= 84) std::memcpy(&n, data.data() + 80, 4);
    if (data.size() >= 84 && data.size() == 84 + 50 * size_t(n)) read_binary_stl(data, *mesh);
    else read_ascii_stl(path, data, *mesh);
  } else {
    throw InputError("mesh file '" + path + "': unsupported format '." + ext + "' (use .obj or .stl)");
  }
  if (mesh->faces.empty()) throw InputError("mesh file '" + path + "' has no faces");
  for (auto& v : mesh->vertices) v = v.cwiseProduct(scale);
  if (scale.prod() < 0)
    for (auto& f : mesh->faces) std::swap(f[1], f[2]);
  return mesh;
}

}  // namespace graspsim
