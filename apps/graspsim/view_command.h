#pragma once
// graspsim view: replays recorded runs in the browser viewer (web/), served on localhost or
// exported as a static folder that opens from disk.

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

struct ViewArgs {
  std::vector<std::string> runs;  // one run directory, or two played side by side
  std::string host = "127.0.0.1";
  int port = 8080;                // 0: any free port (printed)
  std::string export_dir;         // write a static copy here instead of serving
  std::string web_dir;            // the built viewer (default: the build tree's web/)
};

void add_view_command(CLI::App& app, ViewArgs& args);
// Serves until `stop` returns true (Ctrl-C), or exports; throws InputError for a run
// directory without recordings or a viewer that is not built.
int cmd_view(const ViewArgs& args, const std::function<bool()>& stop);
