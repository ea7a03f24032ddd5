// `graspsim validate mcube` end to end: JSON fields, folder runs that survive broken files, and
// `calibrate mcube` writing the surface table.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace {

using namespace graspsim::test;

const std::string kMcube = std::string(GRASPSIM_SHARED_DIR) + "/data/mcube-push";
const std::string kAbsRect = "motion_surface=abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5";

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] == '{') out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(McubeCli, JsonPrintsTheNamedFieldsThenASummary) {
  const fs::path out = fresh_dir("mcube_json");
  const Result r = run_cli("validate mcube '" + kMcube + "/abs/train/" + kAbsRect + "' --json --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = json_lines(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  for (const char* key : {"file", "shape", "surface", "sim_dx_mm", "sim_dy_mm", "sim_dyaw_deg", "real_dx_mm", "real_dy_mm",
                          "real_dyaw_deg", "pos_err_mm", "yaw_err_deg"})
    EXPECT_TRUE(lines[0].contains(key)) << key;
  EXPECT_EQ(lines[0]["shape"], "rect1");
  EXPECT_TRUE(lines[0]["force_rms_n"].is_null());  // README: this file's force channel is frozen
  // The README's numbers for this push: 31 mm along the push (+y here), 31 deg.
  EXPECT_NEAR(lines[0]["real_dy_mm"].get<double>(), 31.0, 0.5);
  EXPECT_NEAR(lines[0]["real_dyaw_deg"].get<double>(), 31.0, 0.5);
  EXPECT_EQ(lines[1]["summary"]["files"], 1);
  EXPECT_EQ(lines[1]["summary"]["failed"], 0);
  // The per-file folder holds the scene it ran (rerunnable) and the compared trajectories.
  const fs::path dir = out / fs::path(kAbsRect).stem();
  EXPECT_TRUE(fs::exists(dir / "scene.yaml"));
  EXPECT_TRUE(fs::exists(dir / "bodies.csv"));
  EXPECT_EQ(slurp(dir / "trajectory.csv").rfind("t,sim_x_mm,sim_y_mm,sim_yaw_deg,real_x_mm,real_y_mm,real_yaw_deg\n", 0), 0u);
  EXPECT_EQ(run_cli("check " + (dir / "scene.yaml").string()).exit_code, 0);
}

