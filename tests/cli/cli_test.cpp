// End-to-end checks of the graspsim command line on small scenes.
#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace {

namespace fs = std::filesystem;
using namespace graspsim::test;

TEST(Cli, VersionAndHelp) {
  const Result v = run_cli("--version");
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.output.find("graspsim"), std::string::npos);
  const Result h = run_cli("--help");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.output.find("run"), std::string::npos);
  EXPECT_NE(h.output.find("check"), std::string::npos);
}

TEST(Cli, MisspelledKeyNamesFileLineAndKey) {
  const Result r = run_cli("check " + data("typo.yaml"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("typo.yaml:7"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("'mas'"), std::string::npos) << r.output;
}

TEST(Cli, NegativeMassNamesTheBody) {
  const Result r = run_cli("check " + data("negative_mass.yaml"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("lead_brick"), std::string::npos) << r.output;
}

TEST(Cli, MissingSceneAndBadFlagsExitTwo) {
  EXPECT_EQ(run_cli("check /nonexistent/scene.yaml").exit_code, 2);
  EXPECT_EQ(run_cli("run " + data("falling_box.yaml") + " --dt -1").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cli("run " + data("falling_box.yaml") + " --set parameters.nope=1").exit_code, 2);
}

TEST(Cli, RunWritesRecordingsAndRunJson) {
  const fs::path out = fresh_dir("run");
  const Result r = run_cli("run " + data("falling_box.yaml") + " --out " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string bodies = slurp(out / "bodies.csv");
  EXPECT_EQ(bodies.rfind("t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n", 0), 0u);
  EXPECT_EQ(slurp(out / "joints.csv").rfind("t,joint,q,v,effort\n", 0), 0u);
  const auto run = nlohmann::json::parse(slurp(out / "run.json"));
  EXPECT_EQ(run["status"], "completed");
  EXPECT_EQ(run["summary"]["steps"], 500);
  // Free fall from 1 m for 0.5 s: z = 1 − g t²/2 (semi-implicit Euler is O(h) off: g h t / 2 ≈ 2.5 mm).
  const double z = run["summary"]["final_bodies"]["box"]["pos"][2];
  EXPECT_NEAR(z, 1.0 - 0.5 * 9.81 * 0.25, 3e-3);
}

TEST(Cli, OverridesReachTheModel) {
  const fs::path out = fresh_dir("set");
  const Result r = run_cli("run " + data("falling_box.yaml") + " --duration 0.1 --dt 0.01 --set parameters.height=3 --out " +
                           out.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto run = nlohmann::json::parse(slurp(out / "run.json"));
  EXPECT_EQ(run["summary"]["steps"], 10);
  EXPECT_DOUBLE_EQ(run["parameters"]["height"].get<double>(), 3.0);
  EXPECT_GT(run["summary"]["final_bodies"]["box"]["pos"][2].get<double>(), 2.9);
}

TEST(Cli, SameInputSameBits) {
  const fs::path a = fresh_dir("det_a"), b = fresh_dir("det_b");
  ASSERT_EQ(run_cli("run " + data("falling_box.yaml") + " --out " + a.string()).exit_code, 0);
  ASSERT_EQ(run_cli("run " + data("falling_box.yaml") + " --out " + b.string()).exit_code, 0);
  EXPECT_EQ(slurp(a / "bodies.csv"), slurp(b / "bodies.csv"));
  EXPECT_EQ(slurp(a / "joints.csv"), slurp(b / "joints.csv"));
}

TEST(Cli, DemoScenesRun) {
  for (const char* scene : {"double_pendulum", "tumbling_box"}) {
    const fs::path out = fresh_dir(scene);
    const Result r = run_cli("run " + std::string(GRASPSIM_SOURCE_DIR) + "/scenes/demo/" + scene +
                             ".yaml --duration 0.2 --out " + out.string());
    EXPECT_EQ(r.exit_code, 0) << scene << ": " << r.output;
  }
}

}  // namespace

namespace {

TEST(Cli, ContactsReportsCornersDistancesAndOverlaps) {
  const Result r = run_cli("contacts " + data("box_on_plane.yaml") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["contacts"].size(), 1u);  // the ball hovers 2 cm above the box
  const auto& c = j["contacts"][0];
  EXPECT_EQ(c["geom_a"], "ground");
  EXPECT_EQ(c["body_b"], "box");
  ASSERT_EQ(c["points"].size(), 4u);  // the four bottom corners, 1 mm deep
  for (const auto& p : c["points"]) EXPECT_NEAR(p["depth"].get<double>(), 1e-3, 1e-12);
  bool found_ball = false;
  for (const auto& d : j["distances"])
    if (d["geom_a"] == "box_geom" && d["geom_b"] == "ball_geom") {
      found_ball = true;
      EXPECT_NEAR(d["distance"].get<double>(), 0.139 - 0.02 - 0.099, 1e-12);
    }
  EXPECT_TRUE(found_ball);
  // Box ∩ ground is not a solid pair (a plane has no volume); nothing else overlaps.
  EXPECT_EQ(j["overlaps"].size(), 0u);
  const Result text = run_cli("contacts " + data("box_on_plane.yaml"));
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.output.find("ground (world) / box_geom (box)"), std::string::npos) << text.output;
}

}  // namespace

namespace graspsim::cli_test {
namespace {

// Step counts that are not sane are bad input (exit 2, naming the file), never "0 steps,
// completed" or one giant step: a count beyond the limit, dt larger than the duration.
TEST(Cli, InsaneStepCountsAreBadInput) {
  const fs::path out = fresh_dir("insane_steps");
  for (const std::string& flags : {std::string("--dt 1e-20"), std::string("--duration 1e300"),
                                   std::string("--set options.dt=1e-300"), std::string("--dt 10 --duration 0.5")}) {
    const Result r = run_cli("run " + data("falling_box.yaml") + " " + flags + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find("falling_box.yaml"), std::string::npos) << flags << "\n" << r.output;
    EXPECT_EQ(r.output.find("--set 'duration"), std::string::npos) << "blames a --set the user never typed: " << r.output;
    EXPECT_FALSE(fs::exists(out / "run.json")) << flags << ": a run started";
  }
  const Result ok = run_cli("run " + data("falling_box.yaml") + " --dt 0.5 --duration 0.5 --out " + out.string());
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

// A simulation that diverges is the scene's problem, not an internal fault: exit 2, with the
// file, the step, the joint and what to change; run.json says "failed" with the same text.
// (Before: exit 1, "internal error: dynamics: the mass matrix is not positive definite".)
TEST(Cli, DivergingSimulationIsBadInputNamingTheJoint) {
  const fs::path out = fresh_dir("diverging");
  const Result r = run_cli("run " + data("diverging_servo.yaml") + " --out " + out.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  for (const std::string want : {"diverging_servo.yaml: step ", "the simulation diverged (joint 'hinge' of body 'arm' became non-finite)",
                                 "options.dt = 0.01 s"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  EXPECT_EQ(r.output.find("internal error"), std::string::npos) << r.output;
  const std::string run_json = slurp(out / "run.json");
  EXPECT_NE(run_json.find("\"failed\""), std::string::npos);
  EXPECT_NE(run_json.find("the simulation diverged"), std::string::npos);
  // At a dt it can integrate (omega = 6.3e4 rad/s; RK4 is stable below omega dt ~ 2.8), the same scene runs.
  const Result ok = run_cli("run " + data("diverging_servo.yaml") + " --dt 2e-5 --duration 0.01 --out " + out.string());
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
}

}  // namespace
}  // namespace graspsim::cli_test

namespace graspsim::cli_test {
namespace {

// SIGTERM (as Ctrl-C's SIGINT) ends a run at a step boundary: run.json says "interrupted",
// the recordings end on a whole line, state.bin is written and the run continues from it;
// the exit code is the shell's 128 + signal.
TEST(Cli, SignalLeavesAnInterruptedRunThatContinues) {
  for (const char* sig : {"TERM", "INT"}) {
    const fs::path out = fresh_dir(std::string("interrupted_") + sig);
    const Result r = run_cli("run " + std::string(GRASPSIM_SOURCE_DIR) +
                             "/scenes/validation/grasp_hold.yaml --duration 1000 --out " + out.string() +
                             " & pid=$!; for i in $(seq 200); do [ -f " + (out / "run.json").string() +
                             " ] && break; sleep 0.05; done; sleep 0.3; kill -" + sig +
                             " $pid; wait $pid; echo exit=$?; true");  // (signalled once the run is under way)
    EXPECT_NE(r.output.find(std::string("exit=") + (std::string(sig) == "TERM" ? "143" : "130")), std::string::npos)
        << r.output;
    const std::string json = slurp(out / "run.json");
    EXPECT_NE(json.find("\"status\": \"interrupted\""), std::string::npos) << json;
    const std::string csv = slurp(out / "bodies.csv");
    ASSERT_FALSE(csv.empty());
    EXPECT_EQ(csv.back(), '\n');
    const Result more = run_cli("run " + std::string(GRASPSIM_SOURCE_DIR) +
                                "/scenes/validation/grasp_hold.yaml --duration 0.01 --from-state " +
                                (out / "state.bin").string() + " --out " + (out / "more").string());
    EXPECT_EQ(more.exit_code, 0) << more.output;
  }
}

}  // namespace
}  // namespace graspsim::cli_test

namespace graspsim::cli_test {
namespace {

// --duration and --dt that are not finite positive numbers are named as the flags the user
// typed (not as a --set), with short numbers (not CLI11's 309-digit range).
TEST(Cli, BadDurationAndDtFlagsNameTheFlag) {
  const fs::path out = fresh_dir("bad_flags");
  for (const std::string& flags : {std::string("--duration nan"), std::string("--duration inf"),
                                   std::string("--duration -1"), std::string("--dt nan"), std::string("--dt 0")}) {
    const Result r = run_cli("run " + data("falling_box.yaml") + " " + flags + " --out " + out.string());
    EXPECT_EQ(r.exit_code, 2) << flags << "\n" << r.output;
    EXPECT_NE(r.output.find(flags.substr(0, flags.find(' ')) + ": expected a finite"), std::string::npos)
        << flags << "\n" << r.output;
    EXPECT_EQ(r.output.find("--set"), std::string::npos) << r.output;
    EXPECT_LT(r.output.size(), 300u) << r.output;
  }
}

}  // namespace
}  // namespace graspsim::cli_test
