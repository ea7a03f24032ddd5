#pragma once
// The immutable Model: bodies in a kinematic forest, joints, geoms, materials, contact
// materials, actuators and options. Built and validated by ModelBuilder (builder.h);
// every stepper takes it as `const Model&`, so one Model serves many States.

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/signal.h"
#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

// ---- names of the enums ---------------------------------------------------------------
// Each named enum has one table of its names, in declaration order, next to it:
// EnumNames<E>::table. They are the words of scene files and of the CSV/JSON output;
// to_string, from_string and the scene reader's "expected a | b" messages all read it.
template <typename E>
struct EnumNames;

template <typename E>
concept NamedEnum = requires {
  EnumNames<E>::table;
};

template <NamedEnum E>
constexpr const char* to_string(E value) {
  for (const auto& [e, name] : EnumNames<E>::table)
    if (e == value) return name;
  return "?";
}

// The value named `name`; nullopt for a word not in the table.
template <NamedEnum E>
constexpr std::optional<E> from_string(std::string_view name) {
  for (const auto& [e, n] : EnumNames<E>::table)
    if (name == n) return e;
  return std::nullopt;
}

// ---- joints ---------------------------------------------------------------------------
// Each body hangs from its parent by exactly one joint (Fixed welds it). The joint frame
// is the child body's frame, as in URDF. Velocity conventions (as MuJoCo):
//   Free      q = [x y z qw qx qy qz], v = [linear velocity of the body origin in the world
//             frame (3), angular velocity in the body frame (3)]; parent must be the world.
//   Ball      q = [qw qx qy qz],       v = angular velocity in the body frame (3).
//   Revolute  q = angle about `axis` (body frame), v = its rate.
//   Prismatic q = displacement along `axis` (body frame), v = its rate.
enum class JointType { Free, Ball, Revolute, Prismatic, Fixed };

int joint_nq(JointType type);
int joint_nv(JointType type);
template <>
struct EnumNames<JointType> {
  static constexpr auto table = std::to_array<std::pair<JointType, const char*>>({
      {JointType::Free, "free"},
      {JointType::Ball, "ball"},
      {JointType::Revolute, "revolute"},
      {JointType::Prismatic, "prismatic"},
      {JointType::Fixed, "fixed"},
  });
};

struct Joint {
  std::string name;
  JointType type = JointType::Fixed;
  int body = -1;                 // the child body it moves
  Vec3 axis = Vec3::UnitZ();     // unit, body frame (revolute, prismatic)
  int qadr = 0, vadr = 0;        // offsets into State::q and State::v
  int nq = 0, nv = 0;
  bool limited = false;
  double lower = -kInf, upper = kInf;  // rad or m (revolute, prismatic)
  double damping = 0.0;          // N·m·s/rad or N·s/m, on every dof of the joint
  double armature = 0.0;         // added to the diagonal of M (rotor inertia)
  double stiffness = 0.0;        // spring to `spring_ref` (revolute, prismatic)
  double spring_ref = 0.0;
  // Dry friction on every dof (N·m or N; MJCF frictionloss): the joint sticks until the
  // other generalized forces on it exceed this.
  double frictionloss = 0.0;
  // The point (body frame) a revolute or ball joint turns about: the body frame itself
  // unless a robot file places the joint elsewhere in its body (MJCF joint pos).
  Vec3 anchor = Vec3::Zero();
};

// ---- bodies ---------------------------------------------------------------------------
struct Body {
  std::string name;
  int parent = -1;               // -1 only for body 0, the world
  int joint = -1;                // joint to the parent (-1 for the world)
  Pose X_parent_body;            // body frame in the parent frame at zero joint motion
  double mass = 0.0;             // kg
  Vec3 com = Vec3::Zero();       // centre of mass, body frame
  Mat3 inertia = Mat3::Zero();   // about the centre of mass, body frame (kg·m²)
  bool kinematic = false;        // moved by prescribed velocities, not by forces
  std::vector<Signal> prescribed_v;  // kinematic bodies: one signal per joint dof
};