// Broken files in a folder are reported by name and counted; the good file still runs; exit 2.
TEST(McubeCli, FolderRunContinuesPastBrokenFiles) {
  const fs::path in = fresh_dir("mcube_broken_in"), out = fresh_dir("mcube_broken_out");
  fs::create_directories(in);
  fs::copy_file(kMcube + "/abs/train/" + kAbsRect, in / kAbsRect);
  const std::string h5 = slurp(kMcube + "/abs/train/" + kAbsRect);
  const std::string truncated = "motion_surface=abs_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.349.h5";
  std::ofstream(in / truncated, std::ios::binary) << h5.substr(0, h5.size() / 2);
  const std::string no_pose = "motion_surface=plywood_shape=rect1_a=0_v=100_i=0.000_s=0.500_t=0.000.json";
  std::ofstream(in / no_pose) << R"({"tip_pose": [[1, 0, 0, 0], [2, 0, 0, 0]], "ft_wrench": [[1, 0, 0, 0], [2, 0, 0, 0]]})";
  const std::string unknown = "motion_surface=abs_shape=blob_a=0_v=20_i=0.000_s=0.500_t=0.000.json";
  std::ofstream(in / unknown) << slurp(kMcube + "/plywood/rect1/" + no_pose);

  const Result r = run_cli("validate mcube " + in.string() + " --json --objects " + kMcube + "/objects --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(truncated), std::string::npos);
  EXPECT_NE(r.output.find("no 'object_pose'"), std::string::npos);
  EXPECT_NE(r.output.find("unknown MCube shape 'blob'"), std::string::npos);
  const auto lines = json_lines(r.output);
  ASSERT_EQ(lines.size(), 5u) << r.output;
  const auto& s = lines.back()["summary"];
  EXPECT_EQ(s["files"], 4);
  EXPECT_EQ(s["ok"], 1);
  EXPECT_EQ(s["failed"], 3);
  // The results file was written as the run went and holds the same lines.
  EXPECT_EQ(json_lines(slurp(out / "results.jsonl")).size(), 5u);
}

// A surface missing from the table runs on the table's default friction and says so.
TEST(McubeCli, UncalibratedSurfaceUsesTheDefaultFriction) {
  const fs::path in = fresh_dir("mcube_delrin_in"), out = fresh_dir("mcube_delrin_out");
  fs::create_directories(in);
  const std::string delrin = "motion_surface=delrin_shape=rect1_a=0_v=75_i=2.000_s=0.800_t=0.000.h5";
  fs::copy_file(kMcube + "/abs/train/" + kAbsRect, in / delrin);
  const Result r = run_cli("validate mcube " + (in / delrin).string() + " --json --objects " + kMcube + "/objects --out " +
                           out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto lines = json_lines(r.output);
  ASSERT_EQ(lines.size(), 2u) << r.output;
  EXPECT_EQ(lines[0]["surface"], "delrin");
  EXPECT_NE(lines[0].value("friction_note", "").find("not calibrated"), std::string::npos) << lines[0].dump();
}

TEST(McubeCli, UnknownSurfaceAndBadPathModeAreInputErrors) {
  const fs::path surfaces = fresh_dir("mcube_surfaces.yaml");
  std::ofstream(surfaces) << "surfaces:\n  plywood: {mu_ground: 0.2, mu_pusher: 0.25}\n";
  const Result r = run_cli("validate mcube '" + kMcube + "/abs/train/" + kAbsRect + "' --surfaces " + surfaces.string() +
                           " --out " + fresh_dir("mcube_nosurface").string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no friction for surface 'abs' and no 'default'"), std::string::npos) << r.output;
  const Result p = run_cli("validate mcube '" + kMcube + "/abs/train/" + kAbsRect + "' --path straight");
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_NE(p.output.find("--path"), std::string::npos) << p.output;
}

}  // namespace

namespace graspsim::cli_test {
namespace {

// One byte that is not UTF-8 in an MCube JSON file is that file's error (exit 2), not an
// abort that stops the batch; a batch where every file fails says so, not "nan mm".
TEST(McubeCli, NonUtf8ByteIsThatFilesErrorAndTheBatchGoesOn) {
  const fs::path in = fresh_dir("mcube_utf8_in"), out = fresh_dir("mcube_utf8_out");
  fs::create_directories(in / "bad");
  fs::create_directories(in / "good");
  const std::string name = "motion_surface=plywood_shape=rect1_a=0_v=100_i=0.000_s=0.500_t=0.000.json";
  std::string text = slurp(kMcube + "/plywood/rect1/" + name);
  text[text.find('"') + 2] = static_cast<char>(0xff);
  std::ofstream(in / "bad" / name, std::ios::binary) << text;
  fs::copy_file(kMcube + "/abs/train/" + kAbsRect, in / "good" / kAbsRect);
  const Result r = run_cli("validate mcube " + (in / "bad").string() + " " + (in / "good").string() +
                           " --objects " + kMcube + "/objects --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("2 files, 1 failed; median final error"), std::string::npos) << r.output;
  EXPECT_EQ(json_lines(slurp(out / "results.jsonl")).size(), 3u);

  const Result all_bad = run_cli("validate mcube " + (in / "bad").string() + " --objects " + kMcube +
                                 "/objects --out " + out.string());
  EXPECT_EQ(all_bad.exit_code, 2) << all_bad.output;
  EXPECT_NE(all_bad.output.find("no file ran"), std::string::npos) << all_bad.output;
  EXPECT_EQ(all_bad.output.find("nan"), std::string::npos) << all_bad.output;
}

}  // namespace
}  // namespace graspsim::cli_test
