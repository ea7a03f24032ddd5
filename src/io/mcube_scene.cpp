// The scene file of a recorded MCube push: object, ground, and a kinematic pusher that follows a
// sampled path. Written as text so that the file on disk is exactly what was simulated.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "collision/extrusion.h"
#include "core/error.h"
#include "io/mcube_validate.h"

namespace graspsim::mcube {
namespace {

// An outline whose hull is larger by less than this is convex up to digitisation (the shipped
// ellipses, hex and rect1 are their hulls to round-off; butter's hull is 16 % larger).
constexpr double kConvexAreaTolerance = 0.005;

// The narrowphase clips faces of at most 64 vertices (collision/shapes.h kMaxPolygon); keeping
// every n-th point of a smooth 66-point outline moves its boundary by < 0.1 mm.
constexpr std::size_t kMaxOutline = 60;

// A convex outline as a prism of at most kMaxOutline corners (its hull); nullopt for an outline
// that is not convex.
std::optional<std::vector<Vec2>> convex_outline(const std::vector<Vec2>& outline) {
  const std::vector<Vec2> hull = convex_hull(outline);
  if (signed_area(hull) > (1 + kConvexAreaTolerance) * std::abs(signed_area(outline))) return std::nullopt;
  if (hull.size() <= kMaxOutline) return hull;
  std::vector<Vec2> out;
  for (std::size_t i = 0; i < kMaxOutline; ++i) out.push_back(hull[i * hull.size() / kMaxOutline]);
  return out;
}

std::string prism_obj(const std::vector<Vec2>& ring, double thickness) {
  std::ostringstream o;
  o.precision(17);
  o << "# MCube outline extruded to " << thickness << " m, centred on the object origin (written by graspsim)\n";
  for (double z : {-thickness / 2, thickness / 2})
    for (const Vec2& p : ring) o << "v " << p.x() << ' ' << p.y() << ' ' << z << '\n';
  const std::size_t n = ring.size();
  o << 'f';  // bottom, seen from below
  for (std::size_t i = n; i-- > 0;) o << ' ' << i + 1;
  o << "\nf";
  for (std::size_t i = 0; i < n; ++i) o << ' ' << n + i + 1;
  o << '\n';
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t j = (i + 1) % n;
    o << "f " << i + 1 << ' ' << j + 1 << ' ' << n + j + 1 << ' ' << n + i + 1 << '\n';
  }
  return o.str();
}

std::string num(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

// Velocity knots of one pusher axis: the step signal that moves the pusher from path[k] to
// path[k+1] during [k, k+1] * kPathPeriod. Knots sit 1 ns after each interval's start so a stepper
// that reads the velocity at the end of its step (t + dt, any dt dividing the period) reads its
// own interval despite round-off in t.
std::string velocity_signal(const std::vector<Vec2>& path, int axis) {
  std::ostringstream t, y;
  for (std::size_t k = 0; k + 1 < path.size(); ++k) {
    t << (k ? ", " : "") << num(k * kPathPeriod + 1e-9);
    y << (k ? ", " : "") << num((path[k + 1][axis] - path[k][axis]) / kPathPeriod);
  }
  return "{interp: step, t: [" + t.str() + "], y: [" + y.str() + "]}";
}

// Principal inertia of the object about its origin: Izz from the object table; Ixx and Iyy split
// Izz like the outline's second moments (a lamina's Ixx + Iyy = Izz) plus the thickness term.
Eigen::Vector3d object_inertia(const ObjectInfo& info, const std::vector<Vec2>& outline) {
  double sx = 0, sy = 0;
  for (const Vec2& p : outline) sx += p.x() * p.x(), sy += p.y() * p.y();
  const double plate = info.mass_kg * info.thickness * info.thickness / 12;
  return {info.izz * sy / (sx + sy) + plate, info.izz * sx / (sx + sy) + plate, info.izz};
}

}  // namespace

PushScene push_scene(const PushFile& f, const std::vector<Vec2>& outline, const SurfaceFriction& friction,
                     const std::vector<Vec2>& path, double duration) {
  if (path.size() < 2) throw InputError("MCube file '" + f.path + "': the pusher path has fewer than 2 samples");
  const ObjectInfo& info = object_info(f.shape);
  const std::optional<std::vector<Vec2>> convex = convex_outline(outline);
  const std::vector<Vec2>& ring = convex ? *convex : outline;
  const Eigen::Vector3d inertia = object_inertia(info, ring);
  const bool box = f.shape == "rect1";
  PushScene out;
  std::ostringstream y;
  y << "# MCube push " << std::filesystem::path(f.path).filename().string() << "\n"
    << "# written by `graspsim validate mcube`; rerun with `graspsim run` and --set parameters.NAME=value.\n"
    << "# Frame: the initial object frame (object origin at rest, x/y in the plane), SI units.\n"
    << "parameters:\n"
    << "  mu_ground: " << num(friction.mu_ground) << "      # surface '" << f.surface << "' (mcube_surfaces.yaml)\n"
    << "  mu_pusher: " << num(friction.mu_pusher) << "\n"
    << "  friction_model: cone\n  tangents: 16\n  solver: split\n  iterations: 16\n"
    << "  young_modulus: 1.0e8\n"
    << "  area: area               # point | area (elastic foundation, thesis eqs. 3.10-3.11)\n"
    << "  patch_grid: 5            # n x n support points over the bottom face (0: its corners)\n"
    << "  dt: 0.001\n"
    << "duration: " << num(duration) << "\n"
    << "options:\n  stepper: spook\n  dt: \"${dt}\"\n  solver: \"${solver}\"\n  iterations: \"${iterations}\"\n"
    << "  patch_grid: \"${patch_grid}\"\n"
    << "recording: {every: 1}\n"
    << "materials: [ground_mat, object_mat, pusher_mat]\n"
    << "default_contact: {friction_model: \"${friction_model}\", tangents: \"${tangents}\"}\n"
    << "contact_materials:\n"
    << "  - {materials: [ground_mat, object_mat], friction: \"${mu_ground}\", friction_model: \"${friction_model}\",\n"
    << "     tangents: \"${tangents}\", young_modulus: \"${young_modulus}\", area: \"${area}\"}\n"
    << "  - {materials: [pusher_mat, object_mat], friction: \"${mu_pusher}\", friction_model: \"${friction_model}\",\n"
    << "     tangents: \"${tangents}\", young_modulus: \"${young_modulus}\"}\n";
  if (!box && convex) y << "meshes:\n  - {name: object_mesh, file: object.obj}\n";
  y << "geoms:\n  - {name: ground, type: plane, material: ground_mat}\n"
    << "bodies:\n"
    << "  - name: object\n    pos: [0, 0, " << num(info.thickness / 2) << "]\n    joint: free\n"
    << "    mass: " << num(info.mass_kg) << "\n"
    << "    inertia: [" << num(inertia.x()) << ", " << num(inertia.y()) << ", " << num(inertia.z()) << "]\n"
    << "    geoms:\n";
  if (box) {
    double a = 0, b = 0;
    for (const Vec2& p : ring) a = std::max(a, std::abs(p.x())), b = std::max(b, std::abs(p.y()));
    y << "      - {name: object_geom, type: box, size: [" << num(a) << ", " << num(b) << ", " << num(info.thickness / 2)
      << "], material: object_mat}\n";
  } else if (convex) {
    y << "      - {name: object_geom, type: convex_mesh, mesh: object_mesh, material: object_mat}\n";
    out.object_obj = prism_obj(ring, info.thickness);
  } else {
    // Not convex (butter): the true outline, which the loader splits into convex pieces.
    y << "      - name: object_geom\n        type: extrusion\n        height: " << num(info.thickness)
      << "\n        material: object_mat\n        outline: [";
    for (std::size_t i = 0; i < ring.size(); ++i)
      y << (i ? ", " : "") << "[" << num(ring[i].x()) << ", " << num(ring[i].y()) << "]";
    y << "]\n";
  }
  // The rod spans 2-52 mm above the ground: clear of the ground, across the object's side.
  y << "  - name: pusher\n    pos: [" << num(path[0].x()) << ", " << num(path[0].y()) << ", 0.027]\n"
    << "    joint: free\n    kinematic: true\n"
    << "    prescribed_velocity:\n"
    << "      - " << velocity_signal(path, 0) << "\n"
    << "      - " << velocity_signal(path, 1) << "\n"
    << "      - 0\n      - 0\n      - 0\n      - 0\n"
    << "    geoms:\n      - {name: pusher_geom, type: cylinder, size: [" << num(kPusherRadius)
    << ", 0.025], material: pusher_mat}\n";
  out.yaml = y.str();
  return out;
}

}  // namespace graspsim::mcube
