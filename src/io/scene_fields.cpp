#include "io/scene_fields.h"

#include <cmath>
#include <numbers>

#include "io/expr.h"

namespace graspsim::scene_detail {
namespace {

std::string describe(const YamlNode& n) {
  switch (n.kind) {
    case YamlNode::Kind::Null: return "nothing";
    case YamlNode::Kind::Scalar: return "'" + n.scalar + "'";
    case YamlNode::Kind::Sequence: return "a list";
    case YamlNode::Kind::Map: return "a map";
  }
  return "?";
}

[[noreturn]] void type_error(const YamlNode& n, const std::string& key, const std::string& expected,
                             const std::string& detail = "") {
  throw InputError(n.loc.str() + ": key '" + key + "': expected " + expected + ", got " + describe(n) + detail);
}

}  // namespace

void check_keys(const YamlNode& map, const std::string& section, const std::vector<std::string>& allowed) {
  for (const auto& e : map.entries) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == e.key;
    if (!ok)
      throw InputError(e.key_loc.str() + ": unknown key '" + e.key + "' in " + section + did_you_mean(e.key, allowed));
  }
}

void expect_map(const YamlNode& n, const std::string& key) {
  if (!n.is_map()) type_error(n, key, "a map");
}

void expect_sequence(const YamlNode& n, const std::string& key) {
  if (!n.is_sequence()) type_error(n, key, "a list");
}

void unknown_value(const YamlNode& n, const std::string& key, const std::string& value,
                   const std::vector<std::string>& accepted) {
  std::string list;
  for (const auto& name : accepted) list += (list.empty() ? "" : " | ") + name;
  throw InputError(n.loc.str() + ": key '" + key + "': unknown value '" + value + "'" + did_you_mean(value, accepted) +
                   "; expected " + list);
}

const YamlNode& require_key(const YamlNode& map, const std::string& key, const std::string& section) {
  const YamlNode* v = map.find(key);
  if (!v) throw InputError(map.loc.str() + ": " + section + " needs the key '" + key + "'");
  return *v;
}

namespace {

// Any number a scene gives: finite (or ±inf where allowed), of any size.
double as_any_number(const YamlNode& n, const std::string& key, bool allow_inf);

}  // namespace

double as_number(const YamlNode& n, const std::string& key, bool allow_inf) {
  const double x = as_any_number(n, key, allow_inf);
  // Beyond 1e15 a value is no physical quantity of a grasp, and products of such values
  // (m·v², m·g, kp·q) overflow into a run that fails at its first step.
  // Where ±inf is allowed (limits), a large finite value is as harmless.
  if (!allow_inf && std::abs(x) > kMaxSceneMagnitude)
    type_error(n, key, "a number of magnitude at most 1e15", " (the limit for scene values: docs/errors.md)");
  return x;
}

namespace {

double as_any_number(const YamlNode& n, const std::string& key, bool allow_inf) {
  if (n.is_scalar() && n.quoted && parse_yaml_number(n.scalar))
    type_error(n, key, "a number", " (quoted values are text: remove the quotes)");
  if (!n.is_scalar() || n.quoted) type_error(n, key, "a number");
  const auto x = parse_yaml_number(n.scalar);
  if (!x) {
    // Text that failed as an expression after ${...} substitution: say why.
    std::string detail;
    if (n.scalar.find_first_of("+-*/^()") != std::string::npos) {
      try {
        evaluate_expression(n.scalar, [](const std::string&) { return 0.0; });
      } catch (const InputError& e) {
        detail = " (" + std::string(e.what()) + ")";
      }
    }
    type_error(n, key, "a number", detail);
  }
  if (std::isnan(*x) || (!allow_inf && std::isinf(*x))) type_error(n, key, "a finite number");
  return *x;
}

}  // namespace

int as_int(const YamlNode& n, const std::string& key, int min_value) {
  const double x = as_any_number(n, key, false);
  if (x != std::floor(x) || x < min_value || x > 2147483647.0)
    type_error(n, key, "an integer >= " + std::to_string(min_value));
  return static_cast<int>(x);
}

std::uint64_t as_uint64(const YamlNode& n, const std::string& key) {
  const double x = as_any_number(n, key, false);
  // Doubles hold integers exactly up to 2^53; larger seeds would silently change.
  if (x != std::floor(x) || x < 0 || x > 9007199254740992.0) type_error(n, key, "an integer in [0, 2^53]");
  return static_cast<std::uint64_t>(x);
}

std::uint32_t as_uint32(const YamlNode& n, const std::string& key) {
  const double x = as_any_number(n, key, false);
  if (x != std::floor(x) || x < 0 || x > 4294967295.0) type_error(n, key, "an integer in [0, 0xffffffff]");
  return static_cast<std::uint32_t>(x);
}

bool as_bool(const YamlNode& n, const std::string& key) {
  if (n.is_scalar() && !n.quoted) {
    if (n.scalar == "true" || n.scalar == "True" || n.scalar == "TRUE") return true;
    if (n.scalar == "false" || n.scalar == "False" || n.scalar == "FALSE") return false;
  }
  type_error(n, key, "true or false");
}

std::string as_string(const YamlNode& n, const std::string& key) {
  if (!n.is_scalar() || n.scalar.empty()) type_error(n, key, "a name");
  return n.scalar;
}