// ---- geometry -------------------------------------------------------------------------
// Sizes: Sphere (r), Box (half-extents x y z), Capsule and Cylinder (r, half-length) along
// the local z axis, Plane: infinite, normal = local +z. Meshes refer to Model::meshes.
enum class GeomType { Plane, Sphere, Box, Capsule, Cylinder, ConvexMesh, TriangleMesh };
inline constexpr int kNumGeomTypes = 7;
template <>
struct EnumNames<GeomType> {
  static constexpr auto table = std::to_array<std::pair<GeomType, const char*>>({
      {GeomType::Plane, "plane"},
      {GeomType::Sphere, "sphere"},
      {GeomType::Box, "box"},
      {GeomType::Capsule, "capsule"},
      {GeomType::Cylinder, "cylinder"},
      {GeomType::ConvexMesh, "convex_mesh"},
      {GeomType::TriangleMesh, "mesh"},
  });
};

struct Geom {
  std::string name;
  GeomType type = GeomType::Sphere;
  int body = 0;
  Pose X_body_geom;
  Vec3 size = Vec3::Zero();
  int mesh = -1;
  int material = 0;              // index into Model::materials
  // Two geoms may touch iff (a.group & b.mask) && (b.group & a.mask).
  std::uint32_t group = 1, mask = 0xffffffffu;
  // Touches nothing whatever the other geom (MJCF contype = conaffinity = 0: drawn only).
  bool never_collides() const { return group == 0 || mask == 0; }
  double margin = 0.0;           // report pairs closer than this as near contacts (m)
};

// ---- sites ----------------------------------------------------------------------------
// Named frames on bodies (MJCF <site>): where tools attach, points to measure.
struct Site {
  std::string name;
  int body = 0;
  Pose X_body_site;
};

// ---- contact materials ----------------------------------------------------------------
enum class FrictionModel { Box, ScaledBox, Cone, OrientedBox, Randomized, MultiDirectional, Polyhedral };
enum class SolverType { Direct, Iterative, Split, DirectIterative };
enum class ContactArea { Point, Area };
template <>
struct EnumNames<FrictionModel> {
  static constexpr auto table = std::to_array<std::pair<FrictionModel, const char*>>({
      {FrictionModel::Box, "box"},
      {FrictionModel::ScaledBox, "scaled_box"},
      {FrictionModel::Cone, "cone"},
      {FrictionModel::OrientedBox, "oriented_box"},
      {FrictionModel::Randomized, "randomized"},
      {FrictionModel::MultiDirectional, "multi_directional"},
      {FrictionModel::Polyhedral, "polyhedral"},
  });
};
template <>
struct EnumNames<SolverType> {
  static constexpr auto table = std::to_array<std::pair<SolverType, const char*>>({
      {SolverType::Direct, "direct"},
      {SolverType::Iterative, "iterative"},
      {SolverType::Split, "split"},
      {SolverType::DirectIterative, "direct_iterative"},
  });
};
template <>
struct EnumNames<ContactArea> {
  static constexpr auto table = std::to_array<std::pair<ContactArea, const char*>>({
      {ContactArea::Point, "point"},
      {ContactArea::Area, "area"},
  });
};

// SPOOK's part of a contact material (formulation A, steppers/spook_stepper.h); checked by
// that stepper (validate_spook), not by ModelBuilder.
struct SpookContact {
  double young_modulus = 4e8;      // Pa; point stiffness, or k = E/h for area contact
  double damping = 4.5 / 60.0;     // SPOOK stabilisation time constant τ (s)
  FrictionModel friction_model = FrictionModel::Cone;
  std::optional<SolverType> solver;  // overrides SpookOptions::solver for these contacts
  int tangents = 16;               // k for multi-directional and polyhedral friction
  Vec3 primary_direction = Vec3::UnitX();  // oriented box: in the frame of body A (unit after build)
  ContactArea area = ContactArea::Point;
  // Torsional friction (m): the largest moment about the normal is this times the normal
  // force. 0: none, except for an area contact made of a single point with a patch area A,
  // which gets (2/3) μ √(A/π) (uniform pressure over a disk of that area).
  double torsional_friction = 0.0;
};

