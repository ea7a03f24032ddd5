#include "io/recorder.h"

#include <cmath>
#include <fstream>
#include <numbers>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/geometry_file.h"
#include "io/json_text.h"
#include "kinematics/kinematics.h"

namespace graspsim {
namespace {

std::FILE* open_csv(const std::filesystem::path& path, const char* header) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  require(f != nullptr, path.string(), "cannot open for writing");
  std::fputs(header, f);
  std::fflush(f);
  return f;
}

}  // namespace

namespace {

// A joint's name, or its body's for an unnamed one.
const std::string& joint_label(const Model& model, const Joint& j) {
  return j.name.empty() ? model.bodies[j.body].name : j.name;
}

// Column names of the joints' q: a 1-dof joint by its name, a free or ball joint by its
// name (or its body's) with the coordinate's suffix; `qadr` gets their q indices.
std::string q_columns(const Model& model, const std::vector<int>& joints, std::vector<int>& qadr) {
  std::string out;
  for (int ji : joints) {
    const Joint& j = model.joints[ji];
    for (int k = 0; k < j.nq; ++k) qadr.push_back(j.qadr + k);
    const std::string& base = joint_label(model, j);
    if (j.nq == 1) out += "," + base;
    else if (j.type == JointType::Free)
      for (const char* c : {"x", "y", "z", "qw", "qx", "qy", "qz"}) out += "," + base + "_" + c;
    else if (j.type == JointType::Ball)
      for (const char* c : {"qw", "qx", "qy", "qz"}) out += "," + base + "_" + c;
  }
  return out;
}

// The name of velocity dof d (its joint's, with the dof's index for multi-dof joints).
std::string dof_name(const Model& model, int d) {
  for (const Joint& j : model.joints)
    if (d >= j.vadr && d < j.vadr + j.nv) {
      const std::string& base = joint_label(model, j);
      return j.nv == 1 ? base : base + "_" + std::to_string(d - j.vadr);
    }
  return "dof" + std::to_string(d);
}

}  // namespace

