#pragma once
// Running the graspsim CLI from the tests: its exit code and output, test data and scratch folders.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace graspsim::test {

namespace fs = std::filesystem;

struct Result {
  int exit_code;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line (stdout and stderr captured together).
inline Result run_command(const std::string& cmd) {
  Result r{-1, ""};
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), pipe)) r.output += buf.data();
  const int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline Result run_cli(const std::string& args) { return run_command(std::string(GRASPSIM_CLI) + " " + args + " 2>&1"); }

inline std::string data(const std::string& name) { return std::string(GRASPSIM_SOURCE_DIR) + "/tests/cli/data/" + name; }

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("graspsim_cli_test_" + name);
  fs::remove_all(dir);
  return dir;
}

}  // namespace graspsim::test
