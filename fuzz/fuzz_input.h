#pragma once
// What every fuzz harness shares: the readers take file paths, so each input is written to
// a file of its own in a private folder (named so its reader accepts it), and the only
// exception a reader may throw on bad bytes is InputError (the CLI's exit 2). Anything
// else escaping (an internal error, exit 1), a crash or a hang is a finding.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.h"

namespace graspsim::fuzz {

// The harness's folder: /tmp/graspsim_fuzz_<pid>, created on first use.
inline const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    const auto d = std::filesystem::temp_directory_path() / ("graspsim_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

// Writes the input as `name` in the harness's folder; returns its path.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = work_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  return path.string();
}

// Runs `read` and accepts what a user would see as exit 0 or 2.
template <typename Read>
int run(Read&& read) {
  try {
    read();
  } catch (const InputError&) {
    // bad input, named: the expected outcome for most inputs
  }
  return 0;
}

}  // namespace graspsim::fuzz
