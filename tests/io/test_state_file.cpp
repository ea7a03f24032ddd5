// Checkpoints (io/state_file.h): a saved State reads back bit for bit, every damaged or
// foreign file is an InputError naming it, and a run continued from a checkpoint ends in
// the same bits as the run that never stopped.

#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/run.h"
#include "io/scene.h"
#include "io/state_file.h"
#include "io_test_util.h"
#include "steppers/step.h"

namespace graspsim {
namespace {

using test::input_error;
using test::TempDir;

const std::string kPush = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/push.yaml";
const std::string kGrasp = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/validation/grasp_hold.yaml";
// The penalty stepper carries its RK45 step size and the pairs' filter states in State.
const std::string kPenaltyGrasp = std::string(GRASPSIM_SOURCE_DIR) + "/scenes/penalty/revolute2_cube.yaml";

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }

void expect_same_bits(const VecX& a, const VecX& b, const char* name) {
  ASSERT_EQ(a.size(), b.size()) << name;
  for (Eigen::Index i = 0; i < a.size(); ++i)
    EXPECT_EQ(bits(a[i]), bits(b[i])) << name << "[" << i << "]: " << a[i] << " vs " << b[i];
}

// Every field of two States, bit for bit.
void expect_same_state(const State& a, const State& b) {
  EXPECT_EQ(bits(a.t), bits(b.t)) << a.t << " vs " << b.t;
  EXPECT_EQ(a.step, b.step);
  expect_same_bits(a.q, b.q, "q");
  expect_same_bits(a.v, b.v, "v");
  expect_same_bits(a.act, b.act, "act");
  EXPECT_EQ(bits(a.step_size), bits(b.step_size)) << "step_size";
  expect_same_bits(a.constraint_forces, b.constraint_forces, "constraint_forces");
  const auto& sa = a.contacts.slots();
  const auto& sb = b.contacts.slots();
  ASSERT_EQ(sa.size(), sb.size()) << "contact slots";
  EXPECT_EQ(a.contacts.live(), b.contacts.live());
  EXPECT_EQ(a.contacts.size(), b.contacts.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    EXPECT_TRUE(sa[i].key == sb[i].key) << "slot " << i;
    EXPECT_EQ(bits(sa[i].since), bits(sb[i].since)) << "slot " << i;
    for (int k = 0; k < ContactSlot::kValues; ++k)
      EXPECT_EQ(bits(sa[i].values[k]), bits(sb[i].values[k])) << "slot " << i << " value " << k << ": "
                                                                 << sa[i].values[k] << " vs " << sb[i].values[k];
  }
  EXPECT_TRUE(a.rng == b.rng) << "rng state";
}

// A state of the push scene in contact, with every field away from its default: actuator
// states, a free slot among the live ones, a used random generator.
State busy_state(const Model& m) {
  State s = make_state(m);
  Workspace ws;
  for (int i = 0; i < 30; ++i) step(m, s, ws);
  EXPECT_GT(s.contacts.size(), 0);
  std::vector<ContactSlot> slots = s.contacts.slots();
  std::vector<char> live = s.contacts.live();
  ContactSlot free_slot;
  free_slot.key = {0, 1, 0xfedcba9876543210ull};
  free_slot.since = 0.25;
  free_slot.values = {1.5, -2.5, 3.0, -0.0, 1e-300, 5e300, 7.0, 8.0};
  slots.insert(slots.begin(), free_slot);
  live.insert(live.begin(), 0);
  s.contacts.assign(std::move(slots), std::move(live));
  s.act = VecX::LinSpaced(static_cast<Eigen::Index>(m.actuators.size()), -1.0, 2.0);
  s.step_size = 3.25e-4;  // as the penalty stepper's RK45 leaves it
  s.constraint_forces = VecX::LinSpaced(constraint_slots(m).size, -3.0, 4.0);
  s.v[0] = -0.0;
  s.rng.discard(12345);
  return s;
}

// ---- the file ------------------------------------------------------------------------------

TEST(StateFile, RoundTripIsBitIdentical) {
  const Scene scene = load_scene(kPush, {"parameters.contact=0.8"});
  const Model& m = *scene.model;
  const State s = busy_state(m);
  TempDir dir;
  const std::string path = dir.path("state.bin");
  save_state(path, m, s);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const State r = load_state(path, m);
  expect_same_state(s, r);
  EXPECT_EQ(r.contacts.live().front(), 0);  // the free slot stayed free, and where it was
  EXPECT_EQ(r.contacts.find(s.contacts.slots().front().key), nullptr);
  // The loaded table works: its live slots are findable, and the random streams continue alike.
  s.contacts.for_each([&](const ContactSlot& c) { EXPECT_NE(r.contacts.find(c.key), nullptr); });
  State a = s, b = r;
  EXPECT_EQ(a.rng(), b.rng());
  // Saving again gives the same bytes (and replaces the file).
  const std::string first = slurp(path);
  save_state(path, m, r);
  EXPECT_EQ(slurp(path), first);
}

TEST(StateFile, ModelWithActuatorsRoundTrips) {
  const Scene scene = load_scene(kGrasp, {});
  const Model& m = *scene.model;
  State s = make_state(m);
  Workspace ws;
  for (int i = 0; i < 50; ++i) step(m, s, ws);
  s.act = VecX::Constant(static_cast<Eigen::Index>(m.actuators.size()), 0.125);
  TempDir dir;
  save_state(dir.path("s.bin"), m, s);
  expect_same_state(s, load_state(dir.path("s.bin"), m));
}

class StateFileErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    scene_ = load_scene(kPush, {"parameters.contact=0.8"});
    path_ = dir_.path("state.bin");
    save_state(path_, *scene_.model, busy_state(*scene_.model));
    bytes_ = slurp(path_);
  }
  // The message of loading `bytes` from a file `name`; it must name the file.
  std::string message(const std::string& name, const std::string& bytes) {
    const std::string p = dir_.path(name);
    spit(p, bytes);
    const std::string msg = input_error([&] { load_state(p, *scene_.model); });
    EXPECT_CONTAINS(msg, p);
    return msg;
  }
  Scene scene_;
  TempDir dir_;
  std::string path_, bytes_;
};

