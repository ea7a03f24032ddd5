// `graspsim calibrate mcube` end to end (slow: ~10 simulated pushes).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace {

using namespace graspsim::test;

const std::string kMcube = std::string(GRASPSIM_SHARED_DIR) + "/data/mcube-push";
const std::string kAbsRect = "motion_surface=abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5";

// Calibration moves a deliberately bad friction toward the data and records how in the table.
TEST(McubeCli, CalibrateWritesTheSurfaceTable) {
  const fs::path surfaces = fresh_dir("mcube_calibrate.yaml");
  std::ofstream(surfaces) << "# header kept\nsurfaces:\n  abs: {mu_ground: 0.6, mu_pusher: 0.25}\n  plywood: {mu_ground: 0.3, mu_pusher: 0.2}\n";
  const Result r = run_cli("calibrate mcube --surface abs --tolerance 0.05 --set parameters.dt=0.002 --surfaces " + surfaces.string() + " '" + kMcube +
                           "/abs/train/" + kAbsRect + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string table = slurp(surfaces);
  EXPECT_EQ(table.rfind("# header kept\n", 0), 0u) << table;
  EXPECT_NE(table.find("provenance"), std::string::npos);
  EXPECT_NE(table.find("mu_ground: 0.3"), std::string::npos) << table;  // plywood untouched
}

}  // namespace
