#pragma once
// JSON text that never throws on a string that is not UTF-8: the bytes of a corrupt input
// file can reach an error message, and writing that message must not end the program.
// Invalid bytes become U+FFFD.

#include <string>

#include <nlohmann/json.hpp>

namespace graspsim {

inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace graspsim
