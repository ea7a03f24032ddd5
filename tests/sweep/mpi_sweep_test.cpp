// `graspsim sweep` from the command line: on threads, on 2 MPI ranks (mpirun -np 2
// --oversubscribe), stopped by a signal and resumed; the results compare bit for bit.

#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "../cli/cli_util.h"
#include "../common/sweep_results.h"

namespace graspsim::test {
namespace {

const std::string kSweeps = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/sweeps/";
// As root (CI containers) OpenMPI wants both variables; --oversubscribe lets 2 ranks share
// fewer cores.
Result run_mpi(const std::string& args) {
  return run_command("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe " +
                     std::string(GRASPSIM_CLI) + " " + args + " 2>&1");
}

const auto comparable = comparable_results;

TEST(SweepMpi, TwoRanksGiveWhatOneThreadGives) {
  for (const std::string name : {"hold_grid", "push_randomized"}) {
    const fs::path one = fresh_dir("sweep_one_" + name), ranks = fresh_dir("sweep_ranks_" + name);
    const Result a = run_cli("sweep " + kSweeps + name + ".yaml --jobs 1 --quiet --out " + one.string());
    ASSERT_EQ(a.exit_code, 0) << a.output;
    const Result b = run_mpi("sweep " + kSweeps + name + ".yaml --out " + ranks.string());
    ASSERT_EQ(b.exit_code, 0) << b.output;
    EXPECT_NE(b.output.find("(all ranks)"), std::string::npos) << b.output;
    const auto x = comparable(one / "results.jsonl");
    EXPECT_FALSE(x.empty());
    EXPECT_EQ(x, comparable(ranks / "results.jsonl")) << name;
    fs::remove_all(one), fs::remove_all(ranks);
  }
}

// SIGTERM to mpirun reaches every rank: the jobs in flight are dropped, the finished ones
// stay, and --resume runs exactly the rest.
TEST(SweepMpi, StoppedSweepResumesWithoutRepeatingAJob) {
  const fs::path dir = fresh_dir("sweep_mpi_stop"), whole = fresh_dir("sweep_mpi_whole");
  fs::create_directories(dir);
  // 96 jobs of a 6 s hold: about 5 s on one core, stopped after 1 s.
  std::ofstream(dir / "s.yaml") << "scene: " << GRASPSIM_SOURCE_DIR << "/scenes/validation/grasp_hold.yaml\n"
                                << "set: {hold_s: 6}\nsamples: 8\nparameters:\n  mu: {uniform: [0.1, 0.8]}\n"
                                << "  grip_force: {list: [0.5, 1, 2, 4, 8, 16]}\n  iterations: {list: [8, 16]}\n";
  const std::string sweep = (dir / "s.yaml").string(), out = (dir / "out").string();
  const Result first = run_cli("sweep " + sweep + " --jobs 1 --quiet --out " + whole.string());
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const Result stopped = run_mpi("sweep " + sweep + " --quiet --out " + out + " 2>&1 & pid=$!; sleep 1; kill -TERM $pid; wait $pid; exit $?");
  // (mpirun exits 1 when a rank exits non-zero, here 143; 0 if the sweep had already finished)
  if (stopped.exit_code != 0) {
    EXPECT_NE(stopped.output.find("finish it with --resume"), std::string::npos) << stopped.output;
  }
  const std::size_t done = comparable(fs::path(out) / "results.jsonl").size();
  const Result resumed = run_mpi("sweep " + sweep + " --resume --quiet --out " + out);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find(std::to_string(done) + " already done"), std::string::npos) << resumed.output;
  EXPECT_EQ(comparable(fs::path(out) / "results.jsonl"), comparable(whole / "results.jsonl"));
  fs::remove_all(dir), fs::remove_all(whole);
}

TEST(SweepMpi, BadSweepFileIsExitTwoWithFileAndLineOnce) {
  const fs::path dir = fresh_dir("sweep_mpi_bad");
  fs::create_directories(dir);
  std::ofstream(dir / "s.yaml") << "scene: " << GRASPSIM_SOURCE_DIR << "/scenes/validation/grasp_hold.yaml\n"
                                << "parameters:\n  mu: {linspace: [0, 1]}\n";
  const Result r = run_mpi("sweep " + (dir / "s.yaml").string() + " --out " + (dir / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string want = "s.yaml:3: parameter 'mu' linspace: expected a list of 3 values";
  const auto first = r.output.find(want);
  EXPECT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(want, first + 1), std::string::npos) << "printed by every rank:\n" << r.output;
  const Result t = run_cli("sweep " + (dir / "s.yaml").string() + " --out " + (dir / "out").string());
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.output.find(want), std::string::npos) << t.output;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace graspsim::test