// Properties of the contact between two materials (thesis 3.2). Looked up by the
// unordered pair; pairs not listed use Model::default_contact. What every formulation
// reads is here (checked by ModelBuilder); each formulation's own settings are in its part.
struct ContactMaterial {
  int material_a = 0, material_b = 0;
  double friction = 0.5;           // Coulomb μ
  double restitution = 0.0;
  SpookContact spook;              // formulation A
  // Where it was defined, as error messages name it ("scene.yaml:12: contact material
  // 'a/b'", "default contact material"); set by ModelBuilder::build().
  std::string source;
};

// ---- tendons and transmissions --------------------------------------------------------
// One term of a linear transmission: length L = Σ coef·q[qadr], force coef·effort on dof
// vadr. Only 1-dof joints (or one dof of a multi-dof joint) appear.
struct TransmissionTerm {
  int joint = -1;
  int qadr = 0, vadr = 0;
  double coef = 1.0;
};

// A fixed tendon (MJCF <tendon><fixed>): a linear combination of joint coordinates that
// actuators can drive. It adds no force by itself.
struct Tendon {
  std::string name;
  std::vector<TransmissionTerm> terms;
};

// ---- actuators ------------------------------------------------------------------------
// The actuator acts on a length L through its transmission (a joint dof, times gear, or a
// tendon). With the set point s = ctrl_gain·clamp(ctrl, ctrl_min, ctrl_max) + ctrl_bias:
// Force: effort = s. Position: servo of L to s with gains kp, kv: kp (s − L) − kv L̇.
// Velocity: servo of L̇ to s with gain kv. Efforts clamp to the limits; the force on each
// dof of the transmission is coef·effort.
enum class ActuatorType { Force, Position, Velocity };
template <>
struct EnumNames<ActuatorType> {
  static constexpr auto table = std::to_array<std::pair<ActuatorType, const char*>>({
      {ActuatorType::Force, "force"},
      {ActuatorType::Position, "position"},
      {ActuatorType::Velocity, "velocity"},
  });
};

struct Actuator {
  std::string name;
  ActuatorType type = ActuatorType::Force;
  int joint = -1;                  // joint transmission (−1 for a tendon)
  int dof = 0;                     // which dof of the joint (0 for 1-dof joints)
  int tendon = -1;                 // tendon transmission (Model::tendons), or −1
  std::vector<TransmissionTerm> transmission;  // what L is made of (gear included)
  double kp = 0.0, kv = 0.0;
  double ctrl_gain = 1.0, ctrl_bias = 0.0;
  double ctrl_min = -kInf, ctrl_max = kInf;
  double effort_min = -kInf, effort_max = kInf;  // N or N·m
  Signal command;
};

// ---- equality constraints (loop closures) ---------------------------------------------
// Connect: the point anchor_a of body A and the point anchor_b of body B coincide (a ball
// joint closing a loop). Weld: also the orientation of B in A stays `relative` (anchors as
// for connect). Body A may be the world. Joint: coordinate a of joint_a follows a quartic
// of joint_b's, q_a − ref_a = Σ_k poly[k] (q_b − ref_b)^k (no joint_b: q_a − ref_a =
// poly[0]); MJCF's <equality><joint>, URDF's mimic. Solved as rows by the constraint steppers.
enum class EqualityType { Connect, Weld, Joint };
template <>
struct EnumNames<EqualityType> {
  static constexpr auto table = std::to_array<std::pair<EqualityType, const char*>>({
      {EqualityType::Connect, "connect"},
      {EqualityType::Weld, "weld"},
      {EqualityType::Joint, "joint"},
  });
};

