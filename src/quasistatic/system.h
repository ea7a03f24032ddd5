#pragma once
// The quasistatic system at one configuration (seed 003, Section III): which dofs are
// actuated, what the actuated dofs are commanded to do over the step, and the contacts
// within the detection margin with their signed distances φ and normal and tangent
// Jacobians split into unactuated (u) and actuated (a) columns.
//
// Coordinates: everything is in velocity coordinates times h (displacements Δv = h·v), so
// a free body's rotation is an angle vector, not a quaternion difference; q is advanced by
// integrate_q. For joints whose v is q̇ (slides, hinges) this is the paper's Δq.

#include <string>
#include <utility>
#include <vector>

#include "collision/broadphase.h"
#include "collision/contact.h"
#include "contact/contact_kinematics.h"
#include "kinematics/kinematics.h"
#include "model/input.h"
#include "model/model.h"
#include "model/state.h"

namespace graspsim {

// Actuated dofs: kinematic bodies' dofs and the dofs of joints driven by a position or
// velocity servo; every other dof is unactuated (it moves only as the force balance
// allows). Ascending velocity indices.
struct QuasistaticPartition {
  std::vector<int> unactuated, actuated;
  std::vector<int> kinematic_index;  // per actuated dof: index into Input::kinematic_v, or −1
  std::vector<int> actuator;         // per actuated dof: the servo driving it, or −1
};
QuasistaticPartition quasistatic_partition(const Model& model);

// Throws InputError naming what the quasistatic stepper cannot model: equality constraints,
// servos through tendons or on multi-dof joints, limited unactuated joints, bad options.
void validate_quasistatic(const Model& model, const QuasistaticOptions& options);

struct QuasistaticContact {
  int geom_a = -1, geom_b = -1, body_a = 0, body_b = 0;
  std::uint64_t feature = 0;
  Vec3 point_a, point_b;   // witness points (world)
  Vec3 normal;             // unit, from A to B
  double phi = 0.0;        // signed distance (m), < 0 penetrating
  double mu = 0.0;
};

struct QuasistaticSystem {
  double h = 0.0;
  VecX dq_command;         // Δv̄_a: the actuated dofs' commanded displacement over the step
  VecX stiffness_a;        // convex scheme: each actuated dof's stiffness
  std::vector<QuasistaticContact> contacts;
  // Friction directions per contact: tangent_directions tangents (world), then, when any
  // contact material of the model has torsional friction, two about the normal (stored as
  // zero vectors: they are rotations, their rows ±(a/μ) n·(ω_B − ω_A) with a the contact's
  // torsional friction, so that the pyramid Σ P_f ≤ μ P_n bounds the moment by a P_n).
  std::vector<Vec3> directions;
  int ntorsion = 0;                // 0 or 2 directions per contact
  VecX torsion_arm;                // per contact: its torsional friction a (m), 0 for none
  VecX phi, mu;                    // per contact
  MatX Jn_u, Jn_a;                 // n_c × n_u, n_c × n_a
  MatX Jf_u, Jf_a;                 // n_d × n_u, n_d × n_a (row k: direction k)
  VecX tau_u;                      // external generalized force on the unactuated dofs (gravity, springs, force actuators)
  MatX M_u;                        // mass matrix block of the unactuated dofs (convex and MIQP schemes; else empty)
  int nc() const { return static_cast<int>(phi.size()); }
  int nd() const { return static_cast<int>(directions.size()); }
  int nu() const { return static_cast<int>(Jn_u.cols()); }
  int na() const { return static_cast<int>(Jn_a.cols()); }
  int ndir() const { return nc() ? nd() / nc() : 0; }
  int ntangent() const { return ndir() - ntorsion; }
  // The arm a/μ of contact i's rotational directions (0 without friction): their impulses
  // times it are the moment's.
  double torsion_scale(int i) const { return mu[i] > 0.0 ? torsion_arm[i] / mu[i] : 0.0; }
};

// Scratch reused from step to step.
struct QuasistaticBuildScratch {
  Broadphase broadphase;
  std::vector<Pose> X_WG;
  std::vector<ContactSet> contact_sets;
  PointChain chain_a, chain_b, spin_a, spin_b;
  MatX M;
  VecX c, passive;
};

// What the quasistatic stepper keeps of each contact in its slot of State::contacts: the
// hypothetical penetration φ̄ (seed 003, V.B), the MIQP's modes of the contact's pairs as
// bits (z_n, then z_f per direction, then z_s), and its witness points fixed in their bodies
// (body A's frame, body B's frame), and whether the step closed it (its gap after the step
// within closed_gap: 1, else 0).
namespace quasistatic_slot {
constexpr int kPhiBar = 0, kHasPhiBar = 1, kModes = 2, kHasModes = 3, kWitnessA = 4, kWitnessB = 7, kHasWitnesses = 10,
              kClosed = 11;
static_assert(kClosed < ContactSlot::kValues);
}  // namespace quasistatic_slot

// A slot's witness points (on A, on B) in the world at the kinematics `kin`.
std::pair<Vec3, Vec3> slot_witnesses(const Model& model, const KinematicsData& kin, const ContactSlot& slot);

// Adds to `cs` (a pair the collider reported within `margin`) the points of its slots in
// `table` that it no longer reports. A collider's manifold is not continuous in the pose: a
// pad touching a tilted edge reports the patch's corners while they overlap and one witness
// once the gap opens by a micron; the lost corner's row then leaves the linearization, and
// one step can swing the object through it. Such a point is kept, at its witnesses fixed in
// their bodies, with the normal of the nearest reported point, while its gap is within the
// margin, its witnesses have slid apart by less than the margin, and no reported point (nor
// its feature) is within the margin of it.
void add_persistent_points(const Model& model, const KinematicsData& kin, const ContactTable& table, double margin,
                           ContactSet& cs);

// The system at state s under input `in` (kinematics in `kin` are computed here).
void build_quasistatic_system(const Model& model, const State& s, const Input& in, const QuasistaticOptions& options,
                              const QuasistaticPartition& part, KinematicsData& kin, QuasistaticBuildScratch& scratch,
                              QuasistaticSystem& sys);

}  // namespace graspsim
