// Sweep files (sweep/sweep_file.h): the job list, the draws, and errors that name file:line.

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "../common/temp_dir.h"
#include "sweep/sweep_file.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;

const std::string kScenes = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/";

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack) << "\nwanted: " << (needle)

// A sweep file beside a copy-free reference to the shipped hold scene.
std::string sweep_file(const TempDir& dir, const std::string& body) {
  return dir.write("s.yaml", "scene: " + kScenes + "validation/grasp_hold.yaml\n" + body);
}

TEST(SweepFile, GridJobsRunFormulationsThenGridWithTheLastParameterFastest) {
  const Sweep s = load_sweep(kScenes + "sweeps/hold_grid.yaml");
  ASSERT_EQ(s.job_count(), 40);
  EXPECT_EQ(s.formulations.size(), 1u);
  EXPECT_EQ(s.formulations[0].name, "scene");
  const SweepJob j0 = sweep_job(s, 0), j1 = sweep_job(s, 1), j5 = sweep_job(s, 5), last = sweep_job(s, 39);
  EXPECT_EQ(j0.parameters["mu"], 0.1);
  EXPECT_EQ(j0.parameters["grip_force"], 0.5);
  EXPECT_EQ(j1.parameters["grip_force"], 1.0);
  EXPECT_EQ(j1.parameters["mu"], 0.1);
  EXPECT_EQ(j5.parameters["grip_force"], 0.5);
  EXPECT_DOUBLE_EQ(j5.parameters["mu"].get<double>(), 0.2);
  EXPECT_EQ(last.parameters["mu"], 0.8);  // linspace ends exactly on its end
  EXPECT_EQ(last.parameters["grip_force"], 8.0);
  // The fixed settings come first, then the parameters, each naming where it was written.
  ASSERT_EQ(j0.overrides.size(), 5u);
  EXPECT_EQ(j0.overrides[0].text, "parameters.hold_s=1");
  EXPECT_EQ(j0.overrides[3].text, "parameters.mu=0.1");
  EXPECT_CONTAINS(j0.overrides[3].origin, "hold_grid.yaml:");
  EXPECT_THROW(sweep_job(s, 40), std::out_of_range);
}

TEST(SweepFile, ShippedExamplesLoad) {
  EXPECT_EQ(load_sweep(kScenes + "sweeps/hold_grid.yaml").job_count(), 40);
  EXPECT_EQ(load_sweep(kScenes + "sweeps/hold_grid_2f85.yaml").job_count(), 25);
  const Sweep push = load_sweep(kScenes + "sweeps/push_randomized.yaml");
  EXPECT_EQ(push.job_count(), 64);
  EXPECT_EQ(push.reference.body, "box");
  EXPECT_DOUBLE_EQ(push.parameters[2].base, 0.837);  // mass: scale multiplies the scene's value
}

TEST(SweepFile, FormulationsAndSamplesMultiplyTheJobs) {
  TempDir dir;
  const Sweep s = load_sweep(sweep_file(dir,
                                        "samples: 3\nformulations:\n  split: {solver: split}\n  direct: {solver: direct, friction_model: box, options.dt: 0.002}\n"
                                        "parameters:\n  mu: {list: [0.2, 0.4]}\n  grip_force: {uniform: [1, 2]}\n"));
  ASSERT_EQ(s.job_count(), 2 * 2 * 3);
  const SweepJob j = sweep_job(s, (1 * 2 + 1) * 3 + 1);  // formulation 1, mu value 1, sample 1
  EXPECT_EQ(j.formulation, "direct");
  EXPECT_EQ(j.sample, 1);
  EXPECT_EQ(j.parameters["mu"], 0.4);
  bool has_dt = false;
  for (const auto& o : j.overrides) has_dt = has_dt || o.text == "options.dt=0.002";
  EXPECT_TRUE(has_dt);
}

TEST(SweepFile, SpacedGrids) {
  TempDir dir;
  const Sweep s = load_sweep(sweep_file(dir, "parameters:\n  grip_force: {logspace: [1, 100, 3]}\n  mu: {linspace: [0, 1, 5]}\n"));
  EXPECT_DOUBLE_EQ(s.parameters[0].values[1].get<double>(), 10.0);
  EXPECT_EQ(s.parameters[0].values[2].get<double>(), 100.0);
  EXPECT_EQ(s.parameters[1].values[2].get<double>(), 0.5);
}

