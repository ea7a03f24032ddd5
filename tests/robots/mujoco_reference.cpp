#include "mujoco_reference.h"

#include <mujoco/mujoco.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace graspsim::test {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("MujocoReference: cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

// `value` (a path from the file) as an absolute path, relative ones taken from `dir`.
std::string absolute_from(const std::string& dir, const std::string& value) {
  fs::path p(value);
  if (p.is_relative()) p = fs::path(dir) / p;
  return p.lexically_normal().string();
}

// Replaces every match of `re` in `text` by replace(match).
std::string replace_each(const std::string& text, const std::regex& re,
                         const std::function<std::string(const std::smatch&)>& replace) {
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
    out.append(last, text.cbegin() + it->position(0));
    out += replace(*it);
    last = text.cbegin() + it->position(0) + it->length(0);
  }
  out.append(last, text.cend());
  return out;
}

// A temporary directory (mkdtemp), removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "graspsim_mujoco_XXXXXX").string();
    if (!mkdtemp(pattern.data()))
      throw std::runtime_error("MujocoReference: mkdtemp failed: " + std::string(std::strerror(errno)));
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Writes `text` to `to`, then stages every file it includes. MuJoCo 2.2.2 resolves <include
// file> against the main file's directory, even absolute names, so an included file is
// copied to the same relative place next to the rewritten main file.
void stage(const std::string& text, const fs::path& to, const fs::path& main_dir, const fs::path& tmp, int depth) {
  if (depth > 16) throw std::runtime_error("MujocoReference: <include> nested too deeply");
  fs::create_directories(to.parent_path());
  {
    std::ofstream out(to, std::ios::binary);
    out << text;
    if (!out) throw std::runtime_error("MujocoReference: cannot write " + to.string());
  }
  const std::regex include_file(R"(<include\b[^>]*?\bfile\s*=\s*["']([^"']*)["'])");
  for (std::sregex_iterator it(text.begin(), text.end(), include_file), end; it != end; ++it) {
    const fs::path name = fs::path((*it)[1].str()).lexically_normal();
    if (name.is_absolute() || name.empty() || *name.begin() == "..")
      throw std::runtime_error("MujocoReference: cannot stage <include file=\"" + (*it)[1].str() + "\">");
    const fs::path source = main_dir / name;
    stage(MujocoReference::rewrite_for_mujoco(read_text(source.string()), main_dir.string(), false),
          tmp / name, main_dir, tmp, depth + 1);
  }
}

std::string name_or_empty(const mjModel* m, int type, int id) {
  const char* name = mj_id2name(m, type, id);
  return name ? std::string(name) : std::string();
}

}  // namespace

std::string MujocoReference::rewrite_for_mujoco(const std::string& xml, const std::string& dir, bool add_dirs) {
  // MuJoCo 2.2.2 knows no implicitfast integrator; drop the attribute (Euler remains).
  const std::regex implicitfast(R"(\s+integrator\s*=\s*("implicitfast"|'implicitfast'))");
  std::string out = std::regex_replace(xml, implicitfast, "");

  // Asset directories, relative to the original file's directory.
  const std::regex dir_attr(R"(\b(meshdir|texturedir|assetdir)(\s*=\s*)(["'])([^"']*)["'])");
  out = replace_each(out, dir_attr, [&](const std::smatch& m) {
    return m[1].str() + m[2].str() + "\"" + xml_escape(absolute_from(dir, m[4].str())) + "\"";
  });

  // Without meshdir (or texturedir), MuJoCo would look for assets next to the copy.
  if (add_dirs && !std::regex_search(out, std::regex(R"(\bassetdir\s*=)"))) {
    std::string add;
    const std::string abs_dir = xml_escape(fs::path(dir).lexically_normal().string());
    if (!std::regex_search(out, std::regex(R"(\bmeshdir\s*=)"))) add += " meshdir=\"" + abs_dir + "\"";
    if (!std::regex_search(out, std::regex(R"(\btexturedir\s*=)"))) add += " texturedir=\"" + abs_dir + "\"";
    if (!add.empty()) {
      std::smatch m;
      if (std::regex_search(out, m, std::regex(R"(<compiler\b)"))) {
        out.insert(static_cast<size_t>(m.position(0) + m.length(0)), add);
      } else if (std::regex_search(out, m, std::regex(R"(<mujoco\b[^>]*>)"))) {
        out.insert(static_cast<size_t>(m.position(0) + m.length(0)), "<compiler" + add + "/>");
      } else {
        throw std::runtime_error("MujocoReference: no <mujoco> element in the file");
      }
    }
  }
  return out;
}

MujocoReference::MujocoReference(const std::string& path) : path_(path) {
  const fs::path original = fs::absolute(fs::path(path));
  const std::string text = read_text(original.string());
  const std::string rewritten = rewrite_for_mujoco(text, original.parent_path().string());

  char error[1024] = "";
  {
    TempDir tmp;
    const fs::path copy = tmp.path() / original.filename();
    stage(rewritten, copy, original.parent_path(), tmp.path(), 0);
    model_ = mj_loadXML(copy.c_str(), nullptr, error, sizeof error);
  }  // the copies and their directory are removed here, loaded or not
  if (!model_)
    throw std::runtime_error("MuJoCo " + std::string(mj_versionString()) + " cannot load " + path + ": " + error);

  // Contacts change none of the outputs compared here; without them a configuration deep in
  // collision cannot overflow the contact buffer.
  model_->opt.disableflags |= mjDSBL_CONTACT;
  data_ = mj_makeData(model_);
  if (!data_) {
    mj_deleteModel(model_);
    throw std::runtime_error("MuJoCo: mj_makeData failed for " + path);
  }
}

