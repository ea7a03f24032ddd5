#pragma once
// Helpers for the io tests: their data folder; TempDir and input_error (common/temp_dir.h).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "core/error.h"
#include "../common/temp_dir.h"

namespace graspsim::test {

inline std::string data_dir() { return std::string(GRASPSIM_SOURCE_DIR) + "/tests/io/data"; }


}  // namespace graspsim::test

// Asserts that `haystack` contains every one of the given substrings.
#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "message: " << (haystack) << "\nwanted: " << (needle)
