#pragma once
// Closed, outward-oriented triangle meshes of the primitive shapes, for overlap volumes and
// drawing. Polyhedra are inscribed: their vertices lie on the true surface.

#include "core/types.h"
#include "model/mesh.h"
#include "model/model.h"

namespace graspsim {

// `resolution` = segments around the axis (>= 3); spheres and caps use resolution/2 (>= 2)
// latitude bands per half-turn.
Mesh tessellate_sphere(double radius, int resolution);
Mesh tessellate_box(const Vec3& half_extents);
Mesh tessellate_capsule(double radius, double half_length, int resolution);
Mesh tessellate_cylinder(double radius, double half_length, int resolution);

// Sphere, Box, Capsule, Cylinder from geom.size, in the geom frame. Meshes are returned as
// stored in the model. Plane → InputError (it has no finite volume).
Mesh tessellate(const Model& model, int geom, int resolution);

}  // namespace graspsim
