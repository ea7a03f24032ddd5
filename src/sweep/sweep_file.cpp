// Sweep files: reading, checking, and the job list.

#include "sweep/sweep_file.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/yaml_tree.h"

namespace graspsim {
namespace {

namespace fs = std::filesystem;

// A sweep of more jobs than this is a typo (a linspace of 1e9 points), not a plan.
constexpr long kMaxJobs = 10'000'000;
// Grid points in one linspace/logspace.
constexpr long kMaxGridValues = 1'000'000;

[[noreturn]] void fail(const YamlNode& node, const std::string& what) { throw InputError(node.loc.str() + ": " + what); }

double number(const YamlNode& node, const std::string& what) {
  if (node.is_scalar() && !node.quoted)
    if (const auto x = parse_yaml_number(node.scalar); x && std::isfinite(*x)) return *x;
  fail(node, what + ": expected a finite number");
}

long count(const YamlNode& node, const std::string& what, long max) {
  const double x = number(node, what);
  if (!(x >= 1 && x <= static_cast<double>(max) && x == std::floor(x)))
    fail(node, what + ": expected a whole number from 1 to " + std::to_string(max) + ", got " + show(x));
  return static_cast<long>(x);
}

const YamlNode& list_of(const YamlNode& node, std::size_t n, const std::string& what) {
  if (!node.is_sequence() || (n > 0 && node.items.size() != n))
    fail(node, what + ": expected a list of " + (n > 0 ? std::to_string(n) + " values" : "values"));
  if (node.items.empty()) fail(node, what + ": the list is empty");
  return node;
}

// A value a parameter may take: a number or a word (a list or map for a key path is written as YAML).
nlohmann::json value_of(const YamlNode& node) {
  if (node.is_null()) fail(node, "a value is missing");
  if (node.is_scalar() && !node.quoted)
    if (const auto x = parse_yaml_number(node.scalar); x && !std::isfinite(*x))
      fail(node, "expected a finite number, got " + node.scalar);
  return to_json(node);
}

std::string override_text(const std::string& key, const nlohmann::json& value) {
  return key + "=" + (value.is_number() ? format_number(value.get<double>()) : value.dump());
}

// A key as the sweep file writes it: a scene parameter's name, `duration`, or a dotted path.
std::string scene_key(const std::string& name, const YamlNode& where, const Scene& base) {
  if (name.find('.') != std::string::npos) {
    if (name.rfind("parameters.", 0) == 0) {
      const std::string p = name.substr(11);
      if (!base.parameters.count(p) && !base.text_parameters.count(p))
        fail(where, "the scene has no parameter '" + p + "'");
    }
    return name;
  }
  if (base.parameters.count(name) || base.text_parameters.count(name)) return "parameters." + name;
  if (name == "duration") return name;
  std::vector<std::string> known;
  for (const auto& [k, v] : base.parameters) known.push_back(k);
  for (const auto& [k, v] : base.text_parameters) known.push_back(k);
  fail(where, "'" + name + "' is not a parameter of " + base.path + did_you_mean(name, known) +
                  " (a key path such as options.dt is written with its dots)");
}

std::vector<SceneOverride> overrides_of(const YamlNode& map, const std::string& what, const Scene& base) {
  if (!map.is_map()) fail(map, what + ": expected a map of KEY: value");
  std::vector<SceneOverride> out;
  for (const auto& e : map.entries)
    out.push_back({override_text(scene_key(e.key, map, base), value_of(e.value)), e.key_loc.str() + " (" + e.key + ")"});
  return out;
}

std::vector<nlohmann::json> spaced(const YamlNode& spec, const std::string& what, bool geometric) {
  const YamlNode& l = list_of(spec, 3, what);
  const double a = number(l.items[0], what), b = number(l.items[1], what);
  const long n = count(l.items[2], what + " count", kMaxGridValues);
  if (geometric && !(a > 0 && b > 0)) fail(spec, what + ": both ends must be > 0");
  if (n == 1 && a != b) fail(spec, what + ": one value cannot span [" + show(a) + ", " + show(b) + "]");
  std::vector<nlohmann::json> out;
  for (long i = 0; i < n; ++i) {
    const double f = n == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(n - 1);
    out.emplace_back(i == n - 1 ? b : geometric ? a * std::pow(b / a, f) : a + (b - a) * f);
  }
  return out;
}

SweepParameter read_parameter(const YamlNode::Entry& e, const Scene& base) {
  SweepParameter p;
  p.name = e.key;
  p.location = e.key_loc.str();
  p.key = scene_key(e.key, e.value, base);
  const YamlNode& spec = e.value;
  if (!spec.is_map() || spec.entries.size() != 1)
    fail(spec, "parameter '" + p.name +
                   "': expected one of {list: [...]}, {linspace: [a, b, n]}, {logspace: [a, b, n]}, {uniform: [lo, hi]}, "
                   "{normal: [mean, std]}, {log_uniform: [lo, hi]}, {choice: [...]}, {scale: [lo, hi]}");
  const std::string kind = spec.entries.front().key, what = "parameter '" + p.name + "' " + kind;
  const YamlNode& v = spec.entries.front().value;
  const auto pair = [&](bool positive) {
    const YamlNode& l = list_of(v, 2, what);
    p.a = number(l.items[0], what);
    p.b = number(l.items[1], what);
    if (positive && !(p.a > 0)) fail(v, what + ": the lower end must be > 0");
  };
  if (kind == "list" || kind == "choice") {
    p.kind = kind == "list" ? SweepParameter::Kind::List : SweepParameter::Kind::Choice;
    for (const YamlNode& item : list_of(v, 0, what).items) p.values.push_back(value_of(item));
  } else if (kind == "linspace" || kind == "logspace") {
    p.kind = kind == "linspace" ? SweepParameter::Kind::Linspace : SweepParameter::Kind::Logspace;
    p.values = spaced(v, what, kind == "logspace");
  } else if (kind == "uniform" || kind == "log_uniform" || kind == "scale") {
    p.kind = kind == "uniform" ? SweepParameter::Kind::Uniform
             : kind == "scale" ? SweepParameter::Kind::Scale
                               : SweepParameter::Kind::LogUniform;
    pair(kind == "log_uniform");
    if (!(p.b >= p.a)) fail(v, what + ": expected [lo, hi] with lo <= hi");
    if (kind == "scale") {
      const std::string pname = p.key.rfind("parameters.", 0) == 0 ? p.key.substr(11) : "";
      if (!base.parameters.count(pname)) fail(v, what + ": scale multiplies a numeric scene parameter; '" + p.name + "' is not one");
      p.base = base.parameters.at(pname);
    }
  } else if (kind == "normal") {
    p.kind = SweepParameter::Kind::Normal;
    pair(false);
    if (!(p.b >= 0)) fail(v, what + ": the standard deviation must be >= 0");
  } else {
    fail(spec, "parameter '" + p.name + "': unknown kind '" + kind + "'" +
                   did_you_mean(kind, {"list", "linspace", "logspace", "uniform", "normal", "log_uniform", "choice", "scale"}));
  }
  return p;
}

void check_keys(const YamlNode& root) {
  static const std::vector<std::string> known = {"scene", "seed", "samples", "set", "parameters", "formulations", "metrics",
                                                 "reference"};
  for (const auto& e : root.entries)
    if (std::find(known.begin(), known.end(), e.key) == known.end())
      throw InputError(e.key_loc.str() + ": unknown key '" + e.key + "'" + did_you_mean(e.key, known));
}

std::string relative_to(const std::string& file, const YamlNode& node, const std::string& what) {
  if (!node.is_scalar() || node.scalar.empty()) fail(node, what + ": expected a file name");
  const fs::path p = fs::path(file).parent_path() / node.scalar;
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) fail(node, what + ": no file " + p.string());
  return fs::absolute(p, ec).lexically_normal().string();
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

const char* to_string(SweepParameter::Kind kind) {
  switch (kind) {
    case SweepParameter::Kind::List: return "list";
    case SweepParameter::Kind::Linspace: return "linspace";
    case SweepParameter::Kind::Logspace: return "logspace";
    case SweepParameter::Kind::Uniform: return "uniform";
    case SweepParameter::Kind::Normal: return "normal";
    case SweepParameter::Kind::LogUniform: return "log_uniform";
    case SweepParameter::Kind::Choice: return "choice";
    case SweepParameter::Kind::Scale: return "scale";
  }
  return "?";
}

nlohmann::json sweep_description(const Sweep& s) {
  const std::string text = read_whole_file(s.scene, "scene file");
  nlohmann::json d = {{"identity",
                       {{"sweep", s.definition},
                        {"scene_bytes", text.size()},
                        {"scene_hash", std::to_string(std::hash<std::string>{}(text))},
                        {"jobs", s.job_count()}}},
                      {"file", fs::absolute(s.path).lexically_normal().string()},
                      {"scene", s.scene},
                      {"jobs", s.job_count()},
                      {"samples", s.samples},
                      {"seed", s.seed},
                      {"metrics", s.metrics},
                      {"formulations", nlohmann::json::array()},
                      {"parameters", nlohmann::json::array()},
                      {"reference", nullptr}};
  for (const auto& f : s.formulations) d["formulations"].push_back(f.name);
  for (const auto& p : s.parameters) {
    nlohmann::json j = {{"name", p.name}, {"key", p.key}, {"kind", to_string(p.kind)}, {"grid", p.grid()}};
    if (p.grid() || p.kind == SweepParameter::Kind::Choice) j["values"] = p.values;
    else j["range"] = {p.a, p.b};
    if (p.kind == SweepParameter::Kind::Scale) j["base"] = p.base;
    d["parameters"].push_back(j);
  }
  if (!s.reference.mcube.empty()) d["reference"] = {{"mcube", s.reference.mcube}, {"body", s.reference.body}};
  return d;
}

long Sweep::grid_points() const {
  long n = 1;
  for (const auto& p : parameters)
    if (p.grid()) n *= static_cast<long>(p.values.size());
  return n;
}

long Sweep::job_count() const { return static_cast<long>(formulations.size()) * grid_points() * samples; }

double sweep_uniform(std::uint64_t seed, long job, int parameter, int draw) {
  std::uint64_t x = splitmix(seed);
  x = splitmix(x ^ static_cast<std::uint64_t>(job));
  x = splitmix(x ^ static_cast<std::uint64_t>(parameter));
  x = splitmix(x ^ static_cast<std::uint64_t>(draw));
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

Sweep load_sweep(const std::string& path) {
  const YamlNode root = load_yaml_file(path);
  if (!root.is_map()) fail(root, "a sweep file is a map (scene:, parameters:, ...)");
  check_keys(root);
  Sweep s;
  s.path = path;
  s.definition = to_json(root);
  const YamlNode* scene = root.find("scene");
  if (!scene) throw InputError(path + ": no 'scene:' (the base scene file, relative to this file)");
  s.scene = relative_to(path, *scene, "scene");
  if (const YamlNode* n = root.find("seed")) {
    const double x = number(*n, "seed");
    if (!(x >= 0 && x < 9.007199254740992e15 && x == std::floor(x))) fail(*n, "seed: expected a whole number >= 0");
    s.seed = static_cast<std::uint64_t>(x);
  }
  if (const YamlNode* n = root.find("samples")) s.samples = count(*n, "samples", kMaxJobs);

  // The base scene with the fixed settings: its parameters are the names a sweep may set.
  const YamlNode* set = root.find("set");
  const Scene bare = load_scene(s.scene);
  if (set) s.fixed = overrides_of(*set, "set", bare);
  const Scene base = [&] {
    try {
      return load_scene_labelled(s.scene, s.fixed);
    } catch (const InputError& err) {
      throw InputError((set ? set->loc.str() : path) + ": set: " + err.what());
    }
  }();

  if (const YamlNode* params = root.find("parameters")) {
    if (!params->is_map()) fail(*params, "parameters: expected a map of NAME: {kind: ...}");
    for (const auto& e : params->entries) s.parameters.push_back(read_parameter(e, base));
  }
  if (const YamlNode* forms = root.find("formulations")) {
    if (!forms->is_map() || forms->entries.empty()) fail(*forms, "formulations: expected a map of NAME: {KEY: value, ...}");
    for (const auto& e : forms->entries) {
      SweepFormulation f{e.key, e.value.is_null() ? std::vector<SceneOverride>{} : overrides_of(e.value, "formulation '" + e.key + "'", base)};
      std::vector<SceneOverride> all = s.fixed;
      all.insert(all.end(), f.overrides.begin(), f.overrides.end());
      try {  // a formulation that cannot load is the file's error, not every job's
        load_scene_labelled(s.scene, all);
      } catch (const InputError& err) {
        throw InputError(e.key_loc.str() + ": formulation '" + e.key + "': " + err.what());
      }
      s.formulations.push_back(std::move(f));
    }
  } else {
    s.formulations.push_back({"scene", {}});
  }
  if (const YamlNode* metrics = root.find("metrics")) {
    for (const YamlNode& m : list_of(*metrics, 0, "metrics").items) {
      if (!m.is_scalar() || m.scalar.empty()) fail(m, "metrics: expected names of summary fields (object_held, final_bodies.box)");
      s.metrics.push_back(m.scalar);
    }
  }
  if (const YamlNode* ref = root.find("reference")) {
    if (!ref->is_map()) fail(*ref, "reference: expected {mcube: FILE, body: NAME}");
    for (const auto& e : ref->entries) {
      if (e.key == "mcube") s.reference.mcube = relative_to(path, e.value, "reference mcube");
      else if (e.key == "body" && e.value.is_scalar()) s.reference.body = e.value.scalar;
      else throw InputError(e.key_loc.str() + ": reference: unknown key '" + e.key + "' (mcube, body)");
    }
    if (s.reference.mcube.empty() || s.reference.body.empty()) fail(*ref, "reference: needs both mcube: FILE and body: NAME");
    if (base.model->find_body(s.reference.body) < 0) fail(*ref, "reference: the scene has no body '" + s.reference.body + "'");
  }

  // (each factor is at most kMaxJobs, so the running product cannot overflow before the check)
  double jobs = static_cast<double>(s.formulations.size()) * static_cast<double>(s.samples);
  for (const auto& p : s.parameters)
    if (p.grid()) jobs *= static_cast<double>(p.values.size());
  if (jobs > kMaxJobs)
    throw InputError(path + ": " + show(jobs) + " jobs (formulations x grid points x samples) is more than " +
                     std::to_string(kMaxJobs) + "; split the sweep into several files");
  return s;
}

SweepJob sweep_job(const Sweep& s, long index) {
  if (index < 0 || index >= s.job_count()) throw std::out_of_range("sweep_job: no job " + std::to_string(index));
  SweepJob job;
  job.index = index;
  job.sample = index % s.samples;
  long rest = index / s.samples;
  const long g = rest % s.grid_points();
  const SweepFormulation& f = s.formulations[static_cast<std::size_t>(rest / s.grid_points())];
  job.formulation = f.name;
  job.overrides = s.fixed;
  job.overrides.insert(job.overrides.end(), f.overrides.begin(), f.overrides.end());
  job.parameters = nlohmann::json::object();
  // The grid index in mixed radix, the last grid parameter fastest.
  std::vector<long> digit(s.parameters.size(), 0);
  long gi = g;
  for (std::size_t k = s.parameters.size(); k-- > 0;)
    if (s.parameters[k].grid()) {
      const long n = static_cast<long>(s.parameters[k].values.size());
      digit[k] = gi % n;
      gi /= n;
    }
  for (std::size_t k = 0; k < s.parameters.size(); ++k) {
    const SweepParameter& p = s.parameters[k];
    const auto u = [&](int draw) { return sweep_uniform(s.seed, index, static_cast<int>(k), draw); };
    nlohmann::json value;
    switch (p.kind) {
      case SweepParameter::Kind::List:
      case SweepParameter::Kind::Linspace:
      case SweepParameter::Kind::Logspace: value = p.values[static_cast<std::size_t>(digit[k])]; break;
      case SweepParameter::Kind::Choice: {
        const auto n = p.values.size();
        value = p.values[std::min(n - 1, static_cast<std::size_t>(u(0) * static_cast<double>(n)))];
        break;
      }
      case SweepParameter::Kind::Uniform: value = p.a + (p.b - p.a) * u(0); break;
      case SweepParameter::Kind::Scale: value = p.base * (p.a + (p.b - p.a) * u(0)); break;
      case SweepParameter::Kind::LogUniform: value = p.a * std::pow(p.b / p.a, u(0)); break;
      case SweepParameter::Kind::Normal: {  // Box-Muller; 1 - u keeps the logarithm finite
        const double r = std::sqrt(-2.0 * std::log(1.0 - u(0)));
        value = p.a + p.b * r * std::cos(2.0 * std::numbers::pi * u(1));
        break;
      }
    }
    job.parameters[p.name] = value;
    job.overrides.push_back({override_text(p.key, value), p.location + " (" + p.name + " = " +
                                                              (value.is_number() ? show(value.get<double>()) : value.dump()) + ")"});
  }
  return job;
}

}  // namespace graspsim
