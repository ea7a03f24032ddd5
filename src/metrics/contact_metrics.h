#pragma once
// Contact-quality metrics every stepper reports (SPEC "Metrics").

#include "core/types.h"

namespace graspsim {

// Coulomb cone error, thesis eq. 4.1: C = max(0, ‖f_t‖ / (μ‖f_n‖) − 1). Zero inside the
// cone. With no normal force, any friction is an infinite violation (returns +inf) and
// no friction is none (returns 0). A friction force within `force_tol` (N) of the cone is
// in it: a solver that meets its rows to a tolerance leaves that much friction where the
// normal force is zero, which is rounding, not an infinite violation.
double coulomb_cone_error(double fn, const Vec3& ft, double mu, double force_tol = 0.0);

// Alignment error, thesis eq. 4.2: A = arccos(f_t·v / (‖f_t‖‖v‖)) − π, in radians: 0 when
// friction opposes the slip exactly, down to −π when it pushes along it. NaN (not
// defined) while not sliding (‖v‖ <= slip_tol) or without friction (‖f_t‖ <= force_tol).
double alignment_error(const Vec3& ft, const Vec3& slip, double slip_tol = 1e-6, double force_tol = 1e-12);

// Seed 004, section III.B: kinetic energy of the object over the kinetic energy it would
// have moving rigidly with the gripper (same linear and angular velocity as the gripper's
// frame, evaluated at the object's centre of mass). 1 = held rigidly, > 1 = moving relative
// to the gripper. Velocities and inertia are in world coordinates.
double kinetic_energy_ratio(double mass, const Mat3& inertia_W, const Vec3& v_com, const Vec3& w,
                            const Vec3& v_gripper_at_com, const Vec3& w_gripper);

}  // namespace graspsim
