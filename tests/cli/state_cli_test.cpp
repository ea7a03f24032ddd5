// The command line's checkpoints: `run` leaves OUT/state.bin, `run --from-state FILE`
// continues from it, and a bad state file is bad input (exit 2, the file named).

#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_util.h"

namespace {

namespace fs = std::filesystem;
using namespace graspsim::test;

const std::string kPush =
    std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/push.yaml --set parameters.contact=0.8";

TEST(CliState, RunContinuesFromItsStateFile) {
  const fs::path whole = fresh_dir("state_whole"), first = fresh_dir("state_first"), second = fresh_dir("state_second");
  ASSERT_EQ(run_cli("run " + kPush + " --duration 1 --out " + whole.string()).exit_code, 0);
  ASSERT_EQ(run_cli("run " + kPush + " --duration 0.5 --out " + first.string()).exit_code, 0);
  ASSERT_TRUE(fs::exists(first / "state.bin"));
  const Result r = run_cli("run " + kPush + " --duration 0.5 --from-state " + (first / "state.bin").string() +
                           " --out " + second.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // The same final state, byte for byte, as the run that never stopped.
  EXPECT_EQ(slurp(second / "state.bin"), slurp(whole / "state.bin"));
  const auto run = nlohmann::json::parse(slurp(second / "run.json"));
  EXPECT_EQ(run["from_state"], (first / "state.bin").string());
  EXPECT_EQ(run["summary"]["steps"], 30);
  EXPECT_NEAR(run["summary"]["sim_time"].get<double>(), 1.0, 1e-12);
  // The continued recording starts where the first one ended.
  const std::string bodies = slurp(second / "bodies.csv");
  const size_t row = bodies.find('\n') + 1;
  EXPECT_NEAR(std::stod(bodies.substr(row, bodies.find(',', row) - row)), 0.5, 1e-12) << bodies.substr(0, 200);
  for (const fs::path& d : {whole, first, second}) fs::remove_all(d);
}

TEST(CliState, TruncatedStateFileExitsTwo) {
  const fs::path a = fresh_dir("state_trunc_a"), b = fresh_dir("state_trunc_b");
  ASSERT_EQ(run_cli("run " + kPush + " --duration 0.1 --out " + a.string()).exit_code, 0);
  const fs::path state = a / "state.bin";
  fs::resize_file(state, fs::file_size(state) / 2);
  const Result r = run_cli("run " + kPush + " --duration 0.1 --from-state " + state.string() + " --out " + b.string());
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(state.string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("truncated"), std::string::npos) << r.output;
  // Nothing was run or recorded.
  EXPECT_FALSE(fs::exists(b / "run.json"));
  fs::remove_all(a);
  fs::remove_all(b);
}

TEST(CliState, MissingOrForeignStateFileExitsTwo) {
  const fs::path a = fresh_dir("state_foreign_a"), b = fresh_dir("state_foreign_b");
  const Result missing =
      run_cli("run " + kPush + " --from-state " + (a / "nope.bin").string() + " --out " + b.string());
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("nope.bin"), std::string::npos) << missing.output;
  // A state of another scene's model.
  ASSERT_EQ(run_cli("run " + data("falling_box.yaml") + " --duration 0.01 --out " + a.string()).exit_code, 0);
  const Result foreign =
      run_cli("run " + kPush + " --from-state " + (a / "state.bin").string() + " --out " + b.string());
  EXPECT_EQ(foreign.exit_code, 2) << foreign.output;
  EXPECT_NE(foreign.output.find("another model"), std::string::npos) << foreign.output;
  fs::remove_all(a);
  fs::remove_all(b);
}

}  // namespace
