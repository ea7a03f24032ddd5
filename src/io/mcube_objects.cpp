// MCube object table, outlines (.npy), and the push set-up reconstructed from a file name.

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numbers>
#include <regex>

#include "core/error.h"
#include "io/mcube.h"

namespace graspsim::mcube {
namespace {

constexpr double kQuarterTurn = std::numbers::pi / 2;
constexpr double kThickness = 0.0127;  // every MCube shape: meshes span z = +-6.35 mm

// README "Objects" (pnpush shape_db.py). ellip3, hex and butter outlines/meshes are a quarter
// turn off the object frame of object_pose (README: verified on the recordings; the sign does not
// matter for ellip3 and hex, which are symmetric under a half turn).
const std::vector<ObjectInfo> kObjects = {
    {"rect1", 0.8374, 0.001131, kThickness, "rect1.obj", "rect1_ext.npy", 0.0},
    {"ellip1", 0.8937, 0.001231, kThickness, "ellip1.obj", "ellip1_ext.npy", 0.0},
    {"ellip3", 1.3338, 0.002973, kThickness, "ellip3.obj", "ellip3_ext.npy", kQuarterTurn},
    {"hex", 0.9827, 0.001497, kThickness, "hex.obj", "hex_ext.npy", kQuarterTurn},
    {"butter", 1.1974, 0.002954, kThickness, "butter.obj", "butter_ext.npy", kQuarterTurn},
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("MCube outline '" + path + "': " + what);
}

// Reads a little-endian float64, C-order, N x 2 NumPy .npy array (format versions 1 and 2).
std::vector<Vec2> read_npy_points(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) fail(path, "not a .npy file");
  const auto u8 = [&](std::size_t i) { return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[i])); };
  const int major = static_cast<int>(u8(6));
  const std::size_t header_len = major == 1 ? (u8(8) | u8(9) << 8) : (u8(8) | u8(9) << 8 | u8(10) << 16 | u8(11) << 24);
  const std::size_t start = (major == 1 ? 10 : 12) + header_len;
  if (start > bytes.size()) fail(path, "truncated header");
  const std::string header = bytes.substr(0, start);
  std::smatch m;
  if (header.find("'descr': '<f8'") == std::string::npos || header.find("'fortran_order': False") == std::string::npos ||
      !std::regex_search(header, m, std::regex(R"('shape': \((\d+), 2\))")))
    fail(path, "expected a little-endian float64 N x 2 array in C order");
  const std::size_t n = std::stoul(m[1]);
  if (bytes.size() - start < n * 16) fail(path, "truncated data");
  std::vector<Vec2> pts(n);
  for (std::size_t i = 0; i < n; ++i) std::memcpy(pts[i].data(), bytes.data() + start + 16 * i, 16);
  return pts;
}

double signed_area(const std::vector<Vec2>& poly) {
  double a = 0;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const Vec2& p = poly[i];
    const Vec2& q = poly[(i + 1) % poly.size()];
    a += p.x() * q.y() - q.x() * p.y();
  }
  return 0.5 * a;
}

// README's rect1 polygon: counter-clockwise from (a, b), the numbering the side index i uses.
std::vector<Vec2> rect1_sides() {
  constexpr double a = 0.045, b = 0.045;
  return {{a, b}, {-a, b}, {-a, -b}, {a, -b}};
}

Vec2 rotate(const Vec2& v, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {c * v.x() - s * v.y(), s * v.x() + c * v.y()};
}

}  // namespace

const std::vector<ObjectInfo>& known_objects() { return kObjects; }

const ObjectInfo& object_info(const std::string& shape) {
  std::string names;
  for (const auto& o : kObjects) {
    if (o.shape == shape) return o;
    names += (names.empty() ? "" : ", ") + o.shape;
  }
  throw InputError("unknown MCube shape '" + shape + "' (known: " + names + ")");
}

std::vector<Vec2> object_outline(const ObjectInfo& info, const std::string& objects_dir) {
  const std::string path = objects_dir + "/" + info.outline;
  std::vector<Vec2> pts = read_npy_points(path);
  if (pts.size() < 3) fail(path, "fewer than 3 outline points");
  for (auto& p : pts) p = rotate(p, info.outline_yaw);
  if (signed_area(pts) < 0) std::reverse(pts.begin(), pts.end());
  return pts;
}

PushGeometry push_geometry(const PushFile& f) {
  object_info(f.shape);  // unknown shapes: the error listing the known ones
  if (f.shape != "rect1")
    throw InputError("MCube file '" + f.path + "': the side numbering of shape '" + f.shape +
                     "' is not known (only rect1's, from the dataset README)");
  const std::vector<Vec2> v = rect1_sides();
  if (f.side < 0 || f.side >= static_cast<int>(v.size()))
    throw InputError("MCube file '" + f.path + "': side i=" + std::to_string(f.side) + " does not exist on " + f.shape +
                     " (it has " + std::to_string(v.size()) + " sides)");
  const Vec2& p0 = v[f.side];
  const Vec2& p1 = v[(f.side + 1) % v.size()];
  PushGeometry g;
  g.contact = p0 * (1 - f.position) + p1 * f.position;
  const Vec2 edge = (p1 - p0).normalized();
  g.normal = Vec2(edge.y(), -edge.x());  // outward for a counter-clockwise polygon
  g.tip_start = g.contact + kPusherRadius * g.normal;
  g.direction = -rotate(g.normal, f.angle_rad);
  return g;
}

}  // namespace graspsim::mcube