std::vector<double> as_numbers(const YamlNode& n, const std::string& key, const std::vector<size_t>& sizes,
                               bool allow_inf) {
  std::string expected = "a list of ";
  for (size_t i = 0; i < sizes.size(); ++i)
    expected += (i == 0 ? "" : i + 1 == sizes.size() ? " or " : ", ") + std::to_string(sizes[i]);
  expected += sizes.empty() ? "numbers" : " numbers";
  if (!n.is_sequence()) type_error(n, key, expected);
  bool size_ok = sizes.empty();
  for (size_t s : sizes) size_ok = size_ok || s == n.items.size();
  if (!size_ok) type_error(n, key, expected, " of " + std::to_string(n.items.size()));
  std::vector<double> out;
  for (size_t i = 0; i < n.items.size(); ++i)
    out.push_back(as_number(n.items[i], key + "[" + std::to_string(i) + "]", allow_inf));
  return out;
}

Vec3 as_vec3(const YamlNode& n, const std::string& key) {
  const auto v = as_numbers(n, key, {3});
  return {v[0], v[1], v[2]};
}

VecX as_vecx(const YamlNode& n, const std::string& key) {
  const auto v = as_numbers(n, key, {});
  return Eigen::Map<const VecX>(v.data(), static_cast<Eigen::Index>(v.size()));
}

std::vector<std::string> as_strings(const YamlNode& n, const std::string& key, size_t size) {
  if (!n.is_sequence() || n.items.size() != size) type_error(n, key, "a list of " + std::to_string(size) + " names");
  std::vector<std::string> out;
  for (size_t i = 0; i < size; ++i) out.push_back(as_string(n.items[i], key + "[" + std::to_string(i) + "]"));
  return out;
}

Pose read_pose(const YamlNode& m) {
  Pose pose;
  if (const YamlNode* p = m.find("pos")) {
    pose.p = as_vec3(*p, "pos");
    // Farther out, double precision leaves a body's inertia about the origin (m·|p|²) too
    // far above its own for the mass matrix to factor (a box at 1e7 m fails).
    if (pose.p.cwiseAbs().maxCoeff() > kMaxPosition)
      throw InputError(p->loc.str() + ": key 'pos': more than 1e6 m from the origin (the limit: docs/errors.md)");
  }
  const YamlNode* quat = m.find("quat");
  const YamlNode* euler = m.find("euler_deg");
  if (quat && euler) throw InputError(euler->loc.str() + ": give either 'quat' or 'euler_deg', not both");
  if (quat) {
    const auto q = as_numbers(*quat, "quat", {4});
    pose.q = Quat(q[0], q[1], q[2], q[3]);
    if (pose.q.norm() < 1e-9) throw InputError(quat->loc.str() + ": key 'quat': the quaternion [w, x, y, z] is zero");
    pose.q.normalize();
  }
  if (euler) {
    // Roll, pitch, yaw about the fixed x, y, z axes: R = Rz(yaw) Ry(pitch) Rx(roll).
    const Vec3 a = as_vec3(*euler, "euler_deg") * (std::numbers::pi / 180.0);
    pose.q = Eigen::AngleAxisd(a.z(), Vec3::UnitZ()) * Eigen::AngleAxisd(a.y(), Vec3::UnitY()) *
             Eigen::AngleAxisd(a.x(), Vec3::UnitX());
  }
  return pose;
}

Signal as_signal(const YamlNode& n, const std::string& key) {
  if (!n.is_map()) return Signal::Constant(as_number(n, key));
  check_keys(n, "signal '" + key + "'", {"t", "y", "interp", "sine"});
  Signal s;
  if (const YamlNode* w = n.find("sine")) {
    check_keys(*w, "signal '" + key + "': sine", {"amplitude", "frequency", "phase"});
    s.sine_amplitude = as_number(require_key(*w, "amplitude", "a sine"), "amplitude");
    s.sine_frequency = as_number(require_key(*w, "frequency", "a sine"), "frequency");
    if (const YamlNode* p = w->find("phase")) s.sine_phase = as_number(*p, "phase");
    if (!n.find("t") && !n.find("y")) return s;
  }
  s.t = as_numbers(require_key(n, "t", "a signal"), key + ".t", {});
  s.y = as_numbers(require_key(n, "y", "a signal"), key + ".y", {});
  if (const YamlNode* i = n.find("interp"))
    s.interp = as_enum<Signal::Interp>(*i, key + ".interp", {{"linear", Signal::Interp::Linear}, {"step", Signal::Interp::Step}});
  if (s.t.empty() || s.t.size() != s.y.size())
    throw InputError(n.loc.str() + ": key '" + key + "': a signal needs t and y of the same nonzero length (got " +
                     std::to_string(s.t.size()) + " and " + std::to_string(s.y.size()) + ")");
  for (size_t i = 1; i < s.t.size(); ++i)
    if (!(s.t[i] > s.t[i - 1]))
      throw InputError(n.loc.str() + ": key '" + key + "': signal times must increase strictly (t[" +
                       std::to_string(i) + "] = " + format_number(s.t[i]) + ")");
  return s;
}

}  // namespace graspsim::scene_detail