struct Equality {
  std::string name;
  EqualityType type = EqualityType::Connect;
  int body_a = 0, body_b = 0;
  Vec3 anchor_a = Vec3::Zero();    // in A's frame
  Vec3 anchor_b = Vec3::Zero();    // in B's frame
  Quat relative = Quat::Identity();  // weld: orientation of B's frame in A's frame
  int joint_a = -1, joint_b = -1;  // joint coupling (1-dof joints; joint_b may be −1)
  std::array<double, 5> poly{0.0, 1.0, 0.0, 0.0, 0.0};
  double ref_a = 0.0, ref_b = 0.0;
  double stiffness = kInf;         // N/m (and N·m/rad); inf = rigid
  double damping = 0.0;            // SPOOK relaxation time (s); 0 = two time steps
};

// ---- keyframes ------------------------------------------------------------------------
// Named states from a robot file (MJCF <key>): q and v in Model order, ctrl per actuator.
struct Keyframe {
  std::string name;
  double time = 0.0;
  VecX q, v, ctrl;
};

// ---- options --------------------------------------------------------------------------
enum class StepperType { Dynamics, Spook, Quasistatic, Penalty };
enum class Integrator { SemiImplicitEuler, RK4 };
template <>
struct EnumNames<StepperType> {
  static constexpr auto table = std::to_array<std::pair<StepperType, const char*>>({
      {StepperType::Dynamics, "dynamics"},
      {StepperType::Spook, "spook"},
      {StepperType::Quasistatic, "quasistatic"},
      {StepperType::Penalty, "penalty"},
  });
};
template <>
struct EnumNames<Integrator> {
  static constexpr auto table = std::to_array<std::pair<Integrator, const char*>>({
      {Integrator::SemiImplicitEuler, "euler"},
      {Integrator::RK4, "rk4"},
  });
};

// The dynamics stepper's settings (checked by validate_dynamics).
struct DynamicsOptions {
  Integrator integrator = Integrator::SemiImplicitEuler;
  bool operator==(const DynamicsOptions&) const = default;
};

// SPOOK's settings (checked by validate_spook).
// Sleeping (SPOOK): an island of free trees that has been still for `time` stops being
// simulated (its velocities are zeroed, its rows leave the problem; its contacts keep their
// last forces) until an awake body touches it, its velocities are set, or a contact of it
// appears. Islands holding a kinematic body, an actuated joint or an equality never sleep,
// nor, under gravity, a tree touching nothing. The thresholds are a robot bench's scale, not
// a game's (Box2D's 5 cm/s): a tree is still while every free or prismatic dof moves under
// `linear` (m/s) and every rotational one under `angular` (rad/s).
struct SleepOptions {
  bool enabled = true;
  double time = 0.5;      // s
  double linear = 1e-3;   // m/s
  double angular = 1e-2;  // rad/s
  bool operator==(const SleepOptions&) const = default;
};

struct SpookOptions {
  SolverType solver = SolverType::Split;  // default solver (contact materials may override)
  int iterations = 16;                    // iterative solver sweeps
  // Iterative only: sweeps after `iterations` with the contact normals rigid and without
  // their stabilisation; positions move with the stabilised velocities, the relaxed ones
  // are kept (spook::solve). 0: none.
  int relax_sweeps = 0;
  // Iterative only: a group of islands stops sweeping once its rows' velocities move by at
  // most this per sweep (m/s or rad/s; spook::solve). 0: all `iterations`.
  double tolerance = 0.0;
  // Threads for the Iterative sweeps of a large problem (spook::solve; the same bits
  // whatever the count). 1: the caller's thread only.
  int threads = 1;
  SleepOptions sleep;
  bool operator==(const SpookOptions&) const = default;
};