Recorder::Recorder(const std::filesystem::path& dir, const Model& model, const RecordingOptions& options,
                   bool quasistatic)
    : dir_(dir), options_(options) {
  for (const auto& [a, b] : options.normal_forces) {
    const int ga = model.find_geom(a), gb = model.find_geom(b);
    require(ga >= 0, "recording: normal_forces", "no geom named '" + a + "'");
    require(gb >= 0, "recording: normal_forces", "no geom named '" + b + "'");
    force_pairs_.emplace_back(ga, gb);
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  require(!ec, dir_.string(), "cannot create output directory: " + ec.message());
  if (options_.bodies) {
    bodies_ = open_csv(dir_ / "bodies.csv", "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n");
    write_geometry_file(dir_ / "geometry.json", model);  // what the viewer draws them with
  }
  if (options_.joints) joints_ = open_csv(dir_ / "joints.csv", "t,joint,q,v,effort\n");
  if (options_.contacts)
    contacts_ = open_csv(dir_ / "contacts.csv",
                         "t,body_a,body_b,px,py,pz,nx,ny,nz,depth,fn,ftx,fty,ftz,slipx,slipy,slipz,cone_error,"
                         "alignment_error_deg,torsion\n");
  if (quasistatic) {
    std::vector<int> joints;
    for (const std::string& name : options.configuration) {
      joints.push_back(model.find_joint(name));
      require(joints.back() >= 0, "recording: configuration", "no joint named '" + name + "'");
    }
    if (joints.empty())
      for (int j = 0; j < model.njoint(); ++j) joints.push_back(j);
    std::string header = "step" + q_columns(model, joints, q_columns_);
    for (size_t k = 0; k < force_pairs_.size(); ++k) header += ",lambda_n" + std::to_string(k + 1);
    quasistatic_ = open_csv(dir_ / "quasistatic.csv", (header + "\n").c_str());
    std::string steps = "step,t,solver,binaries,nodes,solve_ms,objective,big_m_active,force_balance,complementarity,proven";
    for (int d = 0; d < model.nv; ++d) steps += ",cmd_" + dof_name(model, d) + ",dq_" + dof_name(model, d);
    steps += ",stabilized";
    quasistatic_steps_ = open_csv(dir_ / "quasistatic_steps.csv", (steps + "\n").c_str());
  }
}

Recorder::~Recorder() {
  if (bodies_) std::fclose(bodies_);
  if (joints_) std::fclose(joints_);
  if (contacts_) std::fclose(contacts_);
  if (quasistatic_) std::fclose(quasistatic_);
  if (quasistatic_steps_) std::fclose(quasistatic_steps_);
}

void Recorder::record(const Model& model, const State& state, const Workspace& ws, const StepResult* result) {
  if (calls_++ % options_.every != 0) return;
  if (result && result->quasistatic.valid) record_quasistatic(model, state, *result);
  // %.17g round-trips doubles exactly: recordings are bit-comparable across runs.
  if (bodies_) {
    for (int b = 1; b < model.nbody(); ++b) {
      const Pose& X = ws.kin.X_WB[b];
      Vec3 w, v;
      body_velocity(model, ws.kin, state.v, b, w, v);
      std::fprintf(bodies_, "%.17g,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                   state.t, model.bodies[b].name.c_str(), X.p.x(), X.p.y(), X.p.z(), X.q.w(), X.q.x(), X.q.y(),
                   X.q.z(), v.x(), v.y(), v.z(), w.x(), w.y(), w.z());
    }
    std::fflush(bodies_);
  }
  if (joints_) {
    joint_effort_.assign(model.joints.size(), 0.0);
    for (size_t a = 0; a < model.actuators.size() && static_cast<Eigen::Index>(a) < ws.actuator_effort.size(); ++a)
      for (const TransmissionTerm& t : model.actuators[a].transmission)
        joint_effort_[t.joint] += t.coef * ws.actuator_effort[static_cast<Eigen::Index>(a)];
    for (size_t k = 0; k < model.joints.size(); ++k) {
      const Joint& j = model.joints[k];
      if (j.nv != 1) continue;  // free and ball joints are in bodies.csv
      std::fprintf(joints_, "%.17g,%s,%.17g,%.17g,%.17g\n", state.t, j.name.c_str(), state.q[j.qadr], state.v[j.vadr],
                   joint_effort_[k]);
    }
    std::fflush(joints_);
  }
  if (contacts_ && result) {
    for (const ContactResult& c : result->contacts) {
      // Alignment is undefined while sticking: an empty field, not a made-up number.
      char alignment[32] = "";
      if (!std::isnan(c.alignment_error))
        std::snprintf(alignment, sizeof alignment, "%.17g", c.alignment_error * 180.0 / std::numbers::pi);
      std::fprintf(contacts_,
                   "%.17g,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%s,%.17g\n",
                   state.t, model.bodies[c.body_a].name.c_str(), model.bodies[c.body_b].name.c_str(), c.position.x(),
                   c.position.y(), c.position.z(), c.normal.x(), c.normal.y(), c.normal.z(), c.depth, c.fn, c.ft.x(),
                   c.ft.y(), c.ft.z(), c.slip.x(), c.slip.y(), c.slip.z(), c.cone_error, alignment, c.torsion);
    }
    std::fflush(contacts_);
  }
}

void Recorder::record_quasistatic(const Model& model, const State& state, const StepResult& result) {
  const QuasistaticStepInfo& qs = result.quasistatic;
  if (quasistatic_) {
    std::fprintf(quasistatic_, "%llu", static_cast<unsigned long long>(state.step));
    for (int i : q_columns_) std::fprintf(quasistatic_, ",%.17g", qs.q_before[i]);
    pair_force_.assign(force_pairs_.size(), 0.0);
    for (const ContactResult& c : result.contacts)
      for (size_t k = 0; k < force_pairs_.size(); ++k) {
        const auto [ga, gb] = force_pairs_[k];
        if ((c.geom_a == ga && c.geom_b == gb) || (c.geom_a == gb && c.geom_b == ga)) pair_force_[k] += c.fn;
      }
    for (double f : pair_force_) std::fprintf(quasistatic_, ",%.17g", f);
    std::fputc('\n', quasistatic_);
    std::fflush(quasistatic_);
  }
  if (quasistatic_steps_) {
    std::fprintf(quasistatic_steps_, "%llu,%.17g,%s,%d,%d,%.6g,%.17g,%d,%.3g,%.3g,%d",
                 static_cast<unsigned long long>(state.step), state.t, result.solver.c_str(), qs.binaries, qs.nodes,
                 qs.solve_ms, qs.objective, qs.big_m_active ? 1 : 0, qs.force_balance, qs.complementarity, qs.proven ? 1 : 0);
    // Every dof has a column pair; an unactuated one's are empty.
    std::vector<int> slot(model.nv, -1);
    for (size_t i = 0; i < qs.actuated_dofs.size(); ++i) slot[qs.actuated_dofs[i]] = static_cast<int>(i);
    for (int d = 0; d < model.nv; ++d) {
      if (slot[d] < 0) std::fputs(",,", quasistatic_steps_);
      else std::fprintf(quasistatic_steps_, ",%.17g,%.17g", qs.dq_command[slot[d]], qs.dq[slot[d]]);
    }
    std::fprintf(quasistatic_steps_, ",%.3g", qs.stabilized);
    std::fputc('\n', quasistatic_steps_);
    std::fflush(quasistatic_steps_);
  }
}

void Recorder::write_run_json(const nlohmann::json& run) const {
  write_atomically(dir_ / "run.json", json_text(run, 2) + "\n");
}

}  // namespace graspsim
