#include "model/mass_properties.h"

#include <cmath>
#include <numbers>

#include "core/error.h"

namespace graspsim {

MassProperties MassProperties::transformed(const Pose& X_FS) const {
  const Mat3 R = X_FS.R();
  return {mass, X_FS * com, R * inertia * R.transpose()};
}

MassProperties MassProperties::operator+(const MassProperties& o) const {
  const double m = mass + o.mass;
  if (m <= 0.0) return {};
  const Vec3 c = (mass * com + o.mass * o.com) / m;
  // Parallel-axis theorem moves each part's inertia to the common centre.
  auto shifted = [&](const MassProperties& p) {
    const Vec3 d = p.com - c;
    return Mat3(p.inertia + p.mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose()));
  };
  return {m, c, shifted(*this) + shifted(o)};
}

MassProperties box_mass_properties(const Vec3& h, double density) {
  const double m = density * 8.0 * h.x() * h.y() * h.z();
  const Vec3 s = 4.0 * h.cwiseProduct(h);  // full side lengths squared
  Mat3 I = Mat3::Zero();
  I.diagonal() << m / 12.0 * (s.y() + s.z()), m / 12.0 * (s.x() + s.z()), m / 12.0 * (s.x() + s.y());
  return {m, Vec3::Zero(), I};
}

MassProperties sphere_mass_properties(double r, double density) {
  const double m = density * 4.0 / 3.0 * std::numbers::pi * r * r * r;
  return {m, Vec3::Zero(), Mat3::Identity() * (0.4 * m * r * r)};
}

MassProperties cylinder_mass_properties(double r, double hl, double density) {
  const double m = density * std::numbers::pi * r * r * 2.0 * hl;
  const double L = 2.0 * hl;
  Mat3 I = Mat3::Zero();
  I.diagonal() << m * (3 * r * r + L * L) / 12.0, m * (3 * r * r + L * L) / 12.0, 0.5 * m * r * r;
  return {m, Vec3::Zero(), I};
}

MassProperties capsule_mass_properties(double r, double hl, double density) {
  // Cylinder plus two hemispheres, each hemisphere's inertia shifted to the capsule centre.
  const double pi = std::numbers::pi;
  const double mc = density * pi * r * r * 2.0 * hl;
  const double mh = density * 2.0 / 3.0 * pi * r * r * r;  // one hemisphere
  const double L = 2.0 * hl;
  const double Iz = 0.5 * mc * r * r + 2.0 * (0.4 * mh * r * r);
  // Hemisphere about its own centroid (3r/8 from the flat face): 83/320 m r².
  const double d = hl + 3.0 * r / 8.0;
  const double Ih = 83.0 / 320.0 * mh * r * r + mh * d * d;
  const double Ix = mc * (3 * r * r + L * L) / 12.0 + 2.0 * Ih;
  Mat3 I = Mat3::Zero();
  I.diagonal() << Ix, Ix, Iz;
  return {mc + 2.0 * mh, Vec3::Zero(), I};
}

MassProperties mesh_mass_properties(const Mesh& mesh, double density) {
  // Integrate 1, x, x x^T over the solid as a sum of signed tetrahedra (origin, a, b, c).
  double vol = 0.0;
  Vec3 first = Vec3::Zero();
  Mat3 second = Mat3::Zero();  // ∫ x x^T dV
  const Vec3 origin = mesh.vertices.empty() ? Vec3::Zero() : mesh.vertices.front();
  for (const auto& f : mesh.faces) {
    const Vec3 a = mesh.vertices[f[0]] - origin, b = mesh.vertices[f[1]] - origin,
               c = mesh.vertices[f[2]] - origin;
    const double v = a.dot(b.cross(c)) / 6.0;
    vol += v;
    first += v * (a + b + c) / 4.0;
    // ∫ x x^T over a tetrahedron with a vertex at 0: v/20 (Σ p p^T + (Σ p)(Σ p)^T).
    const Vec3 s = a + b + c;
    second += v / 20.0 * (a * a.transpose() + b * b.transpose() + c * c.transpose() + s * s.transpose());
  }
  require(std::isfinite(vol) && vol > 0.0, "mesh '" + mesh.name + "'",
          "enclosed volume is " + show(vol) +
              " m^3; a solid needs a closed mesh with outward-facing triangles");
  const Vec3 com = first / vol;
  const Mat3 second_c = second - vol * com * com.transpose();  // about the centroid
  const Mat3 I = density * (second_c.trace() * Mat3::Identity() - second_c);
  return {density * vol, com + origin, I};
}

}  // namespace graspsim
