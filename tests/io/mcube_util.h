#pragma once
// Shared by the MCube tests: where the vendored recordings live and how to list them.

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace graspsim::test {

inline std::string mcube_dir() { return std::string(GRASPSIM_SHARED_DIR) + "/data/mcube-push"; }

inline std::string mcube_file(const std::string& folder, const std::string& name) {
  return mcube_dir() + "/" + folder + "/motion_surface=" + name;
}

// Every .h5 / .json recording under `folder` (relative to mcube_dir()), sorted.
inline std::vector<std::string> mcube_files(const std::string& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(mcube_dir() + "/" + folder))
    if (e.path().extension() == ".h5" || e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace graspsim::test
