#pragma once
// A scene written from text to the test's temporary folder and loaded.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "io/scene.h"

namespace graspsim::test {

// The file's name carries the process id: ctest -j runs tests in parallel processes that
// share ::testing::TempDir(), and two SpookStack tests read each other's "stack.yaml"
// (the six-box column run as the ten-box one's scene, and failed).
inline Scene scene_from_text(const std::string& text, const std::string& name) {
  const std::string path = ::testing::TempDir() + name + "_" + std::to_string(::getpid()) + ".yaml";
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return load_scene(path, {});
}

}  // namespace graspsim::test
