// `graspsim sweep` on threads: killed with SIGKILL mid-sweep, then --resume; and the report verb.

#include <gtest/gtest.h>

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/sweep_results.h"
#include "cli_util.h"

namespace graspsim::test {
namespace {

const auto comparable = comparable_results;


TEST(SweepCli, KilledSweepResumesWithoutRepeatingAJob) {
  const fs::path dir = fresh_dir("sweep_kill"), whole = fresh_dir("sweep_kill_whole");
  fs::create_directories(dir);
  // 48 jobs of a 6 s hold: a few seconds on 2 threads, killed after 1 s.
  std::ofstream(dir / "s.yaml") << "scene: " << GRASPSIM_SOURCE_DIR << "/scenes/validation/grasp_hold.yaml\n"
                                << "set: {hold_s: 6}\nsamples: 8\nparameters:\n  mu: {uniform: [0.1, 0.8]}\n"
                                << "  grip_force: {list: [0.5, 1, 2, 4, 8, 16]}\n";
  const std::string sweep = (dir / "s.yaml").string(), out = (dir / "out").string();
  ASSERT_EQ(run_cli("sweep " + sweep + " --jobs 1 --quiet --out " + whole.string()).exit_code, 0);
  run_cli("sweep " + sweep + " --jobs 2 --quiet --out " + out + " & pid=$!; sleep 1; kill -KILL $pid; wait $pid");
  const std::size_t done = comparable(fs::path(out) / "results.jsonl").size();
  const Result resumed = run_cli("sweep " + sweep + " --jobs 2 --resume --quiet --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(std::to_string(done) + " already done"), std::string::npos) << resumed.output;
  EXPECT_EQ(comparable(fs::path(out) / "results.jsonl"), comparable(whole / "results.jsonl"));
  const Result report = run_cli("sweep-report " + out);
  EXPECT_EQ(report.exit_code, 0) << report.output;
  EXPECT_TRUE(fs::exists(fs::path(out) / "report.html"));
  EXPECT_EQ(run_cli("sweep-report " + dir.string()).exit_code, 2);
  fs::remove_all(dir), fs::remove_all(whole);
}

}  // namespace
}  // namespace graspsim::test
