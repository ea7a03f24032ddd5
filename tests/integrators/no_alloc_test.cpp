// A steady step allocates nothing: this program replaces malloc (glibc forwards every
// allocation, Eigen's and operator new's, through it) with a counting wrapper and counts
// over many steps after the first.

#include <gtest/gtest.h>

#include "integrators/integrators.h"
#include "ode_systems.h"

#include "../common/malloc_counter.h"

namespace graspsim {
namespace {

#ifdef GRASPSIM_COUNT_MALLOC
using test::count_allocations;

// The counter itself must see allocations, or a zero below would prove nothing.
TEST(NoAllocation, CounterSeesAllocations) {
  EXPECT_GT(count_allocations([] {
              VecX x(100);
              x.setZero();
              EXPECT_EQ(x.sum(), 0.0);
            }),
            0);
}

TEST(NoAllocation, SteadyStepsOfEveryIntegratorOnAModel) {
  auto m = test::tumbling_body(Vec3(0.02, 0.05, 0.06), Quat::Identity());
  VecX v(6);
  v << 0.1, 0.0, -0.2, 0.05, 3.0, 0.02;
  const OdeState x0 = test::ode_state(0.0, m->q0, v, test::vec({1.0, 2.0}));  // nz = 2, unused
  test::RigidBodyDynamics dyn(*m);

  OdeState x = x0;
  SemiImplicitEuler euler(model_space(*m));
  RungeKutta4 rk4(model_space(*m));
  euler.step(dyn, x, 1e-3);  // first calls size the scratch
  rk4.step(dyn, x, 1e-3);
  EXPECT_EQ(count_allocations([&] {
              for (int i = 0; i < 100; ++i) {
                euler.step(dyn, x, 1e-3);
                rk4.step(dyn, x, 1e-3);
              }
            }),
            0);

  Rk45Options o;
  o.atol = o.rtol = 1e-8;
  DormandPrince45 rk(model_space(*m), o);
  rk.reset(x0);
  OdeState out = x0;  // sized like the state: interpolation writes in place
  rk.advance_to(dyn, 0.01, out);
  EXPECT_EQ(count_allocations([&] {
              for (int k = 2; k <= 200; ++k) rk.advance_to(dyn, 0.01 * k, out);
            }),
            0);
  EXPECT_GT(rk.stats().accepted, 10);
}

TEST(NoAllocation, SteadyStepsThroughRejections) {
  const test::BouncingMass ground = test::kelvin_voigt_ground(1e6, 0.1);
  DormandPrince45 rk(euclidean_space(1));
  rk.reset(test::ode_state(0.0, test::vec({0.2}), test::vec({0.0})));
  rk.step(ground);
  EXPECT_EQ(count_allocations([&] {
              rk.step_to(ground, 1.0);
            }),
            0);
  EXPECT_GT(rk.stats().rejected, 0);
}
#else
TEST(NoAllocation, NeedsGlibcWithoutSanitizers) { GTEST_SKIP() << "malloc cannot be replaced in this build"; }
#endif

}  // namespace
}  // namespace graspsim
