"""graspsim: robotic grasping and in-hand manipulation with three contact formulations.

Load a scene, MJCF or URDF file, make a State, step it::

    import graspsim
    model = graspsim.load("scenes/validation/grasp_hold.yaml", set={"parameters.mu": 0.5})
    state = model.make_state()
    graspsim.step(model, state, steps=100)
    position, quaternion = model.body_pose(state, "box")

The engine is C++ (graspsim._graspsim); stepping releases the GIL, and ``rollout`` steps a
batch on a thread pool. Bad input raises ``graspsim.InputError`` (a ``ValueError``) with the
message the command line prints.
"""

from ._graspsim import (  # noqa: F401
    DivergenceError,
    Formulation,
    Input,
    InputError,
    Model,
    QuasistaticStepInfo,
    State,
    StepResult,
    __version__,
    load,
    rollout,
    step,
)

__all__ = [
    "DivergenceError",
    "Formulation",
    "Input",
    "InputError",
    "Model",
    "QuasistaticStepInfo",
    "State",
    "StepResult",
    "load",
    "rollout",
    "step",
]
