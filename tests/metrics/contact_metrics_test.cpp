#include "metrics/contact_metrics.h"

#include <cmath>
#include <numbers>

#include <gtest/gtest.h>

namespace graspsim {
namespace {

TEST(CoulombConeError, ZeroInsideAndOnTheCone) {
  EXPECT_EQ(coulomb_cone_error(10.0, Vec3(3, 0, 0), 0.5), 0.0);
  EXPECT_EQ(coulomb_cone_error(10.0, Vec3(3, 4, 0), 0.5), 0.0);  // ‖f_t‖ = μ f_n exactly
}

TEST(CoulombConeError, RelativeExcessOutside) {
  // Box friction saturated on both axes at 45°: ‖f_t‖ = √2 μ f_n, so C = √2 − 1.
  EXPECT_NEAR(coulomb_cone_error(10.0, Vec3(5, 5, 0), 0.5), std::sqrt(2.0) - 1.0, 1e-15);
  EXPECT_TRUE(std::isinf(coulomb_cone_error(0.0, Vec3(1, 0, 0), 0.5)));
  EXPECT_EQ(coulomb_cone_error(0.0, Vec3::Zero(), 0.5), 0.0);
  // Within the solver's tolerance of the cone: rounding, not a violation.
  EXPECT_EQ(coulomb_cone_error(1e-23, Vec3(1e-7, 0, 0), 0.5, 2e-7), 0.0);
  EXPECT_TRUE(std::isinf(coulomb_cone_error(0.0, Vec3(1e-6, 0, 0), 0.5, 2e-7)));
  EXPECT_NEAR(coulomb_cone_error(10.0, Vec3(5, 5, 0), 0.5, 1e-9), std::sqrt(2.0) - 1.0, 1e-15);
}

TEST(AlignmentError, ZeroWhenOpposingSlip) {
  EXPECT_NEAR(alignment_error(Vec3(-2, 0, 0), Vec3(0.1, 0, 0)), 0.0, 1e-7);
  EXPECT_NEAR(alignment_error(Vec3(-1, -1, 0), Vec3(1, 1, 0)), 0.0, 1e-7);
}

TEST(AlignmentError, MinusHalfPiWhenPerpendicular) {
  EXPECT_NEAR(alignment_error(Vec3(0, 1, 0), Vec3(1, 0, 0)), -std::numbers::pi / 2, 1e-12);
  EXPECT_NEAR(alignment_error(Vec3(1, 0, 0), Vec3(1, 0, 0)), -std::numbers::pi, 1e-12);
}

TEST(AlignmentError, UndefinedWhileSticking) {
  EXPECT_TRUE(std::isnan(alignment_error(Vec3(1, 0, 0), Vec3::Zero())));
  EXPECT_TRUE(std::isnan(alignment_error(Vec3::Zero(), Vec3(1, 0, 0))));
}

TEST(KineticEnergyRatio, OneWhenMovingWithTheGripper) {
  const Mat3 I = Vec3(0.1, 0.2, 0.3).asDiagonal();
  EXPECT_DOUBLE_EQ(kinetic_energy_ratio(2.0, I, Vec3(1, 2, 3), Vec3(0.5, 0, 1), Vec3(1, 2, 3), Vec3(0.5, 0, 1)), 1.0);
}

TEST(KineticEnergyRatio, SlipAddsEnergy) {
  const Mat3 I = Mat3::Identity() * 0.1;
  // Object twice as fast as the gripper, translation only: ratio 4.
  EXPECT_DOUBLE_EQ(kinetic_energy_ratio(1.0, I, Vec3(2, 0, 0), Vec3::Zero(), Vec3(1, 0, 0), Vec3::Zero()), 4.0);
}

}  // namespace
}  // namespace graspsim
