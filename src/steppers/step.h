#pragma once
// The step: (Model, State) -> State, chosen by Model::options.stepper with one switch.

#include <string>
#include <utility>
#include <vector>

#include <Eigen/SparseCore>

#include "collision/broadphase.h"
#include "kinematics/kinematics.h"
#include "model/model.h"
#include "model/state.h"
#include "steppers/spook/problem.h"
#include "steppers/spook/scratch.h"

namespace graspsim {

// One contact point's rows in the SPOOK problem (assembly bookkeeping).
struct ContactRowsInfo {
  int set = -1, point = -1;          // index into SpookScratch::contact_sets and its points
  int body_a = 0, body_b = 0;
  int contact = -1;                  // index into Problem::contacts
  int first_direction = 0, ndirections = 0;  // friction directions in SpookScratch::directions
  double mu = 0.0;
  const ContactMemory* memory = nullptr;  // into State::contacts (unchanged until the step ends)
};

// Scratch of the SPOOK stepper (collision results, the assembled problem).
struct SpookScratch {
  Broadphase broadphase;
  std::vector<Pose> X_WG;            // geom poses at the start of the step
  std::vector<ContactSet> contact_sets;
  std::vector<ContactRowsInfo> contact_rows;
  std::vector<Vec3> directions;      // friction directions (world) of every contact, in row order
  std::vector<Eigen::Triplet<double>> triplets;
  // Point Jacobian of a contact point on each body: (dof, velocity of the point per unit
  // dof velocity), dofs ascending.
  std::vector<std::pair<int, Vec3>> chain_a, chain_b;
  std::vector<int> actuator_row;     // row of each servo actuator, −1 for force actuators
  spook::Problem problem;
  int ncontacts = 0;                 // contacts in problem (assembly counter)
  // Assembly storage, kept for its capacity (a steady step allocates nothing here).
  std::vector<double> row_target, row_compliance, row_lo, row_hi;
  std::vector<spook::RowKind> row_kind;
  std::vector<std::pair<int, double>> box_fixed;  // box-friction contact, previous normal impulse (−1: new)
  std::vector<ContactMemory> memory;  // next State::contacts (swapped in)
  VecX damping;                      // joint damping per dof
  std::vector<MatX> tree_M;          // mass-matrix block of each tree
  std::vector<MatX> tree_Mh;         // each tree's factored block (M + hD) of the last step
  spook::SolverScratch solver;
  spook::Solution solution;
};

// Scratch memory reused from step to step; owns nothing a user needs between steps.
struct Workspace {
  KinematicsData kin;
  MatX M;                          // mass matrix (nv x nv)
  VecX bias, tau, qacc;            // c(q, v), applied generalized forces, accelerations (nv)
  VecX actuator_effort;            // per actuator, last step (N or N·m)

  // Dynamics stepper scratch (sized on first use, then reused without allocation).
  std::vector<int> free_dofs;      // dofs solved for by forward dynamics
  std::vector<int> prescribed_dofs;  // dofs of kinematic bodies, driven by their signals
  VecX rhs, qacc_prescribed;       // τ − c; signal accelerations of the prescribed dofs
  MatX M_ff;                       // M restricted to free_dofs (when some dofs are prescribed)
  VecX rhs_f, qacc_f;              // the reduced system's right side and solution
  VecX q_stage, v_stage;           // RK4: the configuration and velocity of a stage
  VecX u, u_rate, u_sum, qacc_sum; // RK4: local coordinate, its rate, weighted sums of the stages

  SpookScratch spook;
};

// The force between two geoms at one contact point, as the stepper resolved it.
struct ContactResult {
  int geom_a = -1, geom_b = -1, body_a = 0, body_b = 0;
  Vec3 position = Vec3::Zero();      // world
  Vec3 normal = Vec3::UnitZ();       // from A to B
  double depth = 0.0;                // penetration at the start of the step (m)
  double fn = 0.0;                   // normal force on B (N), mean over the step
  Vec3 ft = Vec3::Zero();            // friction force on B (N, world)
  Vec3 slip = Vec3::Zero();          // tangential velocity of B relative to A at the end of the step (m/s)
  double torsion = 0.0;              // torsional friction moment on B about the normal (N·m)
  double mu = 0.0;
  double cone_error = 0.0;           // thesis eq. 4.1
  double alignment_error = 0.0;      // thesis eq. 4.2, rad; NaN while sticking
};

// What one step produced, beyond the new state.
struct StepResult {
  double wall_time_s = 0.0;        // time spent in step()
  std::vector<ContactResult> contacts;  // contact steppers: every contact point
  double solver_residual = 0.0;    // complementarity residual of the contact solve (m/s)
  int solver_iterations = 0;       // iterations (or pivots) of the contact solve
  std::string solver;              // the solver that ran
};

// Advances `state` by model.options.dt. Throws InputError if the state is not finite
// before the step, and std::runtime_error if the step produced non-finite values.
void step(const Model& model, State& state, Workspace& ws, StepResult* result = nullptr);

}  // namespace graspsim
