// graspsim.load, Model, Formulation, Input.

#include <cmath>
#include <cstdio>

#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "core/error.h"
#include "kinematics/kinematics.h"
#include "py_types.h"

namespace graspsim::python {
namespace {

// One `set` entry as the CLI's --set text: words as they are (solver=split), numbers exactly
// (%.17g), booleans as YAML's true/false, lists and mappings as JSON (YAML's flow style).
std::string override_text(const std::string& key, const py::handle& item) {
  const py::object value = py::reinterpret_borrow<py::object>(item);
  std::string text;
  if (py::isinstance<py::str>(value)) {
    text = value.cast<std::string>();
  } else if (py::isinstance<py::bool_>(value) ||
             py::type::of(value).attr("__name__").cast<std::string>() == "bool_") {
    text = py::bool_(value) ? "true" : "false";
  } else if (py::hasattr(value, "__index__")) {  // int, numpy integers
    text = py::str(py::int_(value)).cast<std::string>();
  } else if (py::hasattr(value, "__float__")) {  // float, numpy floats
    const double x = py::float_(value);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    text = std::isnan(x) ? ".nan" : std::isinf(x) ? (x > 0 ? ".inf" : "-.inf") : buf;
  } else {
    text = py::module_::import("json").attr("dumps")(value).cast<std::string>();
  }
  return key + "=" + text;
}

// `set` as a dict {key: value} or a list of "key=value" texts.
std::vector<std::string> override_texts(const py::object& set) {
  std::vector<std::string> out;
  if (set.is_none()) return out;
  if (py::isinstance<py::dict>(set)) {
    for (const auto& [k, v] : set.cast<py::dict>()) out.push_back(override_text(py::str(k).cast<std::string>(), v));
  } else if (py::isinstance<py::str>(set)) {
    out.push_back(set.cast<std::string>());
  } else {
    for (const auto& item : set) out.push_back(py::str(item).cast<std::string>());
  }
  return out;
}

PyModel load(const std::filesystem::path& path, const py::object& set) {
  PyModel m;
  m.overrides = override_texts(set);
  Scene scene;
  {
    py::gil_scoped_release release;
    scene = load_scene(path.string(), m.overrides);
  }
  m.scene = std::make_shared<const Scene>(std::move(scene));
  return m;
}

template <class T>
std::vector<std::string> names(const std::vector<T>& items, std::size_t first = 0) {
  std::vector<std::string> out;
  for (std::size_t i = first; i < items.size(); ++i) out.push_back(items[i].name);
  return out;
}

py::array_t<double> array(const double* x, py::ssize_t n) {
  py::array_t<double> a(n);
  std::copy(x, x + n, a.mutable_data());
  return a;
}

// Forward kinematics of a state, for pose and velocity queries.
KinematicsData kinematics_of(const PyModel& m, PyState& s) {
  s.bind(m);
  KinematicsData kin;
  forward_kinematics(m.model(), s.state.q, kin);
  return kin;
}

// The scene reloaded with more overrides gives another formulation for the same model: they
// may change the scene's options only (directly or through parameters that reach nothing else).
PyFormulation formulation(const PyModel& m, const py::object& set) {
  PyFormulation f;
  if (set.is_none()) {
    f.formulation = scene_formulation(m.model());
    return f;
  }
  std::vector<std::string> overrides = m.overrides;
  for (auto& text : override_texts(set)) overrides.push_back(std::move(text));
  const Scene other = load_scene(m.scene->path, overrides);
  nlohmann::json a = m.scene->resolved, b = other.resolved;
  for (auto* j : {&a, &b}) j->erase("options"), j->erase("parameters");
  std::string changed;
  for (const auto& [key, value] : b.items())
    if (!a.contains(key) || a[key] != value) changed += (changed.empty() ? "" : ", ") + key;
  for (const auto& [key, value] : a.items())
    if (!b.contains(key)) changed += (changed.empty() ? "" : ", ") + key;
  if (!changed.empty())
    throw InputError(m.scene->path + ": formulation(set=...) changes the scene beyond its options (" + changed +
                     "); load that scene as another model with graspsim.load(path, set=...)");
  f.formulation = scene_formulation(*other.model);
  validate_formulation(m.model(), f.formulation);
  return f;
}

}  // namespace

Formulation formulation_or_scene(const PyModel& m, const std::optional<PyFormulation>& f) {
  return f ? f->formulation : scene_formulation(m.model());
}

void bind_model(py::module_& mod) {
  py::class_<PyFormulation>(mod, "Formulation",
                            "A formulation and its settings (the stepper and its options), for step() and rollout().")
      .def_property_readonly("stepper",
                             [](const PyFormulation& f) { return std::string(to_string(f.formulation.stepper)); },
                             "'dynamics', 'spook', 'quasistatic' or 'penalty'.")
      .def("__repr__", [](const PyFormulation& f) {
        return "graspsim.Formulation(stepper='" + std::string(to_string(f.formulation.stepper)) + "')";
      });

  py::class_<PyInput>(mod, "Input",
                      "What drives a model during a step besides the model: actuator controls (ctrl) and the "
                      "kinematic dofs' commanded velocities (kinematic_v). Writable NumPy views.")
      .def_property(
          "ctrl", [](py::object self) { return view(self.cast<PyInput&>().input.ctrl, self); },
          [](PyInput& in, const py::handle& x) { assign(in.input.ctrl, x, "ctrl"); },
          "Per actuator (Model.actuator_names): force (N, N·m) or servo set point (m, rad, m/s, rad/s).")
      .def_property(
          "kinematic_v", [](py::object self) { return view(self.cast<PyInput&>().input.kinematic_v, self); },
          [](PyInput& in, const py::handle& x) { assign(in.input.kinematic_v, x, "kinematic_v"); },
          "Per kinematic dof (Model.kinematic_dofs): the velocity it reaches at the end of the step.")
      .def("copy", [](const PyInput& in) { return PyInput{in.input}; });

  py::class_<PyModel>(mod, "Model", "A loaded scene, MJCF or URDF file: the immutable model. Make States from it.")
      .def_property_readonly("path", [](const PyModel& m) { return m.scene->path; })
      .def_property_readonly("dt", [](const PyModel& m) { return m.model().options.dt; }, "Time step (s).")
      .def_property_readonly("duration", [](const PyModel& m) { return m.scene->duration; },
                             "The scene's `duration` (s): what `graspsim run` simulates.")
      .def_property_readonly("nq", [](const PyModel& m) { return m.model().nq; })
      .def_property_readonly("nv", [](const PyModel& m) { return m.model().nv; })
      .def_property_readonly("nu", [](const PyModel& m) { return m.model().actuators.size(); },
                             "Number of actuators (the length of Input.ctrl).")
      .def_property_readonly("body_names", [](const PyModel& m) { return names(m.model().bodies, 1); },
                             "Body names, without the world.")
      .def_property_readonly("joint_names", [](const PyModel& m) { return names(m.model().joints); })
      .def_property_readonly("geom_names", [](const PyModel& m) { return names(m.model().geoms); },
                             "Geom names; StepResult.geom_a/geom_b index this list.")
      .def_property_readonly("actuator_names", [](const PyModel& m) { return names(m.model().actuators); })
      .def_property_readonly("kinematic_dofs", [](const PyModel& m) { return m.model().kinematic_dofs; },
                             "Velocity indices of the kinematic dofs (Input.kinematic_v's order).")
      .def_property_readonly(
          "parameters",
          [](const PyModel& m) {
            py::dict d;
            for (const auto& [k, v] : m.scene->parameters) d[py::str(k)] = v;
            for (const auto& [k, v] : m.scene->text_parameters) d[py::str(k)] = v;
            return d;
          },
          "The scene's parameters after `set`.")
      .def_property_readonly("stepper",
                             [](const PyModel& m) { return std::string(to_string(m.model().options.stepper)); })
      .def("make_state", [](const PyModel& m) {
            auto s = std::make_unique<PyState>();
            s->model = m.scene->model;
            s->state = make_state(m.model());
            return s;
          }, "The initial state: the scene's q0 and v0 at t = 0.")
      .def("make_input", [](const PyModel& m) { return PyInput{make_input(m.model())}; }, "An Input of zeros.")
      .def("signals", [](const PyModel& m, double t) {
            PyInput in{make_input(m.model())};
            sample_signals(m.model(), t, m.model().options.dt, in.input);
            return in;
          }, py::arg("t"),
          "The scene's own signals (controls, kinematic velocities) for the step that starts at t: what "
          "step() uses when given no input.")
      .def("formulation", &formulation, py::arg("set") = py::none(),
           "The scene's formulation, or the one the scene would have with these overrides (options.stepper, "
           "options.solver, parameters that only reach the options, ...).")
      .def("body_pose", [](const PyModel& m, PyState& s, const std::string& name) {
            const int b = m.model().body_id(name);
            const KinematicsData kin = kinematics_of(m, s);
            const Pose& X = kin.X_WB[b];
            const double q[4] = {X.q.w(), X.q.x(), X.q.y(), X.q.z()};
            return py::make_tuple(array(X.p.data(), 3), array(q, 4));
          }, py::arg("state"), py::arg("name"),
          "The body frame in the world: (position[3] in m, unit quaternion [w, x, y, z]).")
      .def("body_velocity", [](const PyModel& m, PyState& s, const std::string& name) {
            const int b = m.model().body_id(name);
            const KinematicsData kin = kinematics_of(m, s);
            Vec3 w, v;
            body_velocity(m.model(), kin, s.state.v, b, w, v);
            return py::make_tuple(array(v.data(), 3), array(w.data(), 3));
          }, py::arg("state"), py::arg("name"),
          "The body frame's origin velocity and angular velocity, both in the world (m/s, rad/s): "
          "bodies.csv's vx..wz.")
      .def("__repr__", [](const PyModel& m) {
        return "graspsim.Model('" + m.scene->path + "', nq=" + std::to_string(m.model().nq) +
               ", nv=" + std::to_string(m.model().nv) + ", bodies=" + std::to_string(m.model().nbody() - 1) + ")";
      });

  mod.def("load", &load, py::arg("path"), py::arg("set") = py::none(),
          "Loads a scene (.yaml), MJCF (.xml) or URDF (.urdf) file. `set` overrides scene values like the CLI's "
          "--set: a dict {'parameters.mu': 0.3, 'bodies.box.mass': 2} or a list of 'key=value' texts. Raises "
          "graspsim.InputError naming the file, line and key.");
}

}  // namespace graspsim::python
