// Mass matrix + bias forces of a 30-dof tree (5 chains of 6 revolute joints) and a full
// dynamics step: graspsim against MuJoCo computing the same quantities on the same tree,
// built from an MJCF string in this program. The two are checked to agree before timing.

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "dynamics/dynamics.h"
#include "kinematics/kinematics.h"
#include "model/builder.h"
#include "model/state.h"
#include "steppers/dynamics_stepper.h"
#include "steppers/step.h"

#ifdef GRASPSIM_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

using namespace graspsim;

constexpr int kChains = 5, kLinks = 6;
constexpr double kLink = 0.2, kMass = 1.0;
const Vec3 kInertia(0.01, 0.012, 0.005);  // about the com, link frame

Vec3 link_axis(int k) { return k % 2 ? Vec3::UnitX() : Vec3::UnitY(); }

std::string link_name(int c, int k) {
  std::string s = "c";
  s += std::to_string(c);
  s += "l";
  s += std::to_string(k);
  return s;
}

std::shared_ptr<const Model> graspsim_tree(Integrator integ) {
  ModelBuilder mb;
  for (int c = 0; c < kChains; ++c)
    for (int k = 0; k < kLinks; ++k) {
      BodyDef b;
      b.name = link_name(c, k);
      b.parent = k == 0 ? "world" : link_name(c, k - 1);
      b.pose.p = k == 0 ? Vec3(0.5 * c, 0, 0) : Vec3(0, 0, -kLink);
      b.joint.type = JointType::Revolute;
      b.joint.axis = link_axis(k);
      b.mass = kMass;
      b.com = Vec3(0, 0, -kLink / 2);
      b.inertia = kInertia.asDiagonal().toDenseMatrix();
      mb.add_body(b);
    }
  mb.options().dt = 1e-3;
  mb.options().dynamics.integrator = integ;
  return mb.build();
}

VecX random_angles(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  VecX x(n);
  for (int i = 0; i < n; ++i) x[i] = u(rng);
  return x;
}

void BM_graspsim_MassMatrixAndBias(benchmark::State& st) {
  auto m = graspsim_tree(Integrator::SemiImplicitEuler);
  const VecX q = random_angles(m->nq, 1), v = random_angles(m->nv, 2);
  KinematicsData kin;
  MatX M;
  VecX c;
  for (auto _ : st) {
    forward_kinematics(*m, q, kin);
    mass_matrix(*m, kin, M);
    bias_forces(*m, kin, v, c);
    benchmark::DoNotOptimize(M.data());
    benchmark::DoNotOptimize(c.data());
  }
}
BENCHMARK(BM_graspsim_MassMatrixAndBias);

void BM_graspsim_Step(benchmark::State& st) {
  auto m = graspsim_tree(st.range(0) ? Integrator::RK4 : Integrator::SemiImplicitEuler);
  State s = make_state(*m);
  s.q = random_angles(m->nq, 1);
  const State s0 = s;
  Workspace ws;
  int n = 0;
  for (auto _ : st) {
    step_dynamics(*m, s, ws);
    if (++n % 1000 == 0) s = s0;  // stay near the same configuration
  }
  st.SetLabel(st.range(0) ? "rk4" : "semi-implicit euler");
}
BENCHMARK(BM_graspsim_Step)->Arg(0)->Arg(1);

#ifdef GRASPSIM_HAVE_MUJOCO

std::string mjcf_tree() {
  char buf[256];
  std::string xml = "<mujoco><option timestep='0.001' integrator='Euler'><flag contact='disable'/></option><worldbody>";
  for (int c = 0; c < kChains; ++c) {
    for (int k = 0; k < kLinks; ++k) {
      const Vec3 p = k == 0 ? Vec3(0.5 * c, 0, 0) : Vec3(0, 0, -kLink);
      const Vec3 a = link_axis(k);
      std::snprintf(buf, sizeof buf,
                    "<body pos='%g %g %g'><joint type='hinge' axis='%g %g %g'/>"
                    "<inertial pos='0 0 %g' mass='%g' diaginertia='%g %g %g'/>",
                    p.x(), p.y(), p.z(), a.x(), a.y(), a.z(), -kLink / 2, kMass, kInertia.x(), kInertia.y(),
                    kInertia.z());
      xml += buf;
    }
    for (int k = 0; k < kLinks; ++k) xml += "</body>";
  }
  return xml + "</worldbody></mujoco>";
}

