// The extension module graspsim._graspsim; python/graspsim/__init__.py re-exports it.

#include "core/error.h"
#include "core/version.h"
#include "py_types.h"

PYBIND11_MODULE(_graspsim, m) {
  namespace py = pybind11;
  using namespace graspsim;
  m.doc() = "graspsim: grasping and in-hand manipulation with three contact formulations (SPOOK, quasistatic, "
            "volumetric penalty) on the same scenes.";
  m.attr("__version__") = kVersion;
  // Bad input (the CLI's exit 2) is a ValueError; a diverging simulation is one too, with the
  // step, the joint and what to change in its message. Registered base first: pybind11 tries
  // the last registered translator first, so DivergenceError is matched before InputError.
  auto& input_error = py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  py::register_exception<DivergenceError>(m, "DivergenceError", input_error.ptr());
  python::bind_model(m);
  python::bind_state(m);
  python::bind_step(m);
}
