// A steady SPOOK step allocates nothing: after the contact set and the islands settle, the
// stepper, the solvers and the ContactTable reuse their storage.

#include <gtest/gtest.h>

#include "io/scene.h"
#include "steppers/step.h"

#include "../common/malloc_counter.h"

namespace graspsim {
namespace {

#ifdef GRASPSIM_COUNT_MALLOC
// Allocations over 100 steps after `settle` steps of scenes/<scene_file>.
long steady_allocations(const std::string& scene_file, const std::vector<std::string>& sets, int settle = 300) {
  const Scene scene = load_scene(std::string(GRASPSIM_SOURCE_DIR) + "/scenes/" + scene_file, sets);
  const Model& m = *scene.model;
  State s = make_state(m);
  Input in = make_input(m);
  const Formulation f = scene_formulation(m);
  Workspace ws;
  StepResult r;
  auto one = [&] {
    sample_signals(m, s.t, m.options.dt, in);
    step(m, s, in, f, ws, &r);
  };
  for (int i = 0; i < settle; ++i) one();
  EXPECT_GT(s.contacts.size(), 0);
  return test::count_allocations([&] {
    for (int i = 0; i < 100; ++i) one();
  });
}

TEST(SpookNoAllocation, SteadyGraspHold) {
  for (const char* solver : {"direct", "iterative", "split", "direct_iterative"}) {
    const std::string model = std::string(solver) == "direct" ? "box" : "cone";  // (direct cannot take the cone)
    EXPECT_EQ(steady_allocations("validation/grasp_hold.yaml", {std::string("parameters.solver=") + solver,
                                                     "parameters.friction_model=" + model}),
              0)
        << solver;
  }
  // With a relax pass (its position velocity kept in the solver's storage).
  EXPECT_EQ(steady_allocations("validation/grasp_hold.yaml", {"parameters.solver=iterative", "options.relax_sweeps=16"}), 0);
  // With a tolerance (its velocity readings in the solver's storage).
  EXPECT_EQ(steady_allocations("validation/grasp_hold.yaml", {"parameters.solver=iterative", "options.tolerance=1e-6"}), 0);
}

TEST(SpookNoAllocation, ShadowHandHoldAllocatesLittle) {
  // The hand holding the ball, 3.5 s in (lifted, holding, 8 contacts throughout): 24 dofs,
  // meshes, tendons. Not yet nothing: 286 in these 100 steps, from the problem's and the
  // operators' row-sized storage (fill_rows, make_operators, complementarity_residual; why
  // they resize in a steady hold is not found). The bound catches what the broadphase did
  // until session 34: it listed the model's meshes for every pair it tested, 17 286
  // allocations in these steps.
  EXPECT_LT(steady_allocations("robots/shadow_sphere.yaml", {"options.solver=iterative"}, 3500), 1000);
}
#else
TEST(SpookNoAllocation, SteadyGraspHold) { GTEST_SKIP() << "allocation counting is off under sanitizers"; }
#endif

}  // namespace
}  // namespace graspsim
