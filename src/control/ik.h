#pragma once
// Inverse kinematics: joint positions that put a frame of the model at a world pose.
//
// Damped least squares (Levenberg–Marquardt) over the engine's own Jacobians
// (contact/contact_kinematics.h: point and angular chains of the frame's body). Each
// iteration solves
//     (JᵀJ + λ² I) Δq = Jᵀ e,   e = [p* − p ; w · log(R* Rᵀ)]   (world frame)
// over the chosen dofs only, J = [J_p ; w · J_ω] their columns, and moves q ← q ⊕ Δq
// (integrate_q), clamped to the joint limits. A dof resting on a limit that the step
// pushes further out is held for that iteration (the others are re-solved without it).
// A step that does not lower ‖e‖ is refused and λ grows (×4); an accepted one lets it
// shrink back (÷4) towards the configured λ, so the solver is a Newton step close to
// the target and a short gradient step near singularities or at an unreachable target.
// Deterministic: the same inputs give the same bits.

#include <string>
#include <vector>

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

// The frame to place: a pose offset in a body (a site is its body plus its pose).
struct IkTarget {
  int body = 0;
  Pose X_BF;  // the frame in the body's frame
};

// The frame named `name`: a site of the model (its body and pose in it), else a body (its
// own frame). Throws InputError when the model has neither.
IkTarget ik_target(const Model& model, const std::string& name);

// World pose of the target frame at configuration q.
Pose frame_pose(const Model& model, const IkTarget& target, const VecX& q);

struct IkOptions {
  double damping = 1e-3;              // λ (m): the smallest damping of the least-squares step
  double orientation_weight = 1.0;    // w (m/rad): rotation error counts as w·angle metres
  double position_tolerance = 1e-6;   // m
  double rotation_tolerance = 1e-5;   // rad
  int max_iterations = 200;           // each evaluates one step (accepted or refused)
  double max_step = 0.5;              // largest change of one dof per iteration (rad or m)
};

struct IkResult {
  VecX q;                        // the best configuration found (within the joint limits)
  double position_error = 0.0;   // ‖p* − p‖ at q (m)
  double rotation_error = 0.0;   // angle of R* Rᵀ at q (rad)
  int iterations = 0;
  bool converged = false;        // both errors within the tolerances
};

// Moves only `dofs` (indices into v; of any joint type, quaternions stay unit) from q_seed
// (clamped to the limits first) until the frame is at X_W_target within the tolerances, or
// max_iterations, or no step lowers the error any more (an unreachable target: the result
// is the closest configuration found, converged = false). Throws InputError for a dof out
// of range or given twice, a seed of the wrong size or not finite, or bad options.
IkResult solve_ik(const Model& model, const IkTarget& target, const Pose& X_W_target, const std::vector<int>& dofs,
                  VecX q_seed, const IkOptions& options = {});

}  // namespace graspsim
