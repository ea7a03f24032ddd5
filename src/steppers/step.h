#pragma once
// The step: (Model, State, Input) -> State, by the formulation chosen with one switch.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kinematics/kinematics.h"
#include "model/input.h"
#include "model/model.h"
#include "model/state.h"

namespace graspsim {

// Which formulation steps a model, with its settings: the scene's choice by default
// (scene_formulation), replaceable per run, so one Model can be stepped by different
// formulations in one process. Each stepper reads only its own part.
struct Formulation {
  StepperType stepper = StepperType::Dynamics;
  DynamicsOptions dynamics;        // dynamics stepper
  SpookOptions spook;              // SPOOK stepper
  QuasistaticOptions quasistatic;  // quasistatic stepper
  PenaltyOptions penalty;          // penalty stepper
  bool operator==(const Formulation&) const = default;
};
Formulation scene_formulation(const Model& model);

// Checks what the chosen stepper alone reads: its part of the options and of the contact
// materials (ModelBuilder::build() checked what is common). Throws InputError naming the
// scene key ("options: ...") or the contact material's source. load_scene() calls it with
// the scene's formulation; step() with a per-run formulation that differs from the
// scene's. A model made with ModelBuilder directly is checked by calling it.
void validate_formulation(const Model& model, const Formulation& formulation);

// Each formulation's private scratch, defined (and deleted) by its stepper.
struct DynamicsScratch;
struct SpookScratch;
struct QuasistaticScratch;
struct PenaltyScratch;
struct ScratchDeleter {
  void operator()(DynamicsScratch* p) const;
  void operator()(SpookScratch* p) const;
  void operator()(QuasistaticScratch* p) const;
  void operator()(PenaltyScratch* p) const;
};

// Scratch memory reused from step to step; owns nothing a user needs between steps. The
// public members are what every formulation leaves for the recorder and callers.
struct Workspace {
  KinematicsData kin;              // kinematics at the start of the last step
  VecX qacc;                       // dynamics stepper: accelerations of its last evaluation (nv)
  VecX actuator_effort;            // per actuator, last step (N or N·m)
  Input input;                     // step() without an Input samples the scene's signals here

  std::unique_ptr<DynamicsScratch, ScratchDeleter> dynamics;  // created by the formulation on first use
  std::unique_ptr<SpookScratch, ScratchDeleter> spook;
  std::unique_ptr<QuasistaticScratch, ScratchDeleter> quasistatic;
  std::unique_ptr<PenaltyScratch, ScratchDeleter> penalty;
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
  double volume = 0.0;               // penalty stepper: the overlap volume (m³), at the step's end
};

// What a penalty step's integrator did (formulation C) over the output interval.
struct PenaltyStepInfo {
  bool valid = false;              // false for the other formulations
  std::int64_t accepted = 0;       // RK45 steps
  std::int64_t rejected = 0;
  std::int64_t evaluations = 0;    // derivative evaluations (each one overlap query per candidate pair)
  std::int64_t overlap_calls = 0;  // overlap-volume queries
  double overlap_seconds = 0.0;    // time in them
};

// What a quasistatic step did (formulation B): its input, its output, and the solver's work.
struct QuasistaticStepInfo {
  bool valid = false;              // false for the other formulations
  VecX q_before;                   // q^l, the configuration the step started from
  std::vector<int> actuated_dofs;  // velocity indices of the actuated dofs
  VecX dq_command, dq;             // commanded and actual displacement of the actuated dofs
  int binaries = 0;                // MIQP binaries (2 n_c + n_d)
  int nodes = 0;                   // branch-and-bound nodes or pivots
  double solve_ms = 0.0;           // time in the contact solver
  double objective = 0.0;
  bool big_m_active = false;       // MIQP: a big-M bound was active (M too small)
  bool proven = true;              // MIQP: the step's optimum was proven (see QuasistaticSolution::proven)
  double force_balance = 0.0;      // residual of the unactuated force balance (N·s)
  double complementarity = 0.0;    // largest min(|w|, |λ|) over the complementarity pairs
  double stabilized = 0.0;         // largest gap change of the step's post-stabilisation (m)
};

// What one step produced, beyond the new state.
struct StepResult {
  double wall_time_s = 0.0;        // time spent in step()
  std::vector<ContactResult> contacts;  // contact steppers: every contact point
  double solver_residual = 0.0;    // complementarity residual of the contact solve (m/s)
  int solver_iterations = 0;       // iterations (or pivots) of the contact solve
  std::string solver;              // the solver that ran
  int asleep_bodies = 0;           // SPOOK: bodies asleep this step (SleepOptions), kept still
  int solver_threads = 1;          // SPOOK: threads its Iterative sweeps ran on (options.threads)
  QuasistaticStepInfo quasistatic; // quasistatic stepper only
  PenaltyStepInfo penalty;         // penalty stepper only
};

// Advances `state` by model.options.dt under `input` with the given formulation. Throws
// InputError if the state or the input is not finite or not of the model's sizes, or a
// formulation other than the scene's is invalid for the model (validate_formulation), and
// std::runtime_error if the step produced non-finite values.
void step(const Model& model, State& state, const Input& input, const Formulation& formulation, Workspace& ws,
          StepResult* result = nullptr);
// The same with the scene's formulation.
void step(const Model& model, State& state, const Input& input, Workspace& ws, StepResult* result = nullptr);
// The scene's formulation driven by the scene's signals (sample_signals at state.t).
void step(const Model& model, State& state, Workspace& ws, StepResult* result = nullptr);

}  // namespace graspsim
