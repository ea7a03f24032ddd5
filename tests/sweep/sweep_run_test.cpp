// Running sweeps (sweep/sweep_run.h): the hold grid against Coulomb's bound, the same bits
// on 1 and 2 threads, resume after a stop or a cut line, failed jobs kept, and the report.

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../common/sweep_results.h"
#include "../common/temp_dir.h"
#include "sweep/sweep_report.h"
#include "sweep/sweep_run.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;
const auto comparable = test::comparable_results;
namespace fs = std::filesystem;

const std::string kScenes = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/";

std::vector<nlohmann::json> lines_of(const fs::path& file) {
  std::vector<nlohmann::json> out;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) out.push_back(nlohmann::json::parse(l));
  return out;
}


SweepOptions options_for(const TempDir& dir, const std::string& name, int threads) {
  SweepOptions o;
  o.out = dir.path(name);
  o.threads = threads;
  o.quiet = true;
  return o;
}

// Two fingers each pressing with F hold a box of weight m g by friction iff 2 mu F >= m g
// (0.2 kg: 1.96 N). The grid point nearest the bound is 2 % above it (mu 0.5, F 2 N).
TEST(SweepRun, HoldGridFollowsCoulombsBound) {
  TempDir dir;
  const Sweep s = load_sweep(kScenes + "sweeps/hold_grid.yaml");
  const SweepOutcome o = run_sweep(s, options_for(dir, "out", 2));
  EXPECT_EQ(o.total, 40);
  EXPECT_EQ(o.ran, 40);
  EXPECT_EQ(o.failed, 0);
  int held = 0;
  for (const auto& j : lines_of(fs::path(dir.path("out")) / "results.jsonl")) {
    ASSERT_EQ(j["status"], "ok") << j.dump();
    const double capacity = 2 * j["parameters"]["mu"].get<double>() * j["parameters"]["grip_force"].get<double>();
    EXPECT_EQ(j["metrics"]["object_held"].get<bool>(), capacity >= 0.2 * 9.81) << j.dump();
    held += j["metrics"]["object_held"].get<bool>();
    EXPECT_TRUE(j["wall"].contains("time_s"));
    EXPECT_FALSE(j["metrics"].contains("wall_time_s"));
  }
  EXPECT_EQ(held, 17);
}

TEST(SweepRun, OneAndTwoThreadsGiveTheSameResults) {
  TempDir dir;
  const Sweep s = load_sweep(kScenes + "sweeps/push_randomized.yaml");
  run_sweep(s, options_for(dir, "one", 1));
  run_sweep(s, options_for(dir, "two", 2));
  const auto one = comparable(fs::path(dir.path("one")) / "results.jsonl");
  EXPECT_EQ(one.size(), static_cast<std::size_t>(s.job_count()));
  EXPECT_EQ(one, comparable(fs::path(dir.path("two")) / "results.jsonl"));
}

TEST(SweepRun, ResumeFinishesAStoppedSweepWithoutRepeatingAJob) {
  TempDir dir;
  const Sweep s = load_sweep(kScenes + "sweeps/hold_grid.yaml");
  run_sweep(s, options_for(dir, "whole", 1));
  SweepOptions o = options_for(dir, "cut", 2);
  std::atomic<int> polls{0};
  o.stop = [&] { return ++polls > 3000; };  // stops a few jobs in (each polls once per step)
  const SweepOutcome first = run_sweep(s, o);
  EXPECT_TRUE(first.interrupted);
  EXPECT_GT(first.ran, 0);
  EXPECT_LT(first.ran, 40);
  // A kill mid-write leaves half a line: resume drops it and runs that job again.
  const fs::path results = fs::path(dir.path("cut")) / "results.jsonl";
  std::ofstream(results, std::ios::app) << "{\"job\": 39, \"status\": \"o";
  EXPECT_NE(input_error([&] { run_sweep(s, options_for(dir, "cut", 2)); }).find("pass --resume"), std::string::npos);
  o.stop = {};
  o.resume = true;
  const SweepOutcome second = run_sweep(s, o);
  EXPECT_FALSE(second.interrupted);
  EXPECT_EQ(second.skipped, first.ran);
  EXPECT_EQ(second.ran, 40 - first.ran);
  EXPECT_EQ(comparable(results), comparable(fs::path(dir.path("whole")) / "results.jsonl"));
  // Resuming into the results of a different sweep is refused.
  const std::string changed = dir.write("s.yaml", "scene: " + kScenes + "validation/grasp_hold.yaml\nparameters:\n  mu: {list: [0.3]}\n");
  SweepOptions r = options_for(dir, "cut", 1);
  r.resume = true;
  EXPECT_NE(input_error([&] { run_sweep(load_sweep(changed), r); }).find("from a different sweep"), std::string::npos);
}

