#pragma once
// What a robot file asked for that graspsim does not do exactly: one line per distinct
// message, at its first place, with how often it occurred ("file.xml:12: <geom> attribute
// 'solref' ignored: ... (30 times)"), so a user sees every kind without a flood.

#include <map>
#include <string>
#include <vector>

#include "robots/xml_tree.h"

namespace graspsim {

class Warnings {
 public:
  void add(const XmlElement& at, const std::string& what) { add(at.where(), what); }
  void add(const std::string& where, const std::string& what) {
    auto [it, fresh] = seen_.try_emplace(what, where, 0);
    if (fresh) order_.push_back(what);
    ++it->second.second;
  }
  std::vector<std::string> list() const {
    std::vector<std::string> out;
    for (const auto& what : order_) {
      const auto& [where, count] = seen_.at(what);
      out.push_back(where + ": " + what + (count > 1 ? " (" + std::to_string(count) + " times)" : ""));
    }
    return out;
  }

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::pair<std::string, int>> seen_;
};

}  // namespace graspsim
