// `graspsim calibrate mcube` end to end (slow: ~10 simulated pushes).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

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

// --holdout surface: each surface's files run with the friction fitted on the other surface only
// (the table's entries are only the starting point), beside the table's own (fitted) results.
TEST(McubeCli, HoldoutFitsWithoutTheHeldOutGroup) {
  const fs::path in = fresh_dir("mcube_holdout_in"), out = fresh_dir("mcube_holdout_out");
  const fs::path surfaces = fresh_dir("mcube_holdout.yaml");
  std::ofstream(surfaces) << "surfaces:\n  abs: {mu_ground: 0.3, mu_pusher: 0.25}\n  plywood: {mu_ground: 0.6, mu_pusher: 0.15}\n";
  const std::string ply = "motion_surface=plywood_shape=rect1_a=0_v=100_i=0.000_s=0.500_t=0.698.json";
  fs::create_directories(in);
  fs::copy_file(kMcube + "/abs/train/" + kAbsRect, in / kAbsRect);
  fs::copy_file(kMcube + "/plywood/rect1/" + ply, in / ply);
  const Result r = run_cli("validate mcube " + in.string() + " --holdout surface --tolerance 0.3 --json --set parameters.dt=0.002"
                           " --objects " + kMcube + "/objects --surfaces " + surfaces.string() + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<nlohmann::json> rows;
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] == '{') rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 3u) << r.output;
  const nlohmann::json& s = rows.back()["summary"];
  EXPECT_EQ(s["holdout"], "surface");
  ASSERT_EQ(s["folds"].size(), 2u);
  for (const auto& row : {rows[0], rows[1]}) {
    const bool abs = row["surface"] == "abs";
    EXPECT_EQ(row["holdout"], abs ? "surface=abs" : "surface=plywood");
    // The held-out surface has no training file: the friction is the other surface's fit.
    EXPECT_NE(row["friction_note"].get<std::string>().find(abs ? "plywood" : "abs"), std::string::npos) << row;
    EXPECT_TRUE(row.contains("fitted_pos_err_mm"));
  }
  EXPECT_EQ(s["folds"][0]["train_files"]["plywood"], 1);  // abs held out: fitted on the plywood file
  EXPECT_EQ(s["fitted"]["files"], 2);
  EXPECT_TRUE(fs::exists(out / "fitted" / fs::path(kAbsRect).stem() / "scene.yaml"));
  EXPECT_TRUE(fs::exists(out / fs::path(kAbsRect).stem() / "scene.yaml"));
}

}  // namespace
