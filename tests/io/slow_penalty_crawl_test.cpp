// A penalty run that crawls warns (slow: ~5 s here, 3 min under the sanitizers, which skip it).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/run.h"
#include "io/scene.h"

namespace graspsim {
namespace {

// A penalty run that crawls says so while it runs, once (the census's finding: a light finger
// hinged inside the object made RK45 take ~2e-8 s steps, silently). The 3-finger gripper with
// finger 3's hinge moved onto the sphere: its second millisecond takes ~20k RK45 steps.
TEST(Formulations, APenaltyRunThatCrawlsWarnsOnce) {
  const Scene scene = load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/penalty/revolute3_sphere.yaml",
                                 {"duration=0.002", "bodies.finger_3.pos=[0, \"-0.5 * (${object_reach_3} + ${finger_half_thickness})\", 0]"});
  std::vector<std::string> warnings;
  RunOptions run;
  run.record = false;
  run.warn = [&](const std::string& w) { warnings.push_back(w); };
  const RunSummary s = run_scene(scene, run);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("RK45 took"), std::string::npos) << warnings[0];
  EXPECT_EQ(s.json["warnings"][0], warnings[0]);
  // The shipped grasp does not crawl.
  warnings.clear();
  run_scene(load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/penalty/revolute3_sphere.yaml", {"duration=0.01"}), run);
  EXPECT_TRUE(warnings.empty());
}

}  // namespace
}  // namespace graspsim