// Draws depend on (seed, job, parameter) only; their distributions have the moments they
// should (20 000 draws: the sample mean is within 4 standard errors).
TEST(SweepFile, RandomDrawsAreReproducibleAndDistributedAsWritten) {
  TempDir dir;
  const Sweep s = load_sweep(sweep_file(dir,
                                        "seed: 7\nsamples: 20000\nparameters:\n  mu: {uniform: [0.2, 0.6]}\n  grip_force: {normal: [5, 0.5]}\n"
                                        "  young_modulus: {log_uniform: [1.0e6, 1.0e8]}\n  object_half: {scale: [0.9, 1.1]}\n"
                                        "  friction_model: {choice: [cone, box]}\n"));
  const long n = s.job_count();
  double su = 0, sn = 0, sn2 = 0, slog = 0, sscale = 0;
  long box = 0;
  for (long j = 0; j < n; ++j) {
    const nlohmann::json p = sweep_job(s, j).parameters;
    const double u = p["mu"], g = p["grip_force"], e = p["young_modulus"], h = p["object_half"];
    ASSERT_TRUE(u >= 0.2 && u < 0.6);
    ASSERT_TRUE(e >= 1e6 && e <= 1e8);
    ASSERT_TRUE(h >= 0.025 * 0.9 && h <= 0.025 * 1.1);
    su += u, sn += g, sn2 += g * g, slog += std::log10(e), sscale += h;
    box += p["friction_model"] == "box";
  }
  const double se_u = 0.4 / std::sqrt(12.0 * n);
  EXPECT_NEAR(su / n, 0.4, 4 * se_u);
  EXPECT_NEAR(sn / n, 5.0, 4 * 0.5 / std::sqrt(n));
  EXPECT_NEAR(std::sqrt(sn2 / n - (sn / n) * (sn / n)), 0.5, 0.02);
  EXPECT_NEAR(slog / n, 7.0, 4 * 2.0 / std::sqrt(12.0 * n));
  EXPECT_NEAR(sscale / n, 0.025, 4 * 0.005 / std::sqrt(12.0 * n));
  EXPECT_NEAR(static_cast<double>(box) / n, 0.5, 4 * 0.5 / std::sqrt(n));
  // The same file, read again: the same draws. Another seed: others.
  const Sweep again = load_sweep(s.path);
  EXPECT_EQ(sweep_job(again, 1234).parameters, sweep_job(s, 1234).parameters);
  EXPECT_NE(sweep_uniform(7, 1234, 0, 0), sweep_uniform(8, 1234, 0, 0));
}

TEST(SweepFile, ErrorsNameTheFileAndLine) {
  TempDir dir;
  const auto error_of = [&](const std::string& body) { return input_error([&] { load_sweep(sweep_file(dir, body)); }); };
  EXPECT_CONTAINS(error_of("paramters: {}\n"), "s.yaml:2: unknown key 'paramters' (did you mean 'parameters'?)");
  EXPECT_CONTAINS(error_of("parameters:\n  muu: {list: [1]}\n"), "s.yaml:3: 'muu' is not a parameter of");
  EXPECT_CONTAINS(error_of("parameters:\n  muu: {list: [1]}\n"), "(did you mean 'mu'?)");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {linspaec: [0, 1, 3]}\n"), "s.yaml:3: parameter 'mu': unknown kind 'linspaec' (did you mean 'linspace'?)");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {linspace: [0, 1, 2.5]}\n"), "s.yaml:3: parameter 'mu' linspace count: expected a whole number");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {uniform: [1, 0]}\n"), "s.yaml:3: parameter 'mu' uniform: expected [lo, hi] with lo <= hi");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {log_uniform: [0, 1]}\n"), "lower end must be > 0");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {list: []}\n"), "s.yaml:3: parameter 'mu' list: the list is empty");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {list: [.nan]}\n"), "s.yaml:3: expected a finite number");
  EXPECT_CONTAINS(error_of("parameters:\n  friction_model: {scale: [0.9, 1.1]}\n"), "scale multiplies a numeric scene parameter");
  EXPECT_CONTAINS(error_of("samples: 0\n"), "s.yaml:2: samples: expected a whole number from 1");
  EXPECT_CONTAINS(error_of("parameters:\n  mu: {linspace: [0, 1, 1000000]}\n  grip_force: {linspace: [0, 1, 1000000]}\n"),
                  "1e+12 jobs (formulations x grid points x samples) is more than 10000000");
  EXPECT_CONTAINS(error_of("set: {hold_ss: 1}\n"), "s.yaml:2: 'hold_ss' is not a parameter");
  EXPECT_CONTAINS(error_of("formulations:\n  a: {solver: nosuch}\n"), "s.yaml:3: formulation 'a': ");
  EXPECT_CONTAINS(error_of("formulations:\n  a: {solver: nosuch}\n"), "unknown value 'nosuch'");
  EXPECT_CONTAINS(error_of("set: {mu: -1}\n"), "s.yaml:2: set: ");
  EXPECT_CONTAINS(error_of("reference: {mcube: nosuch.h5, body: object}\n"), "s.yaml:2: reference mcube: no file");
  EXPECT_CONTAINS(input_error([&] { load_sweep(dir.write("t.yaml", "parameters: {}\n")); }), "t.yaml: no 'scene:'");
  EXPECT_CONTAINS(input_error([&] { load_sweep(dir.write("u.yaml", "scene: nosuch.yaml\n")); }), "u.yaml:1: scene: no file");
}

}  // namespace
}  // namespace graspsim
