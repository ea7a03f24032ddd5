#include "io/contacts_report.h"

#include <cstdio>

#include "collision/broadphase.h"
#include "collision/distance.h"
#include "collision/mesh_tools.h"
#include "collision/overlap.h"
#include "collision/tessellate.h"
#include "core/error.h"
#include "kinematics/kinematics.h"

namespace graspsim {
namespace {

nlohmann::json vec(const Vec3& v) { return {v.x(), v.y(), v.z()}; }

nlohmann::json pair_json(const Model& m, int ga, int gb) {
  return {{"geom_a", m.geoms[ga].name},
          {"geom_b", m.geoms[gb].name},
          {"body_a", m.bodies[m.geoms[ga].body].name},
          {"body_b", m.bodies[m.geoms[gb].body].name}};
}

bool is_solid(GeomType t) { return t != GeomType::Plane; }

}  // namespace

nlohmann::json contacts_report(const Model& model, const State& state, const ContactsReportOptions& opt) {
  KinematicsData kin;
  forward_kinematics(model, state.q, kin);
  std::vector<Pose> X(model.ngeom());
  for (int g = 0; g < model.ngeom(); ++g) X[g] = geom_pose(model, kin, g);

  nlohmann::json report = {{"time", state.t}, {"contacts", nlohmann::json::array()},
                           {"distances", nlohmann::json::array()}, {"overlaps", nlohmann::json::array()}};
  CollideOptions copt;
  copt.margin = opt.margin;
  Broadphase bp;
  std::vector<ContactSet> sets;
  collide(model, X, copt, bp, sets);
  for (const ContactSet& cs : sets) {
    nlohmann::json j = pair_json(model, cs.geom_a, cs.geom_b);
    j["patch_area"] = cs.patch_area;
    j["points"] = nlohmann::json::array();
    for (const ContactPoint& p : cs.points)
      j["points"].push_back({{"position", vec(p.position)}, {"normal", vec(p.normal)}, {"depth", p.depth},
                             {"area", p.area}, {"feature", p.feature}});
    report["contacts"].push_back(j);
  }

  // Every pair the filters allow, not only the broadphase's: a debugging tool should also
  // show what is just out of reach.
  for (int a = 0; a < model.ngeom(); ++a)
    for (int b = a + 1; b < model.ngeom(); ++b) {
      if (!geoms_may_collide(model, a, b)) continue;
      nlohmann::json j = pair_json(model, a, b);
      try {
        DistanceResult d;
        if (!signed_distance(model, a, X[a], b, X[b], opt.distance, d)) continue;
        j["distance"] = d.distance;
        j["point_a"] = vec(d.point_a);
        j["point_b"] = vec(d.point_b);
        j["normal"] = vec(d.normal);
        report["distances"].push_back(j);
        if (d.distance < 0.0 && is_solid(model.geoms[a].type) && is_solid(model.geoms[b].type)) {
          const Mesh ma = tessellate(model, a, opt.resolution), mb = tessellate(model, b, opt.resolution);
          const OverlapResult o = overlap_volume(ma, X[a], mb, X[b]);
          nlohmann::json oj = pair_json(model, a, b);
          oj["volume"] = o.volume;
          oj["centroid"] = vec(o.centroid);
          oj["boundary_triangles_a"] = o.boundary_a.size();
          oj["boundary_triangles_b"] = o.boundary_b.size();
          report["overlaps"].push_back(oj);
        }
      } catch (const InputError& e) {
        j["error"] = e.what();
        report["distances"].push_back(j);
      }
    }
  return report;
}

std::string format_contacts_report(const nlohmann::json& r) {
  std::string out;
  char line[512];
  auto name = [](const nlohmann::json& j) {
    return j["geom_a"].get<std::string>() + " (" + j["body_a"].get<std::string>() + ") / " +
           j["geom_b"].get<std::string>() + " (" + j["body_b"].get<std::string>() + ")";
  };
  out += "contacts at t = " + r["time"].dump() + " s: " + std::to_string(r["contacts"].size()) + " pairs\n";
  for (const auto& c : r["contacts"]) {
    std::snprintf(line, sizeof line, "  %s, patch area %.4g m^2\n", name(c).c_str(), c["patch_area"].get<double>());
    out += line;
    for (const auto& p : c["points"]) {
      std::snprintf(line, sizeof line, "    p [% .5f % .5f % .5f]  n [% .4f % .4f % .4f]  depth % .6f m  area %.3g\n",
                    p["position"][0].get<double>(), p["position"][1].get<double>(), p["position"][2].get<double>(),
                    p["normal"][0].get<double>(), p["normal"][1].get<double>(), p["normal"][2].get<double>(),
                    p["depth"].get<double>(), p["area"].get<double>());
      out += line;
    }
  }
  out += "signed distances (pairs within reach):\n";
  for (const auto& d : r["distances"]) {
    if (d.contains("error")) {
      out += "  " + name(d) + ": " + d["error"].get<std::string>() + "\n";
      continue;
    }
    std::snprintf(line, sizeof line, "  %s: % .6f m\n", name(d).c_str(), d["distance"].get<double>());
    out += line;
  }
  out += "overlap volumes:\n";
  for (const auto& o : r["overlaps"]) {
    std::snprintf(line, sizeof line, "  %s: %.6g m^3 at [% .5f % .5f % .5f]\n", name(o).c_str(), o["volume"].get<double>(),
                  o["centroid"][0].get<double>(), o["centroid"][1].get<double>(), o["centroid"][2].get<double>());
    out += line;
  }
  return out;
}

}  // namespace graspsim
