#include "integrators/config_space.h"

#include "kinematics/integrate.h"

namespace graspsim {

ConfigSpace euclidean_space(int n) {
  ConfigSpace s;
  s.nq = s.nv = n;
  s.integrate_fn = [](const void*, VecX& q, const VecX& dv, double h) { q += h * dv; };
  s.local_rate_fn = [](const void*, const VecX&, const VecX& v, VecX& udot) { udot = v; };
  return s;
}

ConfigSpace model_space(const Model& model) {
  ConfigSpace s;
  s.nq = model.nq;
  s.nv = model.nv;
  s.data = &model;
  s.integrate_fn = [](const void* m, VecX& q, const VecX& dv, double h) {
    integrate_q(*static_cast<const Model*>(m), q, dv, h);
  };
  s.local_rate_fn = [](const void* m, const VecX& u, const VecX& v, VecX& udot) {
    local_rate(*static_cast<const Model*>(m), u, v, udot);
  };
  return s;
}

}  // namespace graspsim
