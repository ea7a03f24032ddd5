// graspsim.step, StepResult and graspsim.rollout: stepping with the GIL released.

#include <algorithm>
#include <exception>
#include <set>
#include <thread>

#include <pybind11/stl.h>

#include "core/error.h"
#include "core/parallel.h"
#include "io/run.h"
#include "py_types.h"

namespace graspsim::python {
namespace {

// n steps of one state: the given input held, or the scene's signals sampled before each step
// (what `graspsim run` does, so both reach the same bits).
// A divergence names the scene file and the step, as `graspsim run` says it.
void advance(const PyModel& m, PyState& s, const Input* input, const Formulation& f, long n, StepResult* result) {
  const Model& model = m.model();
  s.prepare(model, f);
  try {
    for (long i = 0; i < n; ++i) {
      if (!input) sample_signals(model, s.state.t, model.options.dt, s.ws.input);
      step(model, s.state, input ? *input : s.ws.input, f, s.ws, result);
    }
  } catch (const DivergenceError& e) {
    throw DivergenceError(divergence_message(m.scene->path, s.state, e.what()));
  }
}

// A 1-D NumPy array holding its own copy of x.
py::array_t<double> copied(const VecX& x) { return py::array_t<double>(x.size(), x.data()); }

long require_steps(long steps, const char* name) {
  if (steps < 0) throw InputError(std::string(name) + " must be >= 0, got " + std::to_string(steps));
  return steps;
}

template <class F>
py::array_t<double> contact_array(const StepResult& r, int width, F get) {
  const auto n = static_cast<py::ssize_t>(r.contacts.size());
  py::array_t<double> a = width == 1 ? py::array_t<double>(n) : py::array_t<double>({n, static_cast<py::ssize_t>(width)});
  double* out = a.mutable_data();
  for (const ContactResult& c : r.contacts) out = get(c, out);
  return a;
}

py::array_t<double> vec3s(const StepResult& r, Vec3 ContactResult::*field) {
  return contact_array(r, 3, [field](const ContactResult& c, double* o) {
    const Vec3& x = c.*field;
    o[0] = x.x(), o[1] = x.y(), o[2] = x.z();
    return o + 3;
  });
}

py::array_t<double> scalars(const StepResult& r, double ContactResult::*field) {
  return contact_array(r, 1, [field](const ContactResult& c, double* o) {
    *o = c.*field;
    return o + 1;
  });
}

py::array_t<int> indices(const StepResult& r, int ContactResult::*field) {
  py::array_t<int> a(static_cast<py::ssize_t>(r.contacts.size()));
  int* o = a.mutable_data();
  for (const ContactResult& c : r.contacts) *o++ = c.*field;
  return a;
}

py::object py_step(const PyModel& m, PyState& s, const PyInput* input, long steps, bool result,
                   const std::optional<PyFormulation>& formulation) {
  require_steps(steps, "steps");
  s.bind(m);
  const Formulation f = formulation_or_scene(m, formulation);
  StepResult r;
  {
    py::gil_scoped_release release;
    advance(m, s, input ? &input->input : nullptr, f, steps, result ? &r : nullptr);
  }
  if (!result) return py::none();
  return py::cast(std::move(r));
}

// Per-step summaries of a rollout, one array each of shape (batch, nsteps).
struct RolloutArrays {
  py::array_t<double> t, q, v, normal_force, max_depth, residual, wall;
  py::array_t<int> contacts, iterations;

  RolloutArrays(py::ssize_t batch, py::ssize_t n, int nq, int nv)
      : t({batch, n}), q({batch, n, static_cast<py::ssize_t>(nq)}), v({batch, n, static_cast<py::ssize_t>(nv)}),
        normal_force({batch, n}), max_depth({batch, n}), residual({batch, n}), wall({batch, n}),
        contacts({batch, n}), iterations({batch, n}) {}

  py::dict dict() const {
    py::dict d;
    d["t"] = t, d["q"] = q, d["v"] = v, d["contacts"] = contacts, d["normal_force"] = normal_force;
    d["max_depth"] = max_depth, d["solver_residual"] = residual, d["solver_iterations"] = iterations;
    d["wall_time_s"] = wall;
    return d;
  }
};

// Raw pointers into the arrays, written by the worker threads (each its own rows).
struct RolloutRows {
  double *t, *q, *v, *normal_force, *max_depth, *residual, *wall;
  int *contacts, *iterations;
  long n;
  int nq, nv;

