// Seed 003, Section V.A: the 2D gripper and cylinder, checked against what Figs. 5 and 6
// show (scenes/quasistatic/pang2d.yaml). Rows follow the paper's indexing: row l holds q^l
// (before step l) and step l's normal forces.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "../common/temp_dir.h"
#include "../common/trials.h"
#include "io/run.h"
#include "io/scene.h"
#include "kinematics/kinematics.h"
#include "quasistatic/schemes.h"
#include "quasistatic/system.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

constexpr double r = 0.05;

struct Row {
  int step;
  double x_c, y_c, x_l, x_r, y_g, l1, l2, l3;
  double phi1() const { return x_c - x_l - r; }
  double phi2() const { return x_r - x_c - r; }
};

struct Pang2d {
  std::vector<Row> rows;  // rows[l - 1] = row l
  RunSummary summary;
  std::vector<QuasistaticStepInfo> info;
  const Row& row(int l) const { return rows.at(static_cast<size_t>(l - 1)); }
};

Pang2d run(const std::string& scheme, std::vector<std::string> overrides = {}) {
  test::TempDir dir;
  overrides.push_back("parameters.scheme=" + scheme);
  const Scene scene = load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/quasistatic/pang2d.yaml", overrides);
  Pang2d out;
  RunOptions options;
  options.out_dir = dir.path("out");
  options.on_step = [&](const Model&, const State&, const Workspace&, const StepResult& res) {
    out.info.push_back(res.quasistatic);
  };
  out.summary = run_scene(scene, options);
  std::ifstream in(dir.path("out/quasistatic.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "step,x_c,y_c,x_l,x_r,y_g,lambda_n1,lambda_n2,lambda_n3");
  while (std::getline(in, line)) {
    std::replace(line.begin(), line.end(), ',', ' ');
    std::istringstream ss(line);
    Row row;
    ss >> row.step >> row.x_c >> row.y_c >> row.x_l >> row.x_r >> row.y_g >> row.l1 >> row.l2 >> row.l3;
    out.rows.push_back(row);
  }
  return out;
}

// Independent checks of every step's solution (computed from the system, not the solver).
void expect_valid_solutions(const Pang2d& p) {
  for (size_t i = 0; i < p.info.size(); ++i) {
    SCOPED_TRACE("step " + std::to_string(i + 1));
    EXPECT_LE(p.info[i].force_balance, 1e-8);      // N·s
    EXPECT_LE(p.info[i].complementarity, 1e-8);    // m or N·s: one side of each pair is zero
    EXPECT_FALSE(p.info[i].big_m_active);
  }
}

TEST(Pang2d, MiqpReproducesFigure5) {
  const Pang2d p = run("miqp");
  ASSERT_EQ(p.rows.size(), 60u);
  expect_valid_solutions(p);
  EXPECT_EQ(p.summary.json["binaries"], 12);  // 2 n_c + n_d = 2·3 + 6
  // The fingers close at 0.1 m/s from 0.02 m away: they touch at step 21.
  EXPECT_NEAR(p.row(20).phi1(), 1e-3, 1e-12);
  EXPECT_NEAR(p.row(21).phi1(), 0.0, 1e-9);
  EXPECT_NEAR(p.row(21).phi2(), 0.0, 1e-9);
  for (int l = 21; l <= 40; ++l) {
    SCOPED_TRACE("row " + std::to_string(l));
    // x commands are not followed: no penetration.
    EXPECT_GE(p.row(l).phi1(), -1e-9);
    EXPECT_GE(p.row(l).phi2(), -1e-9);
    // The cylinder rises with the fingers (it keeps its height above the fingertips).
    EXPECT_NEAR(p.row(l).y_c - p.row(l).y_g, p.row(21).y_c - p.row(21).y_g, 1e-9);
  }
  // The y command is followed exactly while it lifts (steps 1..39).
  for (int l = 1; l <= 40; ++l) EXPECT_NEAR(p.row(l).y_g, 0.001 * (l - 1), 1e-12) << "row " << l;
  // Squeezed: every finger force at least the lower bound K·|φ̄| = 1e4 · 0.001 = 10 N (the
  // MIQP does not pin it: any larger force gives the same motion); the table carries nothing.
  for (int l = 21; l <= 39; ++l) {
    EXPECT_GE(p.row(l).l1, 10.0 - 1e-5) << "row " << l;
    EXPECT_GE(p.row(l).l2, 10.0 - 1e-5) << "row " << l;
    EXPECT_NEAR(p.row(l).l3, 0.0, 1e-6) << "row " << l;
  }
  EXPECT_GT(p.row(40).y_c, r + 0.018);
  // Released after step 39: back on the table at once (row 41), and stays there.
  for (int l = 41; l <= 60; ++l) {
    EXPECT_NEAR(p.row(l).y_c, r, 1e-9) << "row " << l;
    EXPECT_NEAR(p.row(l).l3, 9.81, 1e-6) << "row " << l;
  }
  EXPECT_GT(p.summary.json["object_lift_m"].get<double>(), 0.018);
  // Released from the fingers' grip, it fell out of them: the drop detector's positive case.
  EXPECT_TRUE(p.summary.json["object_dropped"].get<bool>());
}

TEST(Pang2d, LcpKeepsTheCylinderOnTheTable) {
  const Pang2d p = run("lcp");
  ASSERT_EQ(p.rows.size(), 60u);
  expect_valid_solutions(p);
  for (const Row& row : p.rows) {
    SCOPED_TRACE("row " + std::to_string(row.step));
    EXPECT_NEAR(row.l1, 0.0, 1e-9);  // Fig. 6b: no normal force from the fingers
    EXPECT_NEAR(row.l2, 0.0, 1e-9);
    EXPECT_NEAR(row.y_c, r, 1e-12);  // Fig. 6a, c: the cylinder stays on the table
    EXPECT_NEAR(row.l3, 9.81, 1e-9);
    EXPECT_GE(row.phi1(), -1e-12);
  }
  EXPECT_NEAR(p.row(21).phi1(), 0.0, 1e-12);  // the command (30) stops at touch
  EXPECT_FALSE(p.summary.json["object_dropped"].get<bool>());
}

TEST(Pang2d, LcpSqueezeCommandIsInfeasible) {
  // Command (29) with Trinkle's LCP: the fingers are told to go into the cylinder.
  const std::string msg = test::input_error([] { run("lcp", {"parameters.squeeze_steps=39"}); });
  EXPECT_NE(msg.find("step 21"), std::string::npos) << msg;
  EXPECT_NE(msg.find("infeasible"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cylinder/finger_left"), std::string::npos) << msg;
}

TEST(Pang2d, ConvexLiftsWithoutBinaries) {
  const Pang2d p = run("convex");
  ASSERT_EQ(p.rows.size(), 60u);
  EXPECT_EQ(p.summary.json["binaries"], 0);
  for (size_t i = 0; i < p.info.size(); ++i) EXPECT_LE(p.info[i].complementarity, 1e-9) << "step " << i + 1;
  for (const Row& row : p.rows) {
    EXPECT_GE(row.phi1(), -1e-9);
    EXPECT_GE(row.phi2(), -1e-9);
  }
  // The squeeze force is the actuated spring's, K × (command − motion) ≤ 10 N per finger,
  // just above the 9.81 N the friction must carry: the cylinder is lifted, sliding (Anitescu's
  // relaxation opens a gap while sliding), less far than with the MIQP.
  EXPECT_GT(p.row(40).y_c, r + 0.005);
  // Released: back on the table in two steps (the relaxation lets the cylinder slide down
  // the opening fingers only as far as their gap times μ allows in the first).
  EXPECT_LT(p.row(41).y_c, p.row(40).y_c);
  EXPECT_NEAR(p.row(42).y_c, r, 1e-9);
}

}  // namespace
}  // namespace graspsim

namespace graspsim {
namespace {

// The condition for a specialised MIQP solver: the same optimum as Bonmin. At every
// step of the MIQP run (driven by the branch and bound, with its mode hints), the step's
// problem is also given to Bonmin and to the branch and bound without a hint.
TEST(Pang2d, BranchAndBoundMatchesBonminAtEveryStep) {
  for (const std::string penetration : {"current", "previous"}) {
    SCOPED_TRACE(penetration);
    const Scene scene = load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/quasistatic/pang2d.yaml",
                                   {"parameters.scheme=miqp", "options.quasistatic.penetration=" + penetration});
    const Model& model = *scene.model;
    QuasistaticOptions bb = scene_formulation(model).quasistatic, bonmin = bb;
    ASSERT_EQ(bb.miqp_solver, MiqpSolver::BranchAndBound);  // the default
    bonmin.miqp_solver = MiqpSolver::Bonmin;
    const QuasistaticPartition part = quasistatic_partition(model);
    KinematicsData kin;
    QuasistaticBuildScratch scratch;
    QuasistaticSystem sys;
    std::map<std::uint64_t, double> bonmin_objective;  // by step index (0: the first)
    int compared = 0;
    RunOptions options;
    options.record = false;
    options.controller = [&](const Model& m, const State& s, Input& in) {
      build_quasistatic_system(m, s, in, bb, part, kin, scratch, sys);
      // The previous step's φ̄ is the stepper's own state; `current` needs none.
      if (penetration == "previous" || s.step % test::kTrialStride != 0) return;
      const QuasistaticSolution a = solve_quasistatic(sys, bonmin), b = solve_quasistatic(sys, bb);
      ASSERT_EQ(a.status, QuasistaticSolution::Status::Solved) << a.message;
      ASSERT_EQ(b.status, QuasistaticSolution::Status::Solved) << b.message;
      EXPECT_EQ(b.solver, "complementarity_bb");
      EXPECT_NEAR(b.objective, a.objective, 1e-12 + 1e-6 * a.objective) << "step " << s.step + 1;
      bonmin_objective[s.step] = a.objective;
      ++compared;
    };
    std::vector<QuasistaticStepInfo> info;
    options.on_step = [&](const Model&, const State&, const Workspace&, const StepResult& r) {
      info.push_back(r.quasistatic);
    };
    run_scene(scene, options);
    ASSERT_EQ(info.size(), 60u);
    for (const auto& [i, objective] : bonmin_objective)  // the run itself, with hints
      EXPECT_NEAR(info[i].objective, objective, 1e-12 + 1e-6 * objective) << "step " << i + 1;
    if (penetration == "current") {
      EXPECT_EQ(compared, test::trial_count(60));
    }
  }
}

}  // namespace
}  // namespace graspsim
