// MCube object table, outlines (.npy), and the push set-up reconstructed from a file name.

#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <numbers>
#include <regex>

#include "collision/extrusion.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/mcube.h"

namespace graspsim::mcube {
namespace {

constexpr double kQuarterTurn = std::numbers::pi / 2;
constexpr double kThickness = 0.0127;  // every MCube shape: meshes span z = +-6.35 mm

// README "Objects" (pnpush shape_db.py). ellip3, hex and butter outlines/meshes are a quarter
// turn off the object frame of object_pose (README: verified on the recordings; the sign does not
// matter for ellip3 and hex, which are symmetric under a half turn).
const std::vector<ObjectInfo> kObjects = {
    {"rect1", 0.8374, 0.001131, kThickness, "rect1.obj", "rect1_ext.npy", 0.0, ObjectInfo::Sides::Polygon},
    {"ellip1", 0.8937, 0.001231, kThickness, "ellip1.obj", "ellip1_ext.npy", 0.0, ObjectInfo::Sides::Ellipse},
    {"ellip3", 1.3338, 0.002973, kThickness, "ellip3.obj", "ellip3_ext.npy", kQuarterTurn, ObjectInfo::Sides::Ellipse},
    {"hex", 0.9827, 0.001497, kThickness, "hex.obj", "hex_ext.npy", kQuarterTurn, ObjectInfo::Sides::Polygon},
    {"butter", 1.1974, 0.002954, kThickness, "butter.obj", "butter_ext.npy", kQuarterTurn, ObjectInfo::Sides::Unknown},
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw InputError("MCube outline '" + path + "': " + what);
}

// Reads a little-endian float64, C-order, N x 2 NumPy .npy array (format versions 1 and 2).
std::vector<Vec2> read_npy_points(const std::string& path) {
  const std::string bytes = read_whole_file(path, "MCube outline file");
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

// README's rect1 polygon: counter-clockwise from (a, b), the numbering the side index i uses.
std::vector<Vec2> rect1_sides() {
  constexpr double a = 0.045, b = 0.045;
  return {{a, b}, {-a, b}, {-a, -b}, {a, -b}};
}

Vec2 rotate(const Vec2& v, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  return {c * v.x() - s * v.y(), s * v.x() + c * v.y()};
}

// The polygon's vertices counter-clockwise from the first at a polar angle >= 0: the numbering
// that puts rect1's V[0] at (a, b) as in the README and hex's at its +x corner (checked on the
// recorded tip starts).
std::vector<Vec2> numbered_sides(std::vector<Vec2> poly) {
  const auto angle = [](const Vec2& p) {
    const double a = std::atan2(p.y(), p.x());
    return a < -1e-9 ? a + 2 * std::numbers::pi : a;
  };
  const auto first = std::min_element(poly.begin(), poly.end(), [&](const Vec2& p, const Vec2& q) { return angle(p) < angle(q); });
  std::rotate(poly.begin(), first, poly.end());
  return poly;
}

PushGeometry finish(const Vec2& contact, const Vec2& normal, double angle) {
  PushGeometry g;
  g.contact = contact;
  g.normal = normal;
  g.tip_start = contact + kPusherRadius * normal;
  g.direction = -rotate(normal, angle);
  return g;
}

PushGeometry polygon_push(const PushFile& f, const std::vector<Vec2>& v) {
  if (f.side < 0 || f.side >= static_cast<int>(v.size()))
    throw InputError("MCube file '" + f.path + "': side i=" + std::to_string(f.side) + " does not exist on " + f.shape +
                     " (it has " + std::to_string(v.size()) + " sides)");
  const Vec2& p0 = v[f.side];
  const Vec2& p1 = v[(f.side + 1) % v.size()];
  const Vec2 edge = (p1 - p0).normalized();
  return finish(p0 * (1 - f.position) + p1 * f.position, Vec2(edge.y(), -edge.x()), f.angle_rad);
}

PushGeometry ellipse_push(const PushFile& f, const std::vector<Vec2>& outline) {
  if (f.side != 0)
    throw InputError("MCube file '" + f.path + "': side i=" + std::to_string(f.side) + " does not exist on " + f.shape +
                     " (an ellipse has one side, i=0)");
  double a = 0, b = 0;
  for (const Vec2& p : outline) a = std::max(a, std::abs(p.x())), b = std::max(b, std::abs(p.y()));
  const double th = 2 * std::numbers::pi * f.position;
  return finish(Vec2(a * std::cos(th), b * std::sin(th)), Vec2(std::cos(th) / a, std::sin(th) / b).normalized(), f.angle_rad);
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
    throw InputError("MCube file '" + f.path + "': the geometry of shape '" + f.shape +
                     "' needs its outline (push_geometry(file, outline))");
  return polygon_push(f, rect1_sides());
}

PushGeometry push_geometry(const PushFile& f, const std::vector<Vec2>& outline) {
  switch (object_info(f.shape).sides) {
    case ObjectInfo::Sides::Polygon: return polygon_push(f, numbered_sides(outline));
    case ObjectInfo::Sides::Ellipse: return ellipse_push(f, outline);
    case ObjectInfo::Sides::Unknown: break;
  }
  throw InputError("MCube file '" + f.path + "': how side i and position s locate the contact on shape '" + f.shape +
                   "' is not known (no recordings to check it on); use the recorded tip path");
}

}  // namespace graspsim::mcube
