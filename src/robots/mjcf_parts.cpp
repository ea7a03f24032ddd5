#include "robots/mjcf_parts.h"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

#include "core/error.h"

namespace graspsim::mjcf {
namespace {

const std::string kContactParams =
    "ignored: graspsim's contact material sets stiffness and damping (docs/robots.md)";

const std::string kEqualityParams =
    "ignored: equalities are stiff SPOOK rows (stiffness 1e8) relaxing over solref's time constant";
const std::string kLimitParams = "ignored: joint limits are rigid SPOOK rows";

}  // namespace

const std::map<std::string, ElementRules>& element_rules() {
  static const std::map<std::string, ElementRules> r = {
      {"compiler",
       {{"angle", "meshdir", "assetdir", "autolimits", "inertiafromgeom", "eulerseq", "inertiagrouprange", "coordinate",
         "exactmeshinertia"},
        {{"boundmass", "not supported (ignored)"},
         {"boundinertia", "not supported (ignored)"},
         {"balanceinertia", "not supported (ignored)"},
         {"settotalmass", "not supported (ignored)"},
         {"fusestatic", "not supported (bodies stay separate)"},
         {"discardvisual", "ignored: visual geoms are kept (they never collide)"},
         {"strippath", "ignored: mesh paths are used as written"},
         {"convexhull", "ignored: collision meshes are always their convex hull"},
         {"usethread", "ignored"}},
        {"texturedir"}}},
      {"option",
       {{"timestep", "gravity"},
        {{"integrator", "ignored: the scene's stepper and integrator apply"},
         {"cone", "ignored: the contact material's friction model applies"},
         {"impratio", "ignored: the contact material's friction model applies"},
         {"solver", "ignored: the SPOOK solver settings apply"},
         {"iterations", "ignored: the SPOOK solver settings apply"},
         {"tolerance", "ignored: the SPOOK solver settings apply"},
         {"noslip_iterations", "ignored"},
         {"jacobian", "ignored"},
         {"wind", "not supported (ignored)"},
         {"density", "not supported (ignored)"},
         {"viscosity", "not supported (ignored)"},
         {"o_margin", "not supported (ignored)"},
         {"o_solref", "not supported (ignored)"},
         {"o_solimp", "not supported (ignored)"},
         {"magnetic", "ignored"},
         {"mpr_iterations", "ignored"},
         {"mpr_tolerance", "ignored"}},
        {}}},
      {"body",
       {{"name", "childclass", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis"},
        {{"mocap", "not supported: the body is fixed to its parent"},
         {"gravcomp", "not supported (ignored)"},
         {"user", "ignored"}},
        {}}},
      {"inertial", {{"pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "mass", "diaginertia", "fullinertia"}, {}, {}}},
      {"joint",
       {{"name", "class", "type", "pos", "axis", "range", "limited", "damping", "armature", "stiffness", "springref", "ref",
         "frictionloss"},
        {{"solreflimit", kLimitParams},
         {"solimplimit", kLimitParams},
         {"solreffriction", "ignored: frictionloss rows are rigid"},
         {"solimpfriction", "ignored: frictionloss rows are rigid"},
         {"margin", kLimitParams},
         {"user", "ignored"}},
        {"group"}}},
      {"freejoint", {{"name"}, {}, {"group"}}},
      {"geom",
       {{"name", "class", "type", "size", "fromto", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis", "mesh", "density",
         "mass", "contype", "conaffinity", "friction", "priority", "condim", "group"},
        {{"solref", kContactParams},
         {"solimp", kContactParams},
         {"solmix", kContactParams},
         {"margin", kContactParams},
         {"gap", kContactParams},
         {"hfield", "not supported (ignored)"},
         {"fluidshape", "not supported (ignored)"},
         {"fluidcoef", "not supported (ignored)"},
         {"user", "ignored"}},
        {"rgba", "material"}}},
      {"site", {{"name", "class", "pos", "quat", "axisangle", "euler", "xyaxes", "zaxis"}, {{"user", "ignored"}},
                {"type", "size", "rgba", "material", "group", "fromto"}}},
      {"mesh",
       {{"name", "class", "file", "scale"},
        {{"refpos", "not supported (ignored)"},
         {"refquat", "not supported (ignored)"},
         {"vertex", "not supported: inline mesh data"},
         {"face", "not supported: inline mesh data"}},
        {"smoothnormal", "normal", "texcoord", "content_type"}}},
      {"exclude", {{"name", "body1", "body2"}, {}, {}}},
      {"connect", {{"name", "class", "body1", "body2", "anchor", "active", "solref"}, {{"solimp", kEqualityParams}}, {}}},
      {"weld",
       {{"name", "class", "body1", "body2", "anchor", "relpose", "active", "solref"},
        {{"solimp", kEqualityParams}, {"torquescale", "not supported (ignored)"}},
        {}}},
      {"equality_joint", {{"name", "class", "joint1", "joint2", "polycoef", "active", "solref"}, {{"solimp", kEqualityParams}}, {}}},
      {"fixed",
       {{"name", "class"},
        {{"limited", "not supported: tendons only transmit actuator forces"},
         {"range", "not supported: tendons only transmit actuator forces"},
         {"stiffness", "not supported: tendons only transmit actuator forces"},
         {"damping", "not supported: tendons only transmit actuator forces"},
         {"frictionloss", "not supported: tendons only transmit actuator forces"},
         {"springlength", "not supported: tendons only transmit actuator forces"},
         {"margin", "ignored"},
         {"solreflimit", "ignored"},
         {"solimplimit", "ignored"},
         {"user", "ignored"}},
        {"rgba", "material", "width", "group"}}},
      {"tendon_joint", {{"joint", "coef"}, {}, {}}},
      {"actuator",
       {{"name", "class", "joint", "tendon", "gear", "ctrlrange", "ctrllimited", "forcerange", "forcelimited", "gainprm",
         "biasprm", "gaintype", "biastype", "dyntype", "kp", "kv"},
        {{"dynprm", "ignored: no activation dynamics"},
         {"actrange", "ignored: no activation dynamics"},
         {"actlimited", "ignored: no activation dynamics"},
         {"lengthrange", "ignored"},
         {"user", "ignored"}},
        {"group"}}},
      {"key", {{"name", "time", "qpos", "qvel", "ctrl"}, {{"act", "ignored"}, {"mpos", "ignored"}, {"mquat", "ignored"}}, {}}},
  };
  return r;
}

MassProperties legacy_mesh_inertia(const Mesh& mesh, double density, const std::string& where) {
  auto corner = [&](int f, int k) -> const Vec3& { return mesh.vertices[static_cast<size_t>(mesh.faces[static_cast<size_t>(f)][k])]; };
  const int nf = static_cast<int>(mesh.faces.size());
  Vec3 centre = Vec3::Zero();
  double area = 0.0;
  for (int f = 0; f < nf; ++f) {
    const double a = 0.5 * (corner(f, 1) - corner(f, 0)).cross(corner(f, 2) - corner(f, 0)).norm();
    centre += a * (corner(f, 0) + corner(f, 1) + corner(f, 2)) / 3.0;
    area += a;
  }
  if (area <= 0.0) throw InputError(where + ": <geom> mesh has no area");
  centre /= area;
  double volume = 0.0;
  Vec3 com = Vec3::Zero();
  for (int f = 0; f < nf; ++f) {
    const double vol = std::abs((corner(f, 0) - centre).dot((corner(f, 1) - centre).cross(corner(f, 2) - centre))) / 6.0;
    volume += vol;
    com += vol * (corner(f, 0) + corner(f, 1) + corner(f, 2) + centre) / 4.0;
  }
  if (volume <= 0.0) throw InputError(where + ": <geom> mesh has no volume");
  com /= volume;
  Mat3 C = Mat3::Zero();  // ∫ x xᵀ dV about com
  for (int f = 0; f < nf; ++f) {
    const Vec3 a = corner(f, 0) - com, b = corner(f, 1) - com, d = corner(f, 2) - com;
    const double vol = std::abs(a.dot(b.cross(d))) / 6.0;
    const Vec3 sum = a + b + d;
    C += vol / 20.0 * (a * a.transpose() + b * b.transpose() + d * d.transpose() + sum * sum.transpose());
  }
  const double mass = density * volume;
  const Mat3 I = density * (C.trace() * Mat3::Identity() - C);
  Eigen::SelfAdjointEigenSolver<Mat3> eig(I);
  const Vec3 e = eig.eigenvalues();
  Vec3 half;
  for (int i = 0; i < 3; ++i) {
    const double x = e[(i + 1) % 3] + e[(i + 2) % 3] - e[i];
    half[i] = 0.5 * std::sqrt(std::max(0.0, 6.0 * x / mass));
  }
  MassProperties mp;
  mp.mass = density * 8.0 * half.prod();
  mp.com = com;
  const Vec3 box(half.y() * half.y() + half.z() * half.z(), half.x() * half.x() + half.z() * half.z(),
                 half.x() * half.x() + half.y() * half.y());
  mp.inertia = eig.eigenvectors() * (mp.mass / 3.0 * box).asDiagonal() * eig.eigenvectors().transpose();
  return mp;
}

}  // namespace graspsim::mjcf