  void write(std::size_t item, long k, const State& s, const StepResult& r) const {
    const std::size_t row = item * static_cast<std::size_t>(n) + static_cast<std::size_t>(k);
    t[row] = s.t;
    std::copy(s.q.data(), s.q.data() + nq, q + row * static_cast<std::size_t>(nq));
    std::copy(s.v.data(), s.v.data() + nv, v + row * static_cast<std::size_t>(nv));
    double fn = 0.0, depth = 0.0;
    for (const ContactResult& c : r.contacts) fn += c.fn, depth = std::max(depth, c.depth);
    contacts[row] = static_cast<int>(r.contacts.size());
    normal_force[row] = fn;
    max_depth[row] = depth;
    residual[row] = r.solver_residual;
    iterations[row] = r.solver_iterations;
    wall[row] = r.wall_time_s;
  }
};

// Rethrows `e` with the batch item named, keeping its type (InputError: ValueError in Python).
[[noreturn]] void rethrow_item(std::size_t item, const std::exception_ptr& e) {
  const std::string prefix = "rollout item " + std::to_string(item) + ": ";
  try {
    std::rethrow_exception(e);
  } catch (const DivergenceError& x) {
    throw DivergenceError(prefix + x.what());
  } catch (const InputError& x) {
    throw InputError(prefix + x.what());
  } catch (const std::exception& x) {
    throw std::runtime_error(prefix + x.what());
  }
}

py::dict rollout(const py::object& models, const std::vector<PyState*>& states, const py::object& inputs, long nsteps,
                 unsigned threads, const std::optional<PyFormulation>& formulation) {
  require_steps(nsteps, "nsteps");
  const std::size_t batch = states.size();
  std::vector<const PyModel*> model(batch);
  if (py::isinstance<PyModel>(models)) {
    std::fill(model.begin(), model.end(), &models.cast<const PyModel&>());
  } else {
    const auto list = models.cast<std::vector<const PyModel*>>();
    if (list.size() != batch)
      throw InputError("rollout: " + std::to_string(list.size()) + " models for " + std::to_string(batch) + " states");
    model = list;
  }
  std::vector<const PyInput*> input(batch, nullptr);
  if (!inputs.is_none()) {
    const auto list = inputs.cast<std::vector<const PyInput*>>();
    if (list.size() != batch)
      throw InputError("rollout: " + std::to_string(list.size()) + " inputs for " + std::to_string(batch) + " states");
    input = list;
  }
  std::set<const PyState*> seen;
  std::vector<Formulation> f(batch);
  for (std::size_t i = 0; i < batch; ++i) {
    if (!states[i]) throw InputError("rollout: state " + std::to_string(i) + " is None");
    if (!seen.insert(states[i]).second)
      throw InputError("rollout: state " + std::to_string(i) + " appears twice in the batch (copy() it)");
    if (model[i]->model().nq != model[0]->model().nq || model[i]->model().nv != model[0]->model().nv)
      throw InputError("rollout: model " + std::to_string(i) + " has other nq or nv than model 0");
    states[i]->bind(*model[i]);
    f[i] = formulation_or_scene(*model[i], formulation);
  }
  const int nq = batch ? model[0]->model().nq : 0, nv = batch ? model[0]->model().nv : 0;
  RolloutArrays arrays(static_cast<py::ssize_t>(batch), nsteps, nq, nv);
  const RolloutRows rows{arrays.t.mutable_data(),  arrays.q.mutable_data(),        arrays.v.mutable_data(),
                         arrays.normal_force.mutable_data(), arrays.max_depth.mutable_data(),
                         arrays.residual.mutable_data(),     arrays.wall.mutable_data(),
                         arrays.contacts.mutable_data(),     arrays.iterations.mutable_data(),
                         nsteps, nq, nv};
  std::vector<std::exception_ptr> errors(batch);
  {
    py::gil_scoped_release release;
    if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
    run_ordered(batch, threads, [&](std::size_t i) {
      try {
        StepResult r;
        for (long k = 0; k < nsteps; ++k) {
          advance(*model[i], *states[i], input[i] ? &input[i]->input : nullptr, f[i], 1, &r);
          rows.write(i, k, states[i]->state, r);
        }
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }, [](std::size_t) {});
  }
  for (std::size_t i = 0; i < batch; ++i)
    if (errors[i]) rethrow_item(i, errors[i]);
  return arrays.dict();
}

}  // namespace

void bind_step(py::module_& mod) {
  py::class_<QuasistaticStepInfo>(mod, "QuasistaticStepInfo",
                                  "What a quasistatic step did (StepResult.quasistatic): its command, its "
                                  "displacement, and the contact solver's work.")
      .def_property_readonly("actuated_dofs", [](const QuasistaticStepInfo& i) { return i.actuated_dofs; },
                             "Velocity indices of the actuated dofs.")
      .def_property_readonly("dq_command", [](const QuasistaticStepInfo& i) { return copied(i.dq_command); },
                             "Commanded displacement of the actuated dofs (m or rad).")
      .def_property_readonly("dq", [](const QuasistaticStepInfo& i) { return copied(i.dq); },
                             "Actual displacement of the actuated dofs (m or rad).")
      .def_readonly("binaries", &QuasistaticStepInfo::binaries)
      .def_readonly("nodes", &QuasistaticStepInfo::nodes)
      .def_readonly("solve_ms", &QuasistaticStepInfo::solve_ms)
      .def_readonly("objective", &QuasistaticStepInfo::objective)
      .def_readonly("big_m_active", &QuasistaticStepInfo::big_m_active)
      .def_readonly("proven", &QuasistaticStepInfo::proven)
      .def_readonly("force_balance", &QuasistaticStepInfo::force_balance)
      .def_readonly("complementarity", &QuasistaticStepInfo::complementarity)
      .def_readonly("stabilized", &QuasistaticStepInfo::stabilized);

  py::class_<StepResult>(mod, "StepResult",
                         "What a step produced besides the new state: its contacts (world frame; forces on "
                         "geom B, the normal from A to B) and the solver's work. Arrays have one row per contact.")
      .def("__len__", [](const StepResult& r) { return r.contacts.size(); })
      .def_property_readonly("position", [](const StepResult& r) { return vec3s(r, &ContactResult::position); },
                             "(n, 3) contact points (m).")
      .def_property_readonly("normal", [](const StepResult& r) { return vec3s(r, &ContactResult::normal); },
                             "(n, 3) unit normals from geom A to geom B.")
      .def_property_readonly("ft", [](const StepResult& r) { return vec3s(r, &ContactResult::ft); },
                             "(n, 3) friction force on B (N).")
      .def_property_readonly("slip", [](const StepResult& r) { return vec3s(r, &ContactResult::slip); },
                             "(n, 3) tangential velocity of B relative to A at the end of the step (m/s).")
      .def_property_readonly("fn", [](const StepResult& r) { return scalars(r, &ContactResult::fn); },
                             "(n,) normal force on B (N), mean over the step.")
      .def_property_readonly("depth", [](const StepResult& r) { return scalars(r, &ContactResult::depth); },
                             "(n,) penetration at the start of the step (m).")
      .def_property_readonly("torsion", [](const StepResult& r) { return scalars(r, &ContactResult::torsion); },
                             "(n,) torsional friction moment on B about the normal (N·m).")
      .def_property_readonly("mu", [](const StepResult& r) { return scalars(r, &ContactResult::mu); })
      .def_property_readonly("cone_error", [](const StepResult& r) { return scalars(r, &ContactResult::cone_error); },
                             "(n,) Coulomb cone error max(0, |f_t|/(mu f_n) - 1) (thesis eq. 4.1).")
      .def_property_readonly("alignment_error",
                             [](const StepResult& r) { return scalars(r, &ContactResult::alignment_error); },
                             "(n,) angle between friction and slip less pi (rad, thesis eq. 4.2); NaN while sticking.")
      .def_property_readonly("volume", [](const StepResult& r) { return scalars(r, &ContactResult::volume); },
                             "(n,) penalty stepper: overlap volume (m^3).")
      .def_property_readonly("geom_a", [](const StepResult& r) { return indices(r, &ContactResult::geom_a); },
                             "(n,) index into Model.geom_names.")
      .def_property_readonly("geom_b", [](const StepResult& r) { return indices(r, &ContactResult::geom_b); })
      .def_property_readonly("body_a", [](const StepResult& r) { return indices(r, &ContactResult::body_a); },
                             "(n,) body index: 0 is the world, b >= 1 is Model.body_names[b - 1].")
      .def_property_readonly("body_b", [](const StepResult& r) { return indices(r, &ContactResult::body_b); })
      .def_readonly("solver", &StepResult::solver)
      .def_readonly("solver_residual", &StepResult::solver_residual)
      .def_readonly("solver_iterations", &StepResult::solver_iterations)
      .def_readonly("asleep_bodies", &StepResult::asleep_bodies)
      .def_readonly("solver_threads", &StepResult::solver_threads)
      .def_readonly("wall_time_s", &StepResult::wall_time_s)
      .def_property_readonly(
          "quasistatic",
          [](const StepResult& r) -> py::object {
            return r.quasistatic.valid ? py::cast(r.quasistatic) : py::none();
          },
          "The quasistatic stepper's QuasistaticStepInfo; None for the other formulations.");

  mod.def("step", &py_step, py::arg("model"), py::arg("state"), py::arg("input") = nullptr, py::arg("steps") = 1,
          py::arg("result") = false, py::arg("formulation") = std::nullopt,
          "Advances `state` by `steps` time steps of model.dt, in place, with the GIL released. Without `input` "
          "the scene's own signals drive it (as `graspsim run` does: same bits); an Input is held over all the "
          "steps. `formulation` (Model.formulation(...)) replaces the scene's. With result=True returns the last "
          "step's StepResult, else None.");

  mod.def("rollout", &rollout, py::arg("model"), py::arg("states"), py::arg("inputs") = py::none(),
          py::arg("nsteps") = 1, py::arg("threads") = 0, py::arg("formulation") = std::nullopt,
          "Steps a batch of independent simulations `nsteps` each on `threads` threads (0: every core) with the "
          "GIL released; the states advance in place. `model` is one Model or one per state (same nq and nv: "
          "domain randomization over loads of one scene); `inputs` None (the scenes' signals) or one Input (or "
          "None) per state, held. Returns a dict of arrays of shape (batch, nsteps[, n]): t, q, v, contacts, "
          "normal_force (sum over contacts, N), max_depth (m), solver_residual, solver_iterations, wall_time_s. "
          "Everything but wall_time_s is bit-identical whatever the number of threads. An item that fails raises "
          "after all have run, naming the first failed item.");
}

}  // namespace graspsim::python
