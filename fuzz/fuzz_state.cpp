// Checkpoints (state.bin) through load_state against a fixed model with a free body, a
// hinge and a penalty contact's slot layout in reach.

#include <cstdlib>
#include <memory>

#include "fuzz_input.h"
#include "io/scene.h"
#include "io/state_file.h"
#include "steppers/step.h"

namespace {

const graspsim::Model& model() {
  static const graspsim::Scene scene = [] {
    std::ofstream(graspsim::fuzz::work_dir() / "model.yaml")
        << "options: {stepper: penalty}\ngeoms: [{name: ground, type: plane}]\nbodies:\n"
           "  - {name: box, joint: free, mass: 1, pos: [0, 0, 0.05], geoms: [{type: box, size: [0.05, 0.05, 0.05]}]}\n"
           "  - {name: arm, joint: {type: revolute, axis: [0, 0, 1]}, mass: 1, inertia: [1, 1, 1], pos: [1, 0, 1]}\n";
    return graspsim::load_scene((graspsim::fuzz::work_dir() / "model.yaml").string(), {});
  }();
  return *scene.model;
}

}  // namespace

// With GRASPSIM_FUZZ_SEED_DIR set, writes valid checkpoints of the model to that folder (the
// seed corpus: at the start, and after 20 steps with the box's contact slot) and exits.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* seeds = std::getenv("GRASPSIM_FUZZ_SEED_DIR");
  if (!seeds) return 0;
  const graspsim::Model& m = model();
  graspsim::State s = graspsim::make_state(m);
  graspsim::save_state(std::filesystem::path(seeds) / "start.bin", m, s);
  graspsim::Workspace ws;
  for (int i = 0; i < 20; ++i) graspsim::step(m, s, ws, nullptr);
  graspsim::save_state(std::filesystem::path(seeds) / "touching.bin", m, s);
  std::exit(0);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const graspsim::Model& m = model();
  const std::string path = graspsim::fuzz::write_input("state.bin", data, size);
  return graspsim::fuzz::run([&] { graspsim::load_state(path, m); });
}
