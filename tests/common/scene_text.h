#pragma once
// A scene written from text to the test's temporary folder and loaded.

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "io/scene.h"

namespace graspsim::test {

inline Scene scene_from_text(const std::string& text, const std::string& name) {
  const std::string path = ::testing::TempDir() + name + ".yaml";
  std::FILE* f = std::fopen(path.c_str(), "w");
  std::fputs(text.c_str(), f);
  std::fclose(f);
  return load_scene(path, {});
}

}  // namespace graspsim::test
