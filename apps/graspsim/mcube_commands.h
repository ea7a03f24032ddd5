#pragma once
// The MCube subcommands of the graspsim CLI (validate mcube, calibrate mcube).

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

struct McubeArgs {
  std::vector<std::string> paths, sets;
  std::string stepper, path_mode = "recorded", objects, surfaces;
  bool json = false;
  std::string out = "out/mcube";
  std::string surface;        // calibrate
  bool fit_pusher = false;    // calibrate
  double tolerance = 0.005;   // calibrate, validate --holdout: friction bracket width
  std::string holdout;        // validate: "", "shape" or "surface"
  double force_weight = 0.2;  // calibrate, validate --holdout: weight of the pusher's work in the fit (FitSettings)
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
};

void add_mcube_commands(CLI::App& app, McubeArgs& validate, McubeArgs& calibrate);
// Exit codes as the CLI's: 0 ok, 2 bad input (validate: any file failed; the others still ran).
int cmd_validate_mcube(const McubeArgs& args);
int cmd_calibrate_mcube(const McubeArgs& args);
