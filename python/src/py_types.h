#pragma once
// What the Python module wraps: a loaded scene (Model), a State with the scratch its steps
// reuse, an Input, a Formulation. NumPy views of their vectors keep the owner alive.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "io/scene.h"
#include "io/state_file.h"
#include "model/input.h"
#include "steppers/step.h"

namespace graspsim::python {

namespace py = pybind11;

// A scene, MJCF or URDF file as loaded: the immutable Model and what the scene file says
// around it (duration, parameters, recording). Shared by every State made from it.
struct PyModel {
  std::shared_ptr<const Scene> scene;
  std::vector<std::string> overrides;  // the `set` it was loaded with, as --set texts
  const Model& model() const { return *scene->model; }
};

struct PyFormulation {
  Formulation formulation;
};

struct PyInput {
  Input input;
};

// A State and the Workspace its steps reuse. The Workspace owns nothing the state needs
// between steps (a fresh one steps to the same bits), so it is dropped whenever the model or
// the formulation changes.
struct PyState {
  std::shared_ptr<const Model> model;  // null while it is a state file not yet used with a model
  std::optional<SavedState> saved;     // that file, until then
  State state;
  Workspace ws;
  const Model* ws_model = nullptr;
  std::optional<Formulation> ws_formulation;

  // Makes `m` this state's model: a state file is checked against it (the CLI's
  // --from-state messages); a state of another model must have the same structure.
  void bind(const PyModel& m);
  // Drops the scratch when it was made for another model or formulation.
  void prepare(const Model& m, const Formulation& f);
};

// A writable 1-D NumPy view of `x` that keeps `owner` alive.
inline py::array_t<double> view(VecX& x, py::handle owner) {
  return py::array_t<double>({static_cast<py::ssize_t>(x.size())}, {static_cast<py::ssize_t>(sizeof(double))},
                             x.data(), owner);
}

// Copies a 1-D array of n numbers into x (sizes are never changed from Python).
void assign(VecX& x, const py::handle& value, const char* name);

// The formulation to step with: the given one, or the scene's.
Formulation formulation_or_scene(const PyModel& m, const std::optional<PyFormulation>& f);

void bind_model(py::module_& m);
void bind_state(py::module_& m);
void bind_step(py::module_& m);

}  // namespace graspsim::python
