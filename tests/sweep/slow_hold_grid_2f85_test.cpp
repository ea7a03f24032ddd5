// The 2F-85 example sweep (scenes/sweeps/hold_grid_2f85.yaml, 25 jobs of 3.75 s): what a grip
// must show. More friction or a harder squeeze never loses a grasp that less held; a command
// that stops the fingers short of the box (105) holds nothing; the Menagerie pads (mu 0.7) at
// full command hold.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <utility>

#include "../common/temp_dir.h"
#include "sweep/sweep_run.h"

namespace graspsim {
namespace {

TEST(SweepExamples, RobotiqHoldGridIsMonotoneInFrictionAndGrip) {
  test::TempDir dir;
  const Sweep s = load_sweep(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/sweeps/hold_grid_2f85.yaml");
  SweepOptions o;
  o.out = dir.path("out");
  o.quiet = true;
  const SweepOutcome r = run_sweep(s, o);
  ASSERT_EQ(r.ran, 25);
  ASSERT_EQ(r.failed, 0);
  std::map<std::pair<double, double>, bool> held;
  std::ifstream in(std::filesystem::path(dir.path("out")) / "results.jsonl");
  for (std::string l; std::getline(in, l);) {
    const auto j = nlohmann::json::parse(l);
    held[{j["parameters"]["mu"].get<double>(), j["parameters"]["grip_ctrl"].get<double>()}] = j["metrics"]["object_held"].get<bool>();
  }
  ASSERT_EQ(held.size(), 25u);
  for (const auto& [a, ha] : held)
    for (const auto& [b, hb] : held)
      if (b.first >= a.first && b.second >= a.second && ha) {
        EXPECT_TRUE(hb) << "held at mu " << a.first << ", command " << a.second << " but not at mu " << b.first
                        << ", command " << b.second;
      }
  for (double mu : {0.01, 0.02, 0.05, 0.2, 0.7}) EXPECT_FALSE((held[{mu, 105.0}])) << mu;
  EXPECT_TRUE((held[{0.7, 255.0}]));
}

}  // namespace
}  // namespace graspsim