// The quasistatic stepper's scheme (formulation B, seed 003).
enum class QuasistaticScheme { Lcp, Miqp, Convex };
template <>
struct EnumNames<QuasistaticScheme> {
  static constexpr auto table = std::to_array<std::pair<QuasistaticScheme, const char*>>({
      {QuasistaticScheme::Lcp, "lcp"},
      {QuasistaticScheme::Miqp, "miqp"},
      {QuasistaticScheme::Convex, "convex"},
  });
};
// Where the MIQP's normal-force lower bound takes the hypothetical penetration from.
enum class PenetrationBound { Current, Previous };
template <>
struct EnumNames<PenetrationBound> {
  static constexpr auto table = std::to_array<std::pair<PenetrationBound, const char*>>({
      {PenetrationBound::Current, "current"},
      {PenetrationBound::Previous, "previous"},
  });
};
// Which solver takes the MIQP: a branch and bound on the complementarity pairs with Clp at
// the nodes (solvers/complementarity_qp.h), or Bonmin on the big-M form. Same optimum.
enum class MiqpSolver { BranchAndBound, Bonmin };
template <>
struct EnumNames<MiqpSolver> {
  static constexpr auto table = std::to_array<std::pair<MiqpSolver, const char*>>({
      {MiqpSolver::BranchAndBound, "branch_and_bound"},
      {MiqpSolver::Bonmin, "bonmin"},
  });
};
// Which points of a geom pair's contact manifold become contacts.
enum class ContactPoints { Manifold, Deepest };
template <>
struct EnumNames<ContactPoints> {
  static constexpr auto table = std::to_array<std::pair<ContactPoints, const char*>>({
      {ContactPoints::Manifold, "manifold"},
      {ContactPoints::Deepest, "deepest"},
  });
};

// The quasistatic stepper's settings (checked by validate_quasistatic).
struct QuasistaticOptions {
  QuasistaticScheme scheme = QuasistaticScheme::Miqp;
  int tangent_directions = 4;       // balanced friction directions per contact (even, ≥ 2)
  double stiffness = 1e4;           // K of the normal-force lower bound (MIQP) and of the actuated dofs (convex), N/m
  double big_m = 1.0;               // MIQP big-M (N·s and m: impulses and gaps of one step)
  PenetrationBound penetration = PenetrationBound::Current;
  MiqpSolver miqp_solver = MiqpSolver::BranchAndBound;  // also certifies the LCP scheme's rays
  double objective_scale = 1e6;     // MIQP objective scaling inside Bonmin (its tolerances are absolute)
  // Branch and bound: after this many nodes the best complementary point found is the
  // step's solution, counted as not proven optimal (a node count keeps runs deterministic).
  int miqp_max_nodes = 100000;
  // Branch and bound: an incumbent within this fraction of the objective's modal part (its
  // excess over the command followed exactly) of every open node's bound is optimal. 1e-4
  // is Gurobi's default MIPGap (seed 003 solved with Gurobi); tighter, the 3D pick's lift
  // spent ~1000 nodes a step on bounds 1e-5 below incumbents that were already optimal.
  double miqp_gap_rel = 1e-4;
  // MIQP: a contact counts as closed while its gap after the step is within this (m). Exact
  // closure at the several points of one patch is over-determined: a step linearises the
  // arm's kinematics, and the next starts with the patch's gaps a few nm apart, which no
  // motion that keeps the patch sticking closes (the 3D pick's rounded box, first lift step).
  double closed_gap = 0.0;
  // A contact the last step closed starts this one at a gap that is the linearisation's error
  // (nm a step: the arm's kinematics, a curved surface), and a sticking patch's points drift
  // apart in gap until they cannot all close. With this on, each step first moves the
  // unactuated dofs by the displacement that brings those gaps back to 0 and slides those
  // contacts least (post-stabilisation, Cline & Pai 2003).
  bool stabilize = true;
  double regularization = 1e-3;     // convex: the unactuated dofs' mass, as a fraction of their mass matrix
  ContactPoints contact_points = ContactPoints::Manifold;
  // Manifold points: at most this many per geom pair (0: all), spanning the patch, points
  // within `point_spacing` (m) of the span of those kept dropped (see reduce_to_support).
  int max_points_per_pair = 0;
  double point_spacing = 0.0;
  // ... and a point whose gap exceeds the deepest's by e counts e / support_tilt (rad) nearer
  // that span: a rounded box's rim, 0.6 mm above its flat base and 3 mm farther out, must
  // not stand in for the base's corners (that let the base's corners sink 0.6 mm).
  double support_tilt = 0.02;  // the collider's kSupportTilt
  // Manifold points: last step's points that the collider no longer reports are kept while
  // their pair is within the margin (see system.h, add_persistent_points).
  bool persistent_points = true;
  // Convex: per actuated joint (by name), a stiffness other than `stiffness` (N/m or
  // N·m/rad): a stiff arm carrying a compliant grasp.
  std::vector<std::pair<std::string, double>> joint_stiffness;
  bool operator==(const QuasistaticOptions&) const = default;
};

