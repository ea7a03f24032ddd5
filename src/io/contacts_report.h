#pragma once
// What the collision layer sees in a scene's initial state: contact manifolds, signed
// distances of near pairs and overlap volumes. Backs `graspsim contacts`, the tool to
// reach for when a grasp misbehaves.

#include <nlohmann/json.hpp>

#include "model/model.h"
#include "model/state.h"

namespace graspsim {

struct ContactsReportOptions {
  double margin = 0.0;            // report contact points down to −margin (m)
  double distance = 0.05;         // signed distances of pairs closer than this (m)
  int resolution = 32;            // tessellation of curved primitives for overlap volumes
};

// JSON with "contacts", "distances" and "overlaps" arrays (geoms and bodies by name).
// Pairs a query does not support are listed with an "error" entry instead of failing.
nlohmann::json contacts_report(const Model& model, const State& state, const ContactsReportOptions& options);

// The same as aligned text for a terminal.
std::string format_contacts_report(const nlohmann::json& report);

}  // namespace graspsim
