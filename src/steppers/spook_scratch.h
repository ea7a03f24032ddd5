#pragma once
// The SPOOK stepper's private scratch (SpookScratch) and the steps of it that live in their
// own files: sleeping (spook_sleep.cpp). Not a public header: only the stepper includes it.

#include <cstdint>
#include <utility>
#include <vector>

#include "collision/broadphase.h"
#include "contact/contact_kinematics.h"
#include "model/model.h"
#include "model/state.h"
#include "spook/problem.h"
#include "spook/scratch.h"
#include "steppers/jacobian_rows.h"

namespace graspsim {

// One contact point's rows in the SPOOK problem (assembly bookkeeping).
struct ContactRowsInfo {
  int set = -1, point = -1;          // index into SpookScratch::contact_sets and its points
  int body_a = 0, body_b = 0;
  int contact = -1;                  // index into Problem::contacts
  int first_direction = 0, ndirections = 0;  // friction directions in SpookScratch::directions
  double mu = 0.0;
  double relax_target = 0.0;         // the normal's target in the relax pass (Problem::relax_target)
  const ContactSlot* memory = nullptr;  // into State::contacts (unchanged until the step ends)
  int slot = -1;                     // State::contacts' slot of the point's own key, or −1
};

// Scratch of the SPOOK stepper (collision results, the assembled problem), private to it.
struct SpookScratch {
  Broadphase broadphase;
  std::vector<Pose> X_WG;            // geom poses at the start of the step
  std::vector<ContactSet> contact_sets;
  std::vector<ContactRowsInfo> contact_rows;
  std::vector<Vec3> directions;      // friction directions (world) of every contact, in row order
  JacobianEntries jacobian;          // J's entries as the row builders append them
  JacobianLayout jacobian_layout;    // J's pattern of the last step, kept while it recurs
  std::vector<int> structure_last, structure_scratch;  // structure_key of the last step, and scratch
  std::uint64_t structure_stamps = 0;  // Problem::structure stamps handed out
  // Point Jacobian of a contact point on each body: (dof, velocity of the point per unit
  // dof velocity), dofs ascending.
  PointChain chain_a, chain_b;
  RowEntries row_entries;            // a lone row's entries (RowBuilder::add_row_at)
  std::vector<int> actuator_row;     // row of each servo actuator, −1 for force actuators
  std::vector<std::pair<int, int>> remembered_rows;  // RowBuilder::remember
  spook::Problem problem;
  int ncontacts = 0;                 // contacts in problem (assembly counter)
  // Assembly storage, kept for its capacity (a steady step allocates nothing here).
  std::vector<double> row_target, row_compliance, row_lo, row_hi;
  std::vector<spook::RowKind> row_kind;
  std::vector<std::pair<int, double>> box_fixed;  // box-friction contact, previous normal impulse (−1: new)
  VecX damping;                      // joint damping per dof
  VecX bias, tau, rhs;               // c(q, v), applied forces, τ − c (nv)
  VecX rhs_f, qacc_prescribed;       // per-tree views: the tree's right side, prescribed accelerations
  std::vector<MatX> tree_M;          // mass-matrix block of each tree
  std::vector<MatX> tree_Mh;         // each tree's factored block (M + hD) of the last step
  std::vector<int> tree_parent;      // a large tree's dof parents, in its block's numbering
  spook::SolverScratch solver;
  spook::Solution solution;
  // Sleeping (step 2b): per body, its tree's root and whether that tree sleeps this step;
  // per root, whether its tree may sleep at all; union-find over roots; the contact sets
  // left out of the problem (both sides asleep or fixed).
  std::vector<int> root_of, island_parent;
  std::vector<char> asleep, may_sleep, root_flags, island_flags;
  std::vector<int> sleeping_sets;
  // Sleeping pairs are not collided again while they stay asleep and unmoved: their contact
  // sets from the last step, which bodies may reuse theirs (CollideOptions::frozen_bodies),
  // and q after the last step (a tree moved by hand since is collided anew).
  std::vector<ContactSet> sleeping_cache;
  std::vector<ContactSlot*> pair_slots;  // ContactTable::touch_pair's
  std::vector<const ContactSlot*> pair_memory;  // ContactTable::find_pair's
  std::vector<char> frozen;
  VecX q_last;
};

// The body after the tree hanging from the world at `root` (bodies are in depth-first order,
// a parent before its children, so a tree's bodies are [root, tree_end)).
int tree_end(const Model& model, int root);

// ---- sleeping (spook_sleep.cpp) ---------------------------------------------------------

// Which trees may ever sleep (SpookScratch::may_sleep, per root): free dofs only, nothing
// driven (kinematic bodies, actuators) or tied to another tree (equalities). Fills root_of.
void classify_trees(const Model& model, SpookScratch& sc);
// Which bodies' contacts are kept from the last step instead of collided again
// (CollideOptions::frozen_bodies): fixed bodies (1), and trees asleep in the last step that
// have not been moved or given a velocity since (2).
void mark_frozen(const Model& model, const State& s, SpookScratch& sc);
// Adds the last step's sleeping contact sets whose bodies are still frozen, in collide()'s order.
void add_frozen_contacts(const Model& model, SpookScratch& sc);
// Whether a contact between bodies a and b leaves the problem: both asleep or fixed, one asleep.
bool sleeping_pair(const SpookScratch& sc, int a, int b);
// Advances each tree's still time and decides which islands sleep this step (SpookScratch::asleep).
void mark_sleeping(const Model& model, State& s, SpookScratch& sc, const SleepOptions& o);

}  // namespace graspsim