MujocoReference::~MujocoReference() {
  if (data_) mj_deleteData(data_);
  if (model_) mj_deleteModel(model_);
}

MujocoCounts MujocoReference::counts() const {
  MujocoCounts c;
  c.bodies = model_->nbody - 1;
  c.joints = model_->njnt;
  c.dof = model_->nv;
  c.geoms = model_->ngeom;
  c.actuators = model_->nu;
  c.equality = model_->neq;
  c.tendons = model_->ntendon;
  return c;
}

int MujocoReference::nq() const { return model_->nq; }
int MujocoReference::nv() const { return model_->nv; }
int MujocoReference::nu() const { return model_->nu; }
int MujocoReference::nbody() const { return model_->nbody; }

std::string MujocoReference::body_name(int body) const { return name_or_empty(model_, mjOBJ_BODY, body); }

std::vector<MjJointInfo> MujocoReference::joints() const {
  std::vector<MjJointInfo> out(static_cast<size_t>(model_->njnt));
  for (int j = 0; j < model_->njnt; ++j) {
    MjJointInfo& info = out[static_cast<size_t>(j)];
    info.name = name_or_empty(model_, mjOBJ_JOINT, j);
    info.type = static_cast<MjJointType>(model_->jnt_type[j]);
    info.qposadr = model_->jnt_qposadr[j];
    info.dofadr = model_->jnt_dofadr[j];
    info.limited = model_->jnt_limited[j] != 0;
    info.lower = model_->jnt_range[2 * j];
    info.upper = model_->jnt_range[2 * j + 1];
    info.damping = model_->dof_damping[info.dofadr];
    info.armature = model_->dof_armature[info.dofadr];
    info.frictionloss = model_->dof_frictionloss[info.dofadr];
    info.stiffness = model_->jnt_stiffness[j];
  }
  return out;
}

int MujocoReference::dof_joint(int dof) const { return model_->dof_jntid[dof]; }

std::string MujocoReference::actuator_name(int actuator) const {
  return name_or_empty(model_, mjOBJ_ACTUATOR, actuator);
}

bool MujocoReference::ctrl_limited(int actuator) const { return model_->actuator_ctrllimited[actuator] != 0; }

std::pair<double, double> MujocoReference::ctrl_range(int actuator) const {
  return {model_->actuator_ctrlrange[2 * actuator], model_->actuator_ctrlrange[2 * actuator + 1]};
}

VecX MujocoReference::qpos0() const { return Eigen::Map<const VecX>(model_->qpos0, model_->nq); }

int MujocoReference::nkey() const { return model_->nkey; }

std::string MujocoReference::key_name(int key) const { return name_or_empty(model_, mjOBJ_KEY, key); }

VecX MujocoReference::key_qpos(int key) const {
  return Eigen::Map<const VecX>(model_->key_qpos + static_cast<ptrdiff_t>(key) * model_->nq, model_->nq);
}

void MujocoReference::set_qpos(const VecX& qpos) {
  if (qpos.size() != model_->nq)
    throw std::invalid_argument("MujocoReference: qpos has " + std::to_string(qpos.size()) + " entries, nq is " +
                                std::to_string(model_->nq));
  Eigen::Map<VecX>(data_->qpos, model_->nq) = qpos;
}

std::vector<Vec3> MujocoReference::body_positions(const VecX& qpos) {
  set_qpos(qpos);
  mj_kinematics(model_, data_);
  std::vector<Vec3> out(static_cast<size_t>(model_->nbody));
  for (int b = 0; b < model_->nbody; ++b) out[static_cast<size_t>(b)] = Eigen::Map<const Vec3>(data_->xpos + 3 * b);
  return out;
}

MatX MujocoReference::mass_matrix(const VecX& qpos) {
  set_qpos(qpos);
  mj_kinematics(model_, data_);
  mj_comPos(model_, data_);
  mj_crb(model_, data_);
  const int nv = model_->nv;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense(nv, nv);
  if (nv > 0) mj_fullM(model_, dense.data(), data_->qM);
  return dense;
}

VecX MujocoReference::actuator_forces(const VecX& qpos, const VecX& qvel, const VecX& ctrl) {
  if (qvel.size() != model_->nv || ctrl.size() != model_->nu)
    throw std::invalid_argument("MujocoReference: qvel or ctrl of the wrong size");
  set_qpos(qpos);
  Eigen::Map<VecX>(data_->qvel, model_->nv) = qvel;
  Eigen::Map<VecX>(data_->ctrl, model_->nu) = ctrl;
  mj_fwdPosition(model_, data_);
  mj_fwdVelocity(model_, data_);
  mj_fwdActuation(model_, data_);
  return Eigen::Map<const VecX>(data_->qfrc_actuator, model_->nv);
}

Mat3 MujocoReference::body_inertia(int b) const {
  const mjtNum* q = model_->body_iquat + 4 * b;
  const Mat3 R = Quat(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
  const mjtNum* d = model_->body_inertia + 3 * b;
  return R * Vec3(d[0], d[1], d[2]).asDiagonal() * R.transpose();
}

}  // namespace graspsim::test
