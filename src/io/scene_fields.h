#pragma once
// Typed reading of scene values with errors "FILE:LINE: key 'mass': expected a number,
// got 'abc'". Internal to the scene loader.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/signal.h"
#include "core/types.h"
#include "io/yaml_tree.h"
#include "model/model.h"

namespace graspsim::scene_detail {

// Throws "FILE:LINE: unknown key 'KEY' in SECTION (did you mean ...?)" for keys not allowed.
void check_keys(const YamlNode& map, const std::string& section, const std::vector<std::string>& allowed);
// `n` itself must be a map / sequence; `key` names it in the message.
void expect_map(const YamlNode& n, const std::string& key);
void expect_sequence(const YamlNode& n, const std::string& key);
const YamlNode& require_key(const YamlNode& map, const std::string& key, const std::string& section);

// The limits on scene values (docs/errors.md): any number's magnitude, and a position's.
constexpr double kMaxSceneMagnitude = 1e15;
constexpr double kMaxPosition = 1e6;

// A finite number of magnitude at most kMaxSceneMagnitude, or with allow_inf (limits) any number but NaN.
double as_number(const YamlNode& n, const std::string& key, bool allow_inf = false);
int as_int(const YamlNode& n, const std::string& key, int min_value);
std::uint64_t as_uint64(const YamlNode& n, const std::string& key);
std::uint32_t as_uint32(const YamlNode& n, const std::string& key);
bool as_bool(const YamlNode& n, const std::string& key);
std::string as_string(const YamlNode& n, const std::string& key);
// A list whose length is one of `sizes` (any length if empty).
std::vector<double> as_numbers(const YamlNode& n, const std::string& key, const std::vector<size_t>& sizes,
                               bool allow_inf = false);
Vec3 as_vec3(const YamlNode& n, const std::string& key);
VecX as_vecx(const YamlNode& n, const std::string& key);
std::vector<std::string> as_strings(const YamlNode& n, const std::string& key, size_t size);
// A number (constant) or {t: [...], y: [...], interp: linear|step}.
Signal as_signal(const YamlNode& n, const std::string& key);

// The pose keys of a map: `pos`, and `quat` [w, x, y, z] (normalised) or `euler_deg`
// [roll, pitch, yaw] about the fixed x, y, z axes (R = Rz Ry Rx); identity when absent.
Pose read_pose(const YamlNode& map);

// Throws "FILE:LINE: key 'KEY': unknown value 'VALUE' (did you mean ...?); expected a | b".
[[noreturn]] void unknown_value(const YamlNode& n, const std::string& key, const std::string& value,
                                const std::vector<std::string>& accepted);

// One of the named values; the message lists them.
template <typename E>
E as_enum(const YamlNode& n, const std::string& key, const std::vector<std::pair<std::string, E>>& options) {
  const std::string s = as_string(n, key);
  std::vector<std::string> names;
  for (const auto& [name, value] : options) {
    if (name == s) return value;
    names.push_back(name);
  }
  unknown_value(n, key, s, names);
}

// A value of a model enum, by its names (EnumNames, model/model.h); the message lists them.
template <NamedEnum E>
E as_enum(const YamlNode& n, const std::string& key) {
  const std::string s = as_string(n, key);
  if (const std::optional<E> e = from_string<E>(s)) return *e;
  std::vector<std::string> names;
  for (const auto& [value, name] : EnumNames<E>::table) names.emplace_back(name);
  unknown_value(n, key, s, names);
}

}  // namespace graspsim::scene_detail