struct MuJoCo {
  mjModel* m = nullptr;
  mjData* d = nullptr;
  MuJoCo() {
    const std::string xml = mjcf_tree();
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    mj_makeEmptyFileVFS(vfs.get(), "tree.xml", static_cast<int>(xml.size()));
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "tree.xml")], xml.data(), xml.size());
    char err[1000] = "";
    m = mj_loadXML("tree.xml", vfs.get(), err, sizeof err);
    mj_deleteVFS(vfs.get());
    if (!m) throw std::runtime_error(std::string("MuJoCo: ") + err);
    d = mj_makeData(m);
  }
  ~MuJoCo() {
    mj_deleteData(d);
    mj_deleteModel(m);
  }
  void set(const VecX& q, const VecX& v) {
    for (int i = 0; i < m->nq; ++i) d->qpos[i] = q[i];
    for (int i = 0; i < m->nv; ++i) d->qvel[i] = v[i];
  }
  // Kinematics, sparse M by CRB, and c by RNE: what mj_fwdPosition/mj_fwdVelocity do for
  // these quantities, without collision and constraints.
  void mass_and_bias(bool dense) {
    mj_kinematics(m, d);
    mj_comPos(m, d);
    mj_crb(m, d);
    mj_comVel(m, d);
    mj_rne(m, d, 0, d->qfrc_bias);
    if (dense) mj_fullM(m, d->qLD, d->qM);  // qLD as a scratch nv x nv buffer
  }
};

// The two engines must compute the same M and c on this tree before their times mean anything.
void check_agreement() {
  MuJoCo mj;
  auto m = graspsim_tree(Integrator::SemiImplicitEuler);
  const VecX q = random_angles(m->nq, 1), v = random_angles(m->nv, 2);
  mj.set(q, v);
  mj.mass_and_bias(false);
  std::vector<double> Mfull(static_cast<size_t>(m->nv * m->nv));
  mj_fullM(mj.m, Mfull.data(), mj.d->qM);
  KinematicsData kin;
  MatX M;
  VecX c;
  forward_kinematics(*m, q, kin);
  mass_matrix(*m, kin, M);
  bias_forces(*m, kin, v, c);
  double dM = 0, dc = 0;
  for (int i = 0; i < m->nv; ++i) {
    dc = std::max(dc, std::abs(c[i] - mj.d->qfrc_bias[i]));
    for (int j = 0; j < m->nv; ++j) dM = std::max(dM, std::abs(M(i, j) - Mfull[static_cast<size_t>(i * m->nv + j)]));
  }
  std::printf("graspsim vs MuJoCo on the 30-dof tree: max |dM| = %.2e, max |dc| = %.2e\n", dM, dc);
  if (dM > 1e-10 || dc > 1e-10) throw std::runtime_error("graspsim and MuJoCo disagree on the benchmark tree");
}

void BM_mujoco_MassMatrixAndBias(benchmark::State& st) {
  MuJoCo mj;
  mj.set(random_angles(mj.m->nq, 1), random_angles(mj.m->nv, 2));
  const bool dense = st.range(0);
  if (dense && mj.m->nv * mj.m->nv > mj.m->nM) {
    // qLD is only nM long; a dense copy needs its own buffer.
    std::vector<double> full(static_cast<size_t>(mj.m->nv * mj.m->nv));
    for (auto _ : st) {
      mj.mass_and_bias(false);
      mj_fullM(mj.m, full.data(), mj.d->qM);
      benchmark::DoNotOptimize(full.data());
    }
  } else {
    for (auto _ : st) {
      mj.mass_and_bias(dense);
      benchmark::DoNotOptimize(mj.d->qM);
    }
  }
  st.SetLabel(dense ? "sparse M + mj_fullM to dense" : "sparse M");
}
BENCHMARK(BM_mujoco_MassMatrixAndBias)->Arg(0)->Arg(1);

void BM_mujoco_Step(benchmark::State& st) {
  MuJoCo mj;
  mj.m->opt.integrator = st.range(0) ? mjINT_RK4 : mjINT_EULER;
  mj.set(random_angles(mj.m->nq, 1), VecX::Zero(mj.m->nv));
  std::vector<double> q0(mj.d->qpos, mj.d->qpos + mj.m->nq);
  int n = 0;
  for (auto _ : st) {
    mj_step(mj.m, mj.d);
    if (++n % 1000 == 0) {
      mj_resetData(mj.m, mj.d);
      std::copy(q0.begin(), q0.end(), mj.d->qpos);
    }
  }
  st.SetLabel(st.range(0) ? "rk4" : "euler (semi-implicit), contacts disabled");
}
BENCHMARK(BM_mujoco_Step)->Arg(0)->Arg(1);

#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef GRASPSIM_HAVE_MUJOCO
  check_agreement();
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
