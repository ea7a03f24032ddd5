#include "io/recorder.h"

#include <cmath>
#include <fstream>
#include <numbers>

#include "core/error.h"
#include "io/atomic_file.h"
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

Recorder::Recorder(const std::filesystem::path& dir, const Model&, const RecordingOptions& options)
    : dir_(dir), options_(options) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  require(!ec, dir_.string(), "cannot create output directory: " + ec.message());
  if (options_.bodies) bodies_ = open_csv(dir_ / "bodies.csv", "t,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz\n");
  if (options_.joints) joints_ = open_csv(dir_ / "joints.csv", "t,joint,q,v,effort\n");
  if (options_.contacts)
    contacts_ = open_csv(dir_ / "contacts.csv",
                         "t,body_a,body_b,px,py,pz,nx,ny,nz,depth,fn,ftx,fty,ftz,slipx,slipy,slipz,cone_error,"
                         "alignment_error_deg,torsion\n");
}

Recorder::~Recorder() {
  if (bodies_) std::fclose(bodies_);
  if (joints_) std::fclose(joints_);
  if (contacts_) std::fclose(contacts_);
}

void Recorder::record(const Model& model, const State& state, const Workspace& ws, const StepResult* result) {
  if (calls_++ % options_.every != 0) return;
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

void Recorder::write_run_json(const nlohmann::json& run) const {
  write_atomically(dir_ / "run.json", json_text(run, 2) + "\n");
}

}  // namespace graspsim
