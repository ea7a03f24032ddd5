#pragma once
// Sweep files (docs/sweeps.md): a base scene, parameters as grids and random distributions,
// formulations and metrics. A sweep is a numbered list of jobs; job j's settings and random
// draws depend only on the file and j, so any thread or rank can run any job and get the
// same result.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/scene.h"

namespace graspsim {

struct SweepParameter {
  enum class Kind { List, Linspace, Logspace, Uniform, Normal, LogUniform, Choice, Scale };
  std::string name;      // as written in the sweep file
  std::string key;       // the scene key it sets: parameters.NAME or a dotted path
  std::string location;  // file:line of its entry
  Kind kind = Kind::List;
  std::vector<nlohmann::json> values;  // grids (expanded) and choice
  double a = 0.0, b = 0.0;             // uniform/log_uniform/scale: [a, b]; normal: mean a, std b
  double base = 0.0;                   // scale: the scene's value it multiplies
  bool grid() const { return kind == Kind::List || kind == Kind::Linspace || kind == Kind::Logspace; }
};

struct SweepFormulation {
  std::string name;
  std::vector<SceneOverride> overrides;
};

struct SweepReference {
  std::string mcube;  // a recorded MCube push (absolute path), or empty
  std::string body;   // the simulated body compared with it
};

struct Sweep {
  std::string path;        // the sweep file, as given
  std::string scene;       // the base scene (absolute path)
  std::uint64_t seed = 1;
  long samples = 1;        // jobs per grid point and formulation
  std::vector<SceneOverride> fixed;  // `set:`
  std::vector<SweepParameter> parameters;
  std::vector<SweepFormulation> formulations;  // at least one
  std::vector<std::string> metrics;  // summary fields (dotted paths); empty: all but timings
  SweepReference reference;
  nlohmann::json definition;  // the file as JSON, for sweep.json and --resume's check

  long grid_points() const;
  long job_count() const;
};

const char* to_string(SweepParameter::Kind kind);

// What a sweep's output directory records of it (DIR/sweep.json): "identity" (the file as
// JSON, the base scene's size and hash, the job count: --resume continues only the same
// sweep), and what the report needs (paths, formulations, parameters, reference).
nlohmann::json sweep_description(const Sweep& sweep);

// Reads and checks a sweep file (and loads its base scene once, to check the names it sets).
// InputError naming the file and line on any problem.
Sweep load_sweep(const std::string& path);

struct SweepJob {
  long index = 0;
  std::string formulation;
  long sample = 0;
  nlohmann::json parameters;  // name -> value used
  std::vector<SceneOverride> overrides;  // fixed, formulation's, parameters' (in that order)
};

// Job `index` (0 <= index < job_count): formulations outermost, then the grid parameters in
// file order (the last varies fastest), then the samples.
SweepJob sweep_job(const Sweep& sweep, long index);

// A number in [0, 1) that depends only on (seed, job, parameter, draw): SplitMix64 of the
// four, so draws are the same on every platform, thread and rank.
double sweep_uniform(std::uint64_t seed, long job, int parameter, int draw);

}  // namespace graspsim