// A value the scene rejects, and a simulation that cannot be integrated, are results: the
// sweep records them and goes on.
TEST(SweepRun, FailedJobsAreRecordedWithTheirErrors) {
  TempDir dir;
  const std::string file = dir.write("s.yaml", "scene: " + kScenes + "validation/grasp_hold.yaml\nset: {hold_s: 0.05}\n"
                                                                     "parameters:\n  mu: {list: [0.5, -1]}\n");
  const Sweep s = load_sweep(file);
  const SweepOutcome o = run_sweep(s, options_for(dir, "out", 1));
  EXPECT_EQ(o.ran, 2);
  EXPECT_EQ(o.failed, 1);
  const auto lines = lines_of(fs::path(dir.path("out")) / "results.jsonl");
  ASSERT_EQ(lines.size(), 2u);
  for (const auto& j : lines) {
    if (j["job"] == 0) {
      EXPECT_EQ(j["status"], "ok");
    } else {
      EXPECT_EQ(j["status"], "failed");
      const std::string error = j["error"];
      EXPECT_NE(error.find("friction"), std::string::npos) << error;
    }
  }
  // The report lists it.
  const fs::path page = write_sweep_report(dir.path("out"));
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("Failed jobs"), std::string::npos);
}

// A metric no summary has (a typo) is null in every line, and the outcome names it.
TEST(SweepRun, MetricInNoSummaryIsReported) {
  TempDir dir;
  const Sweep s = load_sweep(dir.write("s.yaml", "scene: " + kScenes + "validation/grasp_hold.yaml\nset: {hold_s: 0.01}\n"
                                                                    "metrics: [object_helld, final_bodies.object.pos.2]\n"));
  const SweepOutcome o = run_sweep(s, options_for(dir, "out", 1));
  ASSERT_EQ(o.missing_metrics, std::vector<std::string>{"object_helld"});
  const auto line = nlohmann::json::parse(comparable(fs::path(dir.path("out")) / "results.jsonl").at(0));
  EXPECT_TRUE(line["metrics"]["object_helld"].is_null());
  EXPECT_TRUE(line["metrics"]["final_bodies.object.pos.2"].is_number());
}

TEST(SweepRun, ReportDrawsEachParameterAndTheRealPush) {
  TempDir dir;
  const Sweep grid = load_sweep(kScenes + "sweeps/hold_grid.yaml");
  run_sweep(grid, options_for(dir, "grid", 2));
  std::ifstream g(write_sweep_report(dir.path("grid")));
  const std::string html((std::istreambuf_iterator<char>(g)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("object_held over mu"), std::string::npos);
  EXPECT_NE(html.find("object_held over grip_force"), std::string::npos);
  EXPECT_NE(html.find("<h2>Over mu and grip_force</h2>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);

  const Sweep push = load_sweep(kScenes + "sweeps/push_randomized.yaml");
  run_sweep(push, options_for(dir, "push", 2));
  std::ifstream p(write_sweep_report(dir.path("push")));
  const std::string page((std::istreambuf_iterator<char>(p)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("Final pose against the real push"), std::string::npos);
  EXPECT_NE(page.find("<h2>Distributions</h2>"), std::string::npos);
  EXPECT_NE(input_error([&] { write_sweep_report(dir.path("nosuch")); }).find("sweep.json: not found"), std::string::npos);
}

// The recorded push (ABS, rect1, side 2 at s = 0.8, straight, 75 mm/s) in push.yaml's frame:
// docs/validation.md's "real ABS push" row, 31 mm forward and 31 degrees; the contact is at
// -y in that frame, so the box moves and turns towards +y.
TEST(SweepRun, RealPushOutcomeInThePushFrame) {
  const PushOutcome r = mcube_push_outcome(std::string(GRASPSIM_SHARED_DIR) +
                                           "/data/mcube-push/abs/train/motion_surface=abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5");
  EXPECT_NEAR(r.x, 0.031, 0.001);
  EXPECT_GT(r.y, 0.0);
  EXPECT_NEAR(r.yaw_deg, 31.0, 1.0);
}

}  // namespace
}  // namespace graspsim
