#pragma once
// A sweep's results.jsonl as job -> line without the timings (fields named wall*): what must
// be bit-identical however the sweep ran (tests/sweep, tests/cli). A line cut by a kill is
// skipped; a job found twice fails the test.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace graspsim::test {

inline std::map<long, std::string> comparable_results(const std::filesystem::path& file) {
  std::map<long, std::string> out;
  std::ifstream in(file);
  for (std::string l; std::getline(in, l);) {
    nlohmann::json j = nlohmann::json::parse(l, nullptr, false);
    if (j.is_discarded()) continue;
    for (auto it = j.begin(); it != j.end();) it = it.key().rfind("wall", 0) == 0 ? j.erase(it) : std::next(it);
    EXPECT_TRUE(out.emplace(j["job"].get<long>(), j.dump()).second) << "job " << j["job"] << " twice in " << file;
  }
  return out;
}

}  // namespace graspsim::test