// The penalty stepper's reaction direction (penalty/penalty_contact.h): the gradient of the
// overlap volume (area-weighted normals of its boundary), or the seed's eq. 3 as written.
enum class PenaltyDirection { VolumeGradient, SeedEq3 };
template <>
struct EnumNames<PenaltyDirection> {
  static constexpr auto table = std::to_array<std::pair<PenaltyDirection, const char*>>({
      {PenaltyDirection::VolumeGradient, "volume_gradient"},
      {PenaltyDirection::SeedEq3, "seed_eq3"},
  });
};
// What the damping term g2 multiplies: the rate of the volume through the seed's low-pass
// (eq. 4: filter states in the ODE), or the exact rate (Reynolds transport over the overlap's
// boundary; no lag).
enum class PenaltyRate { Filtered, Exact };
template <>
struct EnumNames<PenaltyRate> {
  static constexpr auto table = std::to_array<std::pair<PenaltyRate, const char*>>({
      {PenaltyRate::Filtered, "filtered"},
      {PenaltyRate::Exact, "exact"},
  });
};
// The penalty stepper's friction: eq. 8 (μ|f_n| tanh(γ|v_t|): no static friction, a held
// load creeps), or a bristle per pair (LuGre-like, in the ODE state): a tangential spring of
// stiffness |f_n| / stick_length that saturates at μ|f_n|, so a load below μ|f_n| is held
// after a presliding displacement of at most μ·stick_length.
enum class PenaltyFriction { Tanh, Bristle };
template <>
struct EnumNames<PenaltyFriction> {
  static constexpr auto table = std::to_array<std::pair<PenaltyFriction, const char*>>({
      {PenaltyFriction::Tanh, "tanh"},
      {PenaltyFriction::Bristle, "bristle"},
  });
};

