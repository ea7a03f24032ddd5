#pragma once
// Mass properties of solids: primitives in closed form, closed triangle meshes by the
// divergence theorem (Mirtich 1996 / Eberly's polyhedral mass properties).

#include "core/types.h"
#include "model/mesh.h"

namespace graspsim {

struct MassProperties {
  double mass = 0.0;
  Vec3 com = Vec3::Zero();         // in the frame the shape was given in
  Mat3 inertia = Mat3::Zero();     // about com, same frame

  // Moves these properties into frame F given the shape frame's pose X_FS.
  MassProperties transformed(const Pose& X_FS) const;
  // Sum of several parts, all in one frame.
  MassProperties operator+(const MassProperties& other) const;
};

MassProperties box_mass_properties(const Vec3& half_extents, double density);
MassProperties sphere_mass_properties(double radius, double density);
MassProperties cylinder_mass_properties(double radius, double half_length, double density);
MassProperties capsule_mass_properties(double radius, double half_length, double density);
// The mesh must be closed and consistently oriented (outward normals); the signed volume
// is checked positive, otherwise InputError names the mesh.
MassProperties mesh_mass_properties(const Mesh& mesh, double density);

}  // namespace graspsim
