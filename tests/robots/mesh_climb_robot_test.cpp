// The robot loaders attach the climb index to the hulls their convex meshes collide as.

#include <gtest/gtest.h>

#include "robots/robot_file.h"

namespace graspsim {
namespace {

TEST(MeshClimb, LoadedRobotsCarryTheIndexOnTheirCollisionHulls) {
  const LoadedRobot robot = load_robot(std::string(GRASPSIM_SHARED_DIR) + "/data/models/shadow_hand/right_hand.xml");
  int indexed = 0, convex = 0;
  for (const Geom& g : robot.model->geoms) {
    if (g.type != GeomType::ConvexMesh) continue;
    ++convex;
    indexed += robot.model->meshes[g.mesh]->climb != nullptr;
  }
  EXPECT_GT(convex, 0);
  EXPECT_EQ(indexed, convex);  // every hull here has over 32 vertices
}

}  // namespace
}  // namespace graspsim