// The penalty stepper's settings (formulation C, seed 004; checked by validate_penalty).
// The seed's values are in centimetres (g1 "740 N/cm" for a law on a volume); read per cm³
// and per cm/s (docs/penalty.md), in SI: g1 = 740 N/cm³ = 7.4e8 N/m³, g2 = 50 N·s/cm³,
// γ = 1 s/cm = 100 s/m, β = 0.2 N·s/cm = 20 N·s/m.
struct PenaltyOptions {
  double stiffness = 7.4e8;        // g1, N/m³: force per overlap volume
  double damping = 2.0e5;          // g2, N·s/m³: force per rate of the volume (the seed's 5e7 is ~40x overdamped: docs/penalty.md)
  double impact_gain = 250.0;      // g_i: height of the first-contact gain (eq. 5)
  double target_depth = 2e-3;      // d_t, m: the gain lasts d_t / impact speed
  double impact_delay = 1.0;       // g_t: the gain peaks g_t · d_v after first contact
  double filter_frequency = 1000.0;  // ω_n of the volume-rate filter (eq. 4), rad/s
  double filter_damping = 1.0;     // ζ of that filter
  double friction_smoothing = 100.0; // γ, s/m: tanh(γ |v_t|) replaces sign(v_t) (eq. 8)
  double viscous_friction = 20.0;    // β, N·s/m (eq. 8)
  PenaltyFriction friction = PenaltyFriction::Tanh;
  double stick_length = 1e-3;        // m (friction: bristle): the spring's length per unit μ
  double atol = 1e-6;              // RK45 error control: m, rad, m/s
  double rtol = 1e-6;
  double max_step = 1e-3;          // s: the longest internal step (an approaching contact is not stepped over)
  // Joint limits as one-sided springs, ω = 2π·limit_frequency and damping ratio
  // limit_damping on the dof's inertia; frictionloss as frictionloss·tanh(smoothing·q̇).
  double limit_frequency = 100.0;  // Hz
  double limit_damping = 1.0;
  double joint_friction_smoothing = 100.0;  // s/rad (s/m for a slider)
  PenaltyDirection direction = PenaltyDirection::VolumeGradient;
  PenaltyRate rate = PenaltyRate::Exact;
  bool operator==(const PenaltyOptions&) const = default;
};

// What every formulation reads (checked by ModelBuilder), and each formulation's own part.
struct Options {
  Vec3 gravity{0.0, 0.0, -9.81};
  double dt = 1.0 / 60.0;
  StepperType stepper = StepperType::Dynamics;
  std::uint64_t seed = 0;          // seeds every random choice a stepper makes
  // Contact points are made down to this separation (m): speculative contacts, so bodies
  // placed touching (or about to touch) are caught in the step they arrive.
  double contact_margin = 1e-3;
  // 0: face contacts are the corners of the overlap polygon; n ≥ 2: an n×n grid of points
  // over it, each with its share of the area (distributed support for area contact).
  int patch_grid = 0;
  DynamicsOptions dynamics;
  SpookOptions spook;
  QuasistaticOptions quasistatic;
  PenaltyOptions penalty;
};

// ---- the model ------------------------------------------------------------------------
struct Model {
  std::vector<Body> bodies;        // bodies[0] is the world; a parent precedes its children
  std::vector<Joint> joints;       // in body order
  std::vector<Geom> geoms;
  std::vector<Site> sites;
  std::vector<std::shared_ptr<const Mesh>> meshes;
  std::vector<std::string> materials;       // materials[0] == "default"
  std::vector<ContactMaterial> contact_materials;
  ContactMaterial default_contact;
  std::vector<Tendon> tendons;
  std::vector<Actuator> actuators;
  std::vector<Equality> equalities;
  std::vector<Keyframe> keyframes;
  std::vector<std::pair<int, int>> excluded_body_pairs;  // never collide (a < b), sorted, unique
  Options options;

  int nq = 0, nv = 0;
  VecX q0, v0;                     // initial configuration and velocity
  std::vector<int> kinematic_dofs;  // dofs of kinematic bodies, ascending (Input::kinematic_v)
  bool default_contact_used = false;  // some pair of materials used by geoms has no entry

  int nbody() const { return static_cast<int>(bodies.size()); }
  int njoint() const { return static_cast<int>(joints.size()); }
  int ngeom() const { return static_cast<int>(geoms.size()); }

  // Index by name; -1 when absent (find_*) or an InputError naming it (*_id).
  int find_body(const std::string& name) const;
  int find_joint(const std::string& name) const;
  int find_geom(const std::string& name) const;
  int find_actuator(const std::string& name) const;
  int find_site(const std::string& name) const;
  int body_id(const std::string& name) const;
  int joint_id(const std::string& name) const;

  const ContactMaterial& contact_material(int material_a, int material_b) const;
  // True if the two bodies may collide (not the same, not parent-child, not excluded).
  bool bodies_may_collide(int body_a, int body_b) const;
};

}  // namespace graspsim
