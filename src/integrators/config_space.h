#pragma once
// What every time integrator shares: the state x = (q, v, z), the configuration space q
// lives on, and a non-owning view of the derivative callback. The integrators themselves
// are in integrators/integrators.h.

#include <memory>
#include <type_traits>

#include "core/types.h"
#include "model/model.h"

namespace graspsim {

// x = (q, v, z) at time t: configuration q (nq; may hold the unit quaternions of free and
// ball joints), velocity v (nv; q̇ = v through the configuration space) and extra states
// z (nz ≥ 0, e.g. contact filter states), which integrate as a plain vector.
struct OdeState {
  double t = 0.0;
  VecX q, v, z;
};

// The configuration space as two operations on q:
//   integrate(q, dv, h)      q ← q ⊕ h·dv
//   local_rate(u, v, udot)   u̇ of the local coordinate u (q = q0 ⊕ u) while moving at v
// Runge-Kutta stages are taken in u (Munthe-Kaas), so unit quaternions stay on the group
// and the method keeps its order. A view: what `data` points to must outlive it. Plain
// function pointers, not std::function or virtuals: copyable, allocation-free, no
// hierarchy for two functions.
struct ConfigSpace {
  int nq = 0, nv = 0;
  const void* data = nullptr;
  void (*integrate_fn)(const void* data, VecX& q, const VecX& dv, double h) = nullptr;
  void (*local_rate_fn)(const void* data, const VecX& u, const VecX& v, VecX& udot) = nullptr;

  void integrate(VecX& q, const VecX& dv, double h) const { integrate_fn(data, q, dv, h); }
  void local_rate(const VecX& u, const VecX& v, VecX& udot) const { local_rate_fn(data, u, v, udot); }
};

// R^n: nq = nv = n, q ⊕ h·dv = q + h·dv, u̇ = v.
ConfigSpace euclidean_space(int n);

// A model's generalized coordinates (integrate_q and local_rate of kinematics/integrate.h).
// The model must outlive the view.
ConfigSpace model_space(const Model& model);
ConfigSpace model_space(const Model&&) = delete;  // the view would dangle

// A non-owning view of the derivative callback
//   f(t, q, v, z, vdot, zdot)
// which writes v̇ (nv) and ż (nz) at (t, q, v, z) into vdot and zdot; the integrators pass
// them sized, so a callback that only assigns elements (or same-size vectors) allocates
// nothing. Like C++26's std::function_ref: two pointers, no allocation, and the callable
// must outlive the view (a temporary lambda passed straight to an integrator call does).
class DerivativeRef {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, DerivativeRef> &&
             std::is_invocable_v<F&, double, const VecX&, const VecX&, const VecX&, VecX&, VecX&>)
  DerivativeRef(F&& f) noexcept  // implicit, so a lambda can be passed where a DerivativeRef is taken
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, double t, const VecX& q, const VecX& v, const VecX& z, VecX& vdot, VecX& zdot) {
          (*static_cast<std::remove_reference_t<F>*>(o))(t, q, v, z, vdot, zdot);
        }) {}

  void operator()(double t, const VecX& q, const VecX& v, const VecX& z, VecX& vdot, VecX& zdot) const {
    call_(object_, t, q, v, z, vdot, zdot);
  }

 private:
  void* object_;
  void (*call_)(void*, double, const VecX&, const VecX&, const VecX&, VecX&, VecX&);
};

}  // namespace graspsim