TEST_F(StateFileErrors, TruncatedAtAnyLength) {
  const size_t n = bytes_.size();
  for (size_t len : {size_t{0}, size_t{1}, size_t{10}, size_t{16}, size_t{20}, size_t{27}, size_t{28}, size_t{40},
                     size_t{100}, n / 2, n - 200, n - 9, n - 8, n - 1}) {
    SCOPED_TRACE("length " + std::to_string(len) + " of " + std::to_string(n));
    EXPECT_CONTAINS(message("cut_" + std::to_string(len) + ".bin", bytes_.substr(0, len)), "truncated");
  }
}

TEST_F(StateFileErrors, RandomBytesAreNotAStateFile) {
  std::mt19937_64 gen(7);
  std::string junk(4096, '\0');
  for (char& c : junk) c = static_cast<char>(gen() & 0xff);
  EXPECT_CONTAINS(message("junk.bin", junk), "not a graspsim state file");
  // Text is not one either (a YAML scene given by mistake).
  EXPECT_CONTAINS(message("scene.bin", slurp(kPush)), "not a graspsim state file");
  // Random bytes behind a valid header: whatever it says, it is an InputError naming the file.
  std::string fake = bytes_.substr(0, 28) + junk;
  message("fake.bin", fake);
}

TEST_F(StateFileErrors, FlippedByteFailsTheChecksum) {
  const size_t n = bytes_.size();
  for (size_t at : {size_t{30}, size_t{60}, n / 3, n / 2, n - 100, n - 9, n - 1}) {
    SCOPED_TRACE("byte " + std::to_string(at) + " of " + std::to_string(n));
    std::string b = bytes_;
    b[at] = static_cast<char>(b[at] ^ 0x10);
    EXPECT_CONTAINS(message("flip_" + std::to_string(at) + ".bin", b), "checksum");
  }
}

TEST_F(StateFileErrors, OtherVersionIsNamed) {
  std::string b = bytes_;
  b[16] = 9;  // the version, little-endian u32 after the 16-byte magic
  EXPECT_CONTAINS(message("v9.bin", b), "version 9");
}

