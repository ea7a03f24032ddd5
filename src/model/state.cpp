#include "model/state.h"

namespace graspsim {

State make_state(const Model& model) {
  State s;
  s.q = model.q0;
  s.v = model.v0;
  s.act = VecX::Zero(static_cast<Eigen::Index>(model.actuators.size()));
  s.rng.seed(model.options.seed);
  return s;
}

}  // namespace graspsim
