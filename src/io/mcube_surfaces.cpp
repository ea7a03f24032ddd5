// The MCube surface table: ground and pusher friction per surface, a small YAML file that
// `graspsim calibrate mcube` rewrites.

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "core/error.h"
#include "io/mcube_validate.h"

namespace graspsim::mcube {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw InputError("MCube surface table '" + path.string() + "': " + what);
}

double positive(const YAML::Node& entry, const std::string& surface, const char* key, const std::filesystem::path& path) {
  const YAML::Node v = entry[key];
  if (!v) fail(path, "surface '" + surface + "' has no '" + key + "'");
  double x = 0;
  try {
    x = v.as<double>();
  } catch (const YAML::Exception&) {
    fail(path, "line " + std::to_string(v.Mark().line + 1) + ": surface '" + surface + "': '" + key + "' is not a number");
  }
  const std::string at = "line " + std::to_string(v.Mark().line + 1) + ": surface '" + surface + "': '" + key + "' ";
  if (!std::isfinite(x)) fail(path, at + "is not a finite number");
  if (x < 0) fail(path, at + "must be >= 0, got " + show(x));
  return x;
}

YAML::Node load(const std::filesystem::path& path) {
  try {
    return YAML::LoadFile(path.string());
  } catch (const YAML::BadFile&) {
    fail(path, "cannot open");
  } catch (const YAML::Exception& e) {
    fail(path, e.what());
  }
}

}  // namespace

SurfaceTable read_surface_table(const std::filesystem::path& path) {
  const YAML::Node root = load(path);
  const YAML::Node surfaces = root["surfaces"];
  if (!surfaces || !surfaces.IsMap()) fail(path, "expected a map 'surfaces: {NAME: {mu_ground: .., mu_pusher: ..}}'");
  SurfaceTable table;
  for (const auto& kv : surfaces) {
    const std::string name = kv.first.as<std::string>();
    table[name] = {positive(kv.second, name, "mu_ground", path), positive(kv.second, name, "mu_pusher", path)};
  }
  return table;
}

void write_surface_entry(const std::filesystem::path& path, const std::string& surface, const SurfaceFriction& value,
                         const std::string& provenance) {
  std::string header;
  YAML::Node root;
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    root = load(path);
    std::ifstream in(path);
    for (std::string line; std::getline(in, line) && line.rfind('#', 0) == 0;) header += line + "\n";
  }
  // Four decimals: calibration brackets are wider than 1e-4, and the file stays readable.
  const auto rounded = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4f", x);
    return std::string(buf);
  };
  YAML::Node entry;
  entry["mu_ground"] = rounded(value.mu_ground);
  entry["mu_pusher"] = rounded(value.mu_pusher);
  entry["provenance"] = provenance;
  root["surfaces"][surface] = entry;
  YAML::Emitter e;
  e << root;
  std::ofstream out(path);
  out << header << e.c_str() << "\n";
  if (!out.flush()) fail(path, "cannot write");
}

}  // namespace graspsim::mcube