TEST_F(StateFileErrors, StateOfAnotherModel) {
  // Other sizes: the grasp (a free box and two sliders) has nq = 9, the push nq = 14.
  const Scene grasp = load_scene(kGrasp, {});
  const std::string msg = input_error([&] { load_state(path_, *grasp.model); });
  EXPECT_CONTAINS(msg, path_);
  EXPECT_CONTAINS(msg, "another model");
  EXPECT_CONTAINS(msg, "14 nq");
  // Same sizes, a renamed body: the message names both names.
  const Scene renamed = load_scene(kPush, {"parameters.contact=0.8", "bodies.box.name=crate"});
  const std::string msg2 = input_error([&] { load_state(path_, *renamed.model); });
  EXPECT_CONTAINS(msg2, path_);
  EXPECT_CONTAINS(msg2, "'box'");
  EXPECT_CONTAINS(msg2, "'crate'");
  // Other scene parameters do not make another model: the state loads.
  const Scene faster = load_scene(kPush, {"parameters.contact=0.5", "parameters.speed=0.02"});
  EXPECT_NO_THROW(load_state(path_, *faster.model));
}

TEST_F(StateFileErrors, MissingFile) {
  const std::string p = dir_.path("nope/state.bin");
  const std::string msg = input_error([&] { load_state(p, *scene_.model); });
  EXPECT_CONTAINS(msg, p);
  EXPECT_CONTAINS(msg, "no such");
}

TEST_F(StateFileErrors, NonFiniteNumbersAreRejected) {
  State s = busy_state(*scene_.model);
  s.q[3] = std::numeric_limits<double>::quiet_NaN();
  save_state(path_, *scene_.model, s);
  std::string msg = input_error([&] { load_state(path_, *scene_.model); });
  EXPECT_CONTAINS(msg, path_);
  EXPECT_CONTAINS(msg, "q[3] is not finite");
  s = busy_state(*scene_.model);
  s.t = std::numeric_limits<double>::infinity();
  save_state(path_, *scene_.model, s);
  msg = input_error([&] { load_state(path_, *scene_.model); });
  EXPECT_CONTAINS(msg, "t is not finite");
  s = busy_state(*scene_.model);
  ASSERT_GT(s.constraint_forces.size(), 1);
  s.constraint_forces[1] = std::numeric_limits<double>::infinity();
  save_state(path_, *scene_.model, s);
  msg = input_error([&] { load_state(path_, *scene_.model); });
  EXPECT_CONTAINS(msg, "constraint_forces[1] is not finite");
}

// A state whose warm start does not fit the model is saved without one, and runs from zero.
TEST(StateFile, ConstraintForcesOfAnotherSizeAreNotSaved) {
  const Scene scene = load_scene(kGrasp, {});
  const Model& m = *scene.model;
  State s = make_state(m);
  EXPECT_EQ(s.constraint_forces.size(), constraint_slots(m).size);
  s.constraint_forces = VecX::Ones(3);
  TempDir dir;
  save_state(dir.path("s.bin"), m, s);
  EXPECT_EQ(load_state(dir.path("s.bin"), m).constraint_forces.size(), 0);
}

TEST_F(StateFileErrors, UnwritablePathIsAnInputError) {
  const std::string p = dir_.path("no/such/dir/state.bin");
  const std::string msg = input_error([&] { save_state(p, *scene_.model, busy_state(*scene_.model)); });
  EXPECT_CONTAINS(msg, p);
}

// ---- continuing a run ------------------------------------------------------------------------

struct Continuation {
  const char* name;
  std::string scene;
  std::vector<std::string> overrides;
  double full, half;  // s
};

void PrintTo(const Continuation& c, std::ostream* os) { *os << c.name; }

class StateContinuation : public ::testing::TestWithParam<Continuation> {};

