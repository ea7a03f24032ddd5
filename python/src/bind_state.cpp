// State: t, q, v as NumPy views, save and load (the CLI's state.bin).

#include <cstdint>

#include <pybind11/stl/filesystem.h>

#include "core/error.h"
#include "py_types.h"

namespace graspsim::python {

void assign(VecX& x, const py::handle& value, const char* name) {
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
  if (!a || a.ndim() != 1 || a.shape(0) != x.size())
    throw InputError(std::string(name) + ": expected " + std::to_string(x.size()) + " numbers in a 1-D array");
  std::copy(a.data(), a.data() + x.size(), x.data());
}

namespace {

// Same sizes and names: a state of one model steps with another load of the same scene (other
// friction, masses, parameters), not with another robot.
void require_same_structure(const Model& a, const Model& b) {
  bool same = a.nq == b.nq && a.nv == b.nv && a.nbody() == b.nbody() && a.njoint() == b.njoint() &&
              a.ngeom() == b.ngeom() && a.actuators.size() == b.actuators.size();
  for (int i = 0; same && i < a.nbody(); ++i) same = a.bodies[i].name == b.bodies[i].name;
  for (int i = 0; same && i < a.njoint(); ++i) same = a.joints[i].name == b.joints[i].name && a.joints[i].type == b.joints[i].type;
  for (int i = 0; same && i < a.ngeom(); ++i) same = a.geoms[i].name == b.geoms[i].name;
  if (!same)
    throw InputError("this state belongs to another model (its bodies, joints or geoms differ); make one with "
                     "model.make_state()");
}

}  // namespace

void PyState::bind(const PyModel& m) {
  if (model.get() == &m.model()) return;
  if (!model) {
    // Checked only: `state` keeps its memory (NumPy views of it stay valid) and any edits.
    (void)bind_state(std::move(*saved), m.model());
    saved.reset();
  } else {
    require_same_structure(*model, m.model());
  }
  model = m.scene->model;
}

void PyState::prepare(const Model& m, const Formulation& f) {
  if (ws_model == &m && ws_formulation == f) return;
  ws = Workspace{};
  ws_model = &m;
  ws_formulation = f;
}

namespace {

PyState& bound(PyState& s) {
  if (!s.model)
    throw InputError(s.saved->file + ": this state was loaded without a model; use it with one first "
                     "(graspsim.step, Model.body_pose) or load it with graspsim.State.load(path, model)");
  return s;
}

std::unique_ptr<PyState> load(const std::filesystem::path& path, const PyModel* model) {
  auto s = std::make_unique<PyState>();
  s->saved = read_state(path);
  s->state = s->saved->state;  // readable before it is bound (t, q, v)
  if (model) s->bind(*model);
  return s;
}

}  // namespace

void bind_state(py::module_& mod) {
  py::class_<PyState>(mod, "State",
                      "Everything about one simulation that changes over time. q and v are writable NumPy views "
                      "into the state (no copies); assigning an array copies it in.")
      .def_property(
          "t", [](const PyState& s) { return s.state.t; }, [](PyState& s, double t) { s.state.t = t; }, "Time (s).")
      .def_property_readonly("step", [](const PyState& s) { return s.state.step; }, "Steps taken.")
      .def_property(
          "q", [](py::object self) { return view(self.cast<PyState&>().state.q, self); },
          [](PyState& s, const py::handle& x) { assign(s.state.q, x, "q"); },
          "Generalized positions (nq): per joint in model order; a free joint is x, y, z, qw, qx, qy, qz.")
      .def_property(
          "v", [](py::object self) { return view(self.cast<PyState&>().state.v, self); },
          [](PyState& s, const py::handle& x) { assign(s.state.v, x, "v"); },
          "Generalized velocities (nv); a free joint's are its linear velocity (world) then its angular "
          "velocity.")
      .def_property(
          "act", [](py::object self) { return view(self.cast<PyState&>().state.act, self); },
          [](PyState& s, const py::handle& x) { assign(s.state.act, x, "act"); },
          "Actuator controller states (one per actuator).")
      .def_property(
          "sleep_time", [](py::object self) { return view(self.cast<PyState&>().state.sleep_time, self); },
          [](PyState& s, const py::handle& x) { assign(s.state.sleep_time, x, "sleep_time"); },
          "SPOOK sleeping: per body, how long its tree has been still (s; a tree's is its root's). Set it "
          "to zero to wake the trees, e.g. after moving a sleeping body by hand through q.")
      .def_property(
          "constraint_forces",
          [](py::object self) { return view(self.cast<PyState&>().state.constraint_forces, self); },
          [](PyState& s, const py::handle& x) { assign(s.state.constraint_forces, x, "constraint_forces"); },
          "SPOOK's warm start for the rows that are not contacts: last step's forces (N or N m) of joint "
          "limits, equalities, servos and joint friction. Set it to zero to start them from zero.")
      .def("copy", [](const PyState& s) {
            auto c = std::make_unique<PyState>();
            c->model = s.model;
            c->saved = s.saved;
            c->state = s.state;
            return c;
          }, "An independent copy (it steps to the same bits as the original).")
      .def("save", [](PyState& s, const std::filesystem::path& path) {
            bound(s);
            save_state(path, *s.model, s.state);
          }, py::arg("path"), "Writes the state to `path` as the CLI's state.bin (graspsim run --from-state).")
      .def_static("load", [](const std::filesystem::path& path, const PyModel* model) { return load(path, model); },
                  py::arg("path"), py::arg("model") = py::none(),
                  "Reads a state file (a run's state.bin or State.save). Without `model` it is checked against "
                  "the first model it is used with; with one, at once.")
      .def("__repr__", [](const PyState& s) {
        return "graspsim.State(t=" + show(s.state.t) + ", step=" + std::to_string(s.state.step) +
               ", nq=" + std::to_string(s.state.q.size()) + ")";
      });
}

}  // namespace graspsim::python
