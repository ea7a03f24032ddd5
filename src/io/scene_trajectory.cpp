// The `trajectories` section: a frame's world poses at waypoint times become the command
// signals of the position servos that move it, by inverse kinematics (control/ik.h).
//
// IK needs a Model, so the section is read last: the builder, holding everything else the
// scene defines, builds a model; IK runs on it every sample_dt, each sample seeded from
// the previous solution; the commands (and, with `start`, the joints' initial q) go back
// into the builder, which load_scene then builds for good. The throwaway build costs what
// a build costs (meshes are loaded once, before it) and keeps Model immutable.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "control/ik.h"
#include "core/error.h"
#include "io/scene_fields.h"
#include "io/scene_internal.h"

namespace graspsim::scene_detail {
namespace {

// IK must bring every sample this close, or the pose counts as out of reach.
constexpr double kReachPosition = 1e-3;  // m
constexpr double kReachRotation = 1e-2;  // rad

struct Waypoint {
  double t = 0.0;
  Pose pose;
  Location loc;
};

struct TrajectoryDef {
  std::string section;                 // "trajectories item 1 (frame 'gripper_tcp')"
  Location loc;
  std::string frame;
  Location frame_loc;
  std::vector<std::pair<std::string, Location>> actuators;
  double sample_dt = 0.02;
  bool start = true;
  double orientation_weight = 1.0;
  std::vector<Waypoint> waypoints;
};

std::string fixed(double x, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

TrajectoryDef read_trajectory(const YamlNode& n, size_t index) {
  TrajectoryDef d;
  d.section = "trajectories item " + std::to_string(index + 1);
  expect_map(n, d.section);
  check_keys(n, d.section, {"frame", "actuators", "sample_dt", "start", "orientation_weight", "waypoints"});
  d.loc = n.loc;
  const YamlNode& frame = require_key(n, "frame", d.section);
  d.frame = as_string(frame, "frame");
  d.frame_loc = frame.loc;
  d.section += " (frame '" + d.frame + "')";
  const YamlNode& acts = require_key(n, "actuators", d.section);
  expect_sequence(acts, "actuators");
  if (acts.items.empty()) throw InputError(acts.loc.str() + ": " + d.section + ": key 'actuators': the list is empty");
  for (size_t i = 0; i < acts.items.size(); ++i) {
    const std::string name = as_string(acts.items[i], "actuators[" + std::to_string(i) + "]");
    for (const auto& [other, loc] : d.actuators)
      if (other == name) throw InputError(acts.items[i].loc.str() + ": " + d.section + ": actuator '" + name + "' is listed twice");
    d.actuators.emplace_back(name, acts.items[i].loc);
  }
  if (const YamlNode* v = n.find("sample_dt")) {
    d.sample_dt = as_number(*v, "sample_dt");
    if (d.sample_dt <= 0.0) throw InputError(v->loc.str() + ": key 'sample_dt': must be positive");
  }
  if (const YamlNode* v = n.find("start")) d.start = as_bool(*v, "start");
  if (const YamlNode* v = n.find("orientation_weight")) {
    d.orientation_weight = as_number(*v, "orientation_weight");
    if (d.orientation_weight < 0.0) throw InputError(v->loc.str() + ": key 'orientation_weight': must be >= 0");
  }
  const YamlNode& wps = require_key(n, "waypoints", d.section);
  expect_sequence(wps, "waypoints");
  if (wps.items.empty()) throw InputError(wps.loc.str() + ": " + d.section + ": key 'waypoints': the list is empty");
  for (size_t i = 0; i < wps.items.size(); ++i) {
    const YamlNode& w = wps.items[i];
    const std::string where = "waypoint " + std::to_string(i + 1) + " of " + d.section;
    expect_map(w, "waypoints");
    check_keys(w, where, {"t", "pos", "quat", "euler_deg"});
    Waypoint p;
    p.loc = w.loc;
    const YamlNode& t = require_key(w, "t", where);
    p.t = as_number(t, "t");
    if (p.t < 0.0) throw InputError(t.loc.str() + ": key 't': must be >= 0");
    if (!d.waypoints.empty() && !(p.t > d.waypoints.back().t))
      throw InputError(t.loc.str() + ": " + where + ": waypoint times must increase strictly (t = " + format_number(p.t) +
                       " after " + format_number(d.waypoints.back().t) + ")");
    require_key(w, "pos", where);
    p.pose = read_pose(w);
    d.waypoints.push_back(p);
  }
  return d;
}

// The sample times: every sample_dt from the first waypoint, and each waypoint's own time.
std::vector<double> sample_times(const TrajectoryDef& d) {
  const double t0 = d.waypoints.front().t, t1 = d.waypoints.back().t;
  std::vector<double> t;
  for (const Waypoint& w : d.waypoints) t.push_back(w.t);
  for (long k = 1;; ++k) {
    const double tk = t0 + static_cast<double>(k) * d.sample_dt;
    if (tk >= t1) break;
    t.push_back(tk);
  }
  std::sort(t.begin(), t.end());
  std::vector<double> out;
  for (double x : t)  // grid points within a nanosecond of a waypoint fold into it
    if (out.empty() || x - out.back() > 1e-9) out.push_back(x);
    else if (std::any_of(d.waypoints.begin(), d.waypoints.end(), [&](const Waypoint& w) { return w.t == x; })) out.back() = x;
  return out;
}

// The frame's pose at time t (position linear, orientation slerp), and the waypoint that
// names it in messages (the one at t, else the end of t's segment).
Pose pose_at(const std::vector<Waypoint>& w, double t, const Waypoint*& named) {
  size_t i = 0;
  while (i + 1 < w.size() && w[i + 1].t <= t) ++i;
  if (i + 1 == w.size() || w[i].t == t) {
    named = &w[i];
    return w[i].pose;
  }
  named = &w[i + 1];
  const double s = (t - w[i].t) / (w[i + 1].t - w[i].t);
  return {(1.0 - s) * w[i].pose.p + s * w[i + 1].pose.p, w[i].pose.q.slerp(s, w[i + 1].pose.q).normalized()};
}

// The names of every site and body, for "did you mean".
std::vector<std::string> frame_names(const Model& m) {
  std::vector<std::string> names;
  for (const Site& s : m.sites) names.push_back(s.name);
  for (const Body& b : m.bodies) names.push_back(b.name);
  return names;
}

// Commands from `controls:` or an actuator's own `command:` for an actuator a trajectory drives.
void check_no_other_command(const YamlNode& root, const std::map<std::string, const TrajectoryDef*>& driven) {
  auto conflict = [&](const Location& loc, const std::string& what, const std::string& name) {
    const TrajectoryDef& t = *driven.at(name);
    throw InputError(loc.str() + ": " + what + ": actuator '" + name + "' is driven by " + t.section + " (" + t.loc.str() +
                     "): its command is generated, give it no other");
  };
  if (const YamlNode* controls = root.find("controls"); controls && controls->is_sequence())
    for (size_t i = 0; i < controls->items.size(); ++i) {
      const YamlNode& c = controls->items[i];
      const YamlNode* a = c.is_map() ? c.find("actuator") : nullptr;
      if (a && a->is_scalar() && driven.count(a->scalar)) conflict(c.loc, "controls item " + std::to_string(i + 1), a->scalar);
    }
  if (const YamlNode* acts = root.find("actuators"); acts && acts->is_sequence())
    for (const YamlNode& a : acts->items) {
      const YamlNode* name = a.is_map() ? a.find("name") : nullptr;
      const YamlNode* command = a.is_map() ? a.find("command") : nullptr;
      if (name && name->is_scalar() && command && driven.count(name->scalar))
        conflict(command->loc, "actuator '" + name->scalar + "'", name->scalar);
    }
}

}  // namespace

void read_trajectories(const YamlNode& root, ModelBuilder& builder) {
  const YamlNode* section = root.find("trajectories");
  if (!section || section->is_null()) return;
  expect_sequence(*section, "trajectories");
  std::vector<TrajectoryDef> defs;
  std::map<std::string, const TrajectoryDef*> driven;  // actuator → its trajectory
  for (size_t i = 0; i < section->items.size(); ++i) defs.push_back(read_trajectory(section->items[i], i));
  for (const TrajectoryDef& d : defs)
    for (const auto& [name, loc] : d.actuators)
      if (!driven.emplace(name, &d).second)
        throw InputError(loc.str() + ": " + d.section + ": actuator '" + name + "' is already driven by " +
                         driven.at(name)->section + " (" + driven.at(name)->loc.str() + ")");
  check_no_other_command(root, driven);
  if (defs.empty()) return;

  const std::shared_ptr<const Model> built = builder.build();
  const Model& model = *built;
  VecX q_start = model.q0;  // with the starts of the trajectories before
  for (const TrajectoryDef& d : defs) {
    IkTarget target;
    try {
      target = ik_target(model, d.frame);
    } catch (const InputError&) {
      throw InputError(d.frame_loc.str() + ": " + d.section + ": key 'frame': no site or body '" + d.frame + "'" +
                       did_you_mean(d.frame, frame_names(model)));
    }
    // Each actuator a position servo on its own 1-dof joint: IK moves those joints.
    std::vector<int> dofs, actuator_ids;
    std::set<int> joints;
    for (const auto& [name, loc] : d.actuators) {
      const std::string where = loc.str() + ": " + d.section + ": actuator '" + name + "'";
      const int a = model.find_actuator(name);
      if (a < 0) {
        std::vector<std::string> names;
        for (const Actuator& x : model.actuators) names.push_back(x.name);
        throw InputError(loc.str() + ": " + d.section + ": no actuator '" + name + "'" + did_you_mean(name, names));
      }
      const Actuator& act = model.actuators[static_cast<size_t>(a)];
      if (act.type != ActuatorType::Position)
        throw InputError(where + " is a " + to_string(act.type) + " actuator, not a position servo");
      if (act.joint < 0 || act.transmission.size() != 1)
        throw InputError(where + " drives a tendon, not one joint");
      if (act.ctrl_gain == 0.0) throw InputError(where + " has control gain 0: no command moves its set point");
      const Joint& j = model.joints[static_cast<size_t>(act.joint)];
      if (!joints.insert(act.joint).second)
        throw InputError(where + ": joint '" + j.name + "' is driven by another actuator of the list");
      dofs.push_back(act.transmission[0].vadr);
      actuator_ids.push_back(a);
    }

    IkOptions options;
    options.orientation_weight = d.orientation_weight;
    const std::vector<double> times = sample_times(d);
    std::vector<std::vector<double>> commands(d.actuators.size());
    VecX q = q_start, q_first;
    for (size_t k = 0; k < times.size(); ++k) {
      const Waypoint* named = nullptr;
      const Pose X_WT = pose_at(d.waypoints, times[k], named);
      // The first sample may start far from the model's initial configuration.
      options.max_iterations = k == 0 ? 1000 : 200;
      const IkResult r = solve_ik(model, target, X_WT, dofs, q, options);
      const bool rotation_ok = d.orientation_weight == 0.0 || r.rotation_error <= kReachRotation;
      if (r.position_error > kReachPosition || !rotation_ok)
        throw InputError(named->loc.str() + ": " + d.section + ": the pose at t = " + format_number(times[k]) +
                         " s is out of reach: inverse kinematics ends " + fixed(r.position_error * 1e3, "%.3g") + " mm and " +
                         fixed(r.rotation_error, "%.3g") + " rad from it (workspace or joint limits)");
      q = r.q;
      if (k == 0) q_first = q;
      for (size_t i = 0; i < actuator_ids.size(); ++i) {
        const Actuator& act = model.actuators[static_cast<size_t>(actuator_ids[i])];
        const TransmissionTerm& term = act.transmission[0];
        // The set point ctrl_gain·ctrl + ctrl_bias equals the servo's length coef·q.
        const double ctrl = (term.coef * q[term.qadr] - act.ctrl_bias) / act.ctrl_gain;
        if (ctrl < act.ctrl_min - 1e-9 || ctrl > act.ctrl_max + 1e-9)
          throw InputError(named->loc.str() + ": " + d.section + ": at t = " + format_number(times[k]) + " s actuator '" +
                           act.name + "' needs the command " + format_number(ctrl) + ", outside its range [" +
                           format_number(act.ctrl_min) + ", " + format_number(act.ctrl_max) + "]");
        commands[i].push_back(std::clamp(ctrl, act.ctrl_min, act.ctrl_max));
      }
    }
    for (size_t i = 0; i < actuator_ids.size(); ++i) {
      const Actuator& act = model.actuators[static_cast<size_t>(actuator_ids[i])];
      builder.set_command(act.name, Signal{times, commands[i], Signal::Interp::Linear}, d.loc.str());
      if (d.start) {
        const Joint& j = model.joints[static_cast<size_t>(act.joint)];
        builder.set_initial_q(j.name, q_first.segment(j.qadr, j.nq), d.loc.str());
        q_start.segment(j.qadr, j.nq) = q_first.segment(j.qadr, j.nq);
      }
    }
  }
}

}  // namespace graspsim::scene_detail
