#pragma once
// Rigid multibody dynamics in generalized coordinates: M(q) q̈ + c(q, v) = τ.

#include <vector>

#include "core/types.h"
#include "kinematics/kinematics.h"
#include "model/model.h"

namespace graspsim {

// Joint-space mass matrix (nv x nv, symmetric positive definite), composite rigid body
// algorithm, joint armature added on the diagonal. Needs forward_kinematics.
void mass_matrix(const Model& model, const KinematicsData& kin, MatX& M);

// The diagonal block of M over dofs [v_begin, v_begin + n), which must be whole trees (M is
// block diagonal over the trees hanging from the world): O(n·depth) work and n² memory
// instead of nv², for scenes of many independent bodies.
void mass_matrix_block(const Model& model, const KinematicsData& kin, int v_begin, int n, MatX& M);

// The same block for body b on a free joint hanging from the world, in closed form from its
// mass properties and orientation R: [[m 1, −m R [c]×], [m [c]× Rᵀ, I_c − m [c]×²]] (c the
// centre of mass in the body frame; dofs: origin velocity in the world, then ω in the body
// frame). It depends on R only through c, so a body whose origin is its centre of mass
// gets a bitwise-constant block (its factor and inverse are then kept between steps).
void free_body_mass_matrix(const Model& model, int b, const Mat3& R, MatX& M);

// Bias forces c(q, v): Coriolis, centrifugal and gravity (recursive Newton-Euler with
// q̈ = 0). Needs forward_kinematics. `skip` (per body, whole trees only): trees whose
// c is not wanted (asleep ones), left at zero.
void bias_forces(const Model& model, const KinematicsData& kin, const VecX& v, VecX& c,
                 const std::vector<char>* skip = nullptr);

// τ = M(q) q̈ + c(q, v), by recursive Newton-Euler.
VecX inverse_dynamics(const Model& model, const KinematicsData& kin, const VecX& v, const VecX& qdd);

// Joint damping and springs as generalized forces: τ = −d v − k (q − q_ref).
void passive_forces(const Model& model, const VecX& q, const VecX& v, VecX& tau);

// Kinetic energy ½ vᵀ M v and potential energy of gravity (plus joint springs).
double kinetic_energy(const Model& model, const KinematicsData& kin, const VecX& v);
double potential_energy(const Model& model, const KinematicsData& kin, const VecX& q);

}  // namespace graspsim