// A scratch folder named after the case (TempDir would nest folders at the '/' of a
// parameterized test's name and leave the outer ones behind).
struct CaseDir {
  explicit CaseDir(const std::string& name)
      : root(std::filesystem::temp_directory_path() /
             ("graspsim_io_continuation_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(root);
    std::filesystem::create_directories(root);
  }
  ~CaseDir() { std::filesystem::remove_all(root); }
  std::string path(const std::string& name) const { return (root / name).string(); }
  std::filesystem::path root;
};

// A run of 2·half seconds, and a run of `half` continued from its state.bin for `half` more
// (through the file, with a fresh Workspace), end in the same bits: q, v, t, step, the
// contact table and the random generator.
TEST_P(StateContinuation, TwoHalvesEndWhereTheWholeEnds) {
  const Continuation& c = GetParam();
  auto with = [&](double duration) {
    std::vector<std::string> o = c.overrides;
    o.push_back("duration=" + std::to_string(duration));
    return load_scene(c.scene, o);
  };
  const Scene whole = with(c.full), half = with(c.half);
  const CaseDir dir(c.name);
  RunOptions o;
  o.out_dir = dir.path("whole");
  const RunSummary a = run_scene(whole, o);
  o.out_dir = dir.path("first");
  const RunSummary first = run_scene(half, o);
  RunOptions cont;
  cont.out_dir = dir.path("second");
  cont.from_state = dir.path("first/state.bin");
  cont.initial_state = load_state(*cont.from_state, *half.model);
  const RunSummary b = run_scene(half, cont);

  // The runs touched something the contact memory has to carry over.
  EXPECT_GT(first.final_state.contacts.size(), 0);
  EXPECT_GT(a.final_state.contacts.size(), 0);
  EXPECT_EQ(b.steps, first.steps);
  EXPECT_EQ(a.final_state.step, 2 * first.final_state.step);
  expect_same_state(a.final_state, b.final_state);
  EXPECT_EQ(slurp(dir.path("whole/state.bin")), slurp(dir.path("second/state.bin")));
  const auto run = nlohmann::json::parse(slurp(dir.path("second/run.json")));
  EXPECT_EQ(run["from_state"], dir.path("first/state.bin"));
  EXPECT_EQ(run["status"], "completed");
}

const Continuation kCases[] = {
    {"push_direct_box", kPush,
     {"parameters.contact=0.8", "parameters.solver=direct", "parameters.friction_model=box"}, 2.0, 1.0},
    {"push_iterative", kPush, {"parameters.contact=0.8", "parameters.solver=iterative"}, 2.0, 1.0},
    {"push_split", kPush, {"parameters.contact=0.8", "parameters.solver=split"}, 2.0, 1.0},
    {"push_direct_iterative", kPush, {"parameters.contact=0.8", "parameters.solver=direct_iterative"}, 2.0, 1.0},
    {"push_randomized_split", kPush,
     {"parameters.contact=0.8", "parameters.solver=split", "parameters.friction_model=randomized"}, 2.0, 1.0},
    {"grasp_direct_box", kGrasp, {"parameters.solver=direct", "parameters.friction_model=box"}, 2.0, 1.0},
    {"grasp_iterative", kGrasp, {"parameters.solver=iterative"}, 2.0, 1.0},
    {"grasp_split", kGrasp, {"parameters.solver=split"}, 2.0, 1.0},
    {"grasp_direct_iterative", kGrasp, {"parameters.solver=direct_iterative"}, 2.0, 1.0},
    {"penalty_filtered", kPenaltyGrasp, {"parameters.rate=filtered", "parameters.filter_frequency=3000"}, 0.1, 0.05},
    {"penalty_exact", kPenaltyGrasp, {"parameters.rate=exact"}, 0.1, 0.05},
};

INSTANTIATE_TEST_SUITE_P(Solvers, StateContinuation, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Continuation>& info) {
                           return std::string(info.param.name);
                         });

// The randomized friction model really draws from State::rng (else its case above would
// not test the generator's checkpoint).
TEST(StateContinuationCheck, RandomizedFrictionUsesTheGenerator) {
  const Scene scene =
      load_scene(kPush, {"parameters.contact=0.8", "parameters.friction_model=randomized", "duration=0.2"});
  RunOptions o;
  o.record = false;
  const RunSummary s = run_scene(scene, o);
  EXPECT_FALSE(s.final_state.rng == make_state(*scene.model).rng);
}

}  // namespace
}  // namespace graspsim
