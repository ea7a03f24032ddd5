# Type stubs for graspsim (the extension module graspsim._graspsim, re-exported here).
from os import PathLike
from typing import Mapping, Sequence

import numpy as np
import numpy.typing as npt

__version__: str

Overrides = Mapping[str, object] | Sequence[str] | str | None

class InputError(ValueError):
    """Bad input: the message names the file, line and key (the CLI's exit 2)."""

class DivergenceError(InputError):
    """The simulation of valid input diverged; the message names the step, joint and what to change."""

class Formulation:
    """A formulation and its settings (the stepper and its options)."""
    @property
    def stepper(self) -> str: ...

class Input:
    """Actuator controls and kinematic velocities for a step (writable NumPy views)."""
    ctrl: npt.NDArray[np.float64]
    kinematic_v: npt.NDArray[np.float64]
    def copy(self) -> Input: ...

class State:
    """One simulation's changing part: t, q, v (NumPy views, no copies)."""
    t: float
    q: npt.NDArray[np.float64]
    v: npt.NDArray[np.float64]
    act: npt.NDArray[np.float64]
    sleep_time: npt.NDArray[np.float64]
    constraint_forces: npt.NDArray[np.float64]
    @property
    def step(self) -> int: ...
    def copy(self) -> State: ...
    def save(self, path: str | PathLike[str]) -> None: ...
    @staticmethod
    def load(path: str | PathLike[str], model: Model | None = None) -> State: ...

class QuasistaticStepInfo:
    """What a quasistatic step did: its command, its displacement and the contact solver's work."""
    @property
    def actuated_dofs(self) -> list[int]: ...
    @property
    def dq_command(self) -> npt.NDArray[np.float64]: ...
    @property
    def dq(self) -> npt.NDArray[np.float64]: ...
    binaries: int
    nodes: int
    solve_ms: float
    objective: float
    big_m_active: bool
    proven: bool
    force_balance: float
    complementarity: float
    stabilized: float

class StepResult:
    """The last step's contacts (world frame, forces on geom B) and solver statistics."""
    def __len__(self) -> int: ...
    @property
    def position(self) -> npt.NDArray[np.float64]: ...  # (n, 3)
    @property
    def normal(self) -> npt.NDArray[np.float64]: ...  # (n, 3)
    @property
    def ft(self) -> npt.NDArray[np.float64]: ...  # (n, 3)
    @property
    def slip(self) -> npt.NDArray[np.float64]: ...  # (n, 3)
    @property
    def fn(self) -> npt.NDArray[np.float64]: ...  # (n,)
    @property
    def depth(self) -> npt.NDArray[np.float64]: ...
    @property
    def torsion(self) -> npt.NDArray[np.float64]: ...
    @property
    def mu(self) -> npt.NDArray[np.float64]: ...
    @property
    def cone_error(self) -> npt.NDArray[np.float64]: ...
    @property
    def alignment_error(self) -> npt.NDArray[np.float64]: ...
    @property
    def volume(self) -> npt.NDArray[np.float64]: ...
    @property
    def geom_a(self) -> npt.NDArray[np.int32]: ...
    @property
    def geom_b(self) -> npt.NDArray[np.int32]: ...
    @property
    def body_a(self) -> npt.NDArray[np.int32]: ...
    @property
    def body_b(self) -> npt.NDArray[np.int32]: ...
    solver: str
    solver_residual: float
    solver_iterations: int
    asleep_bodies: int
    solver_threads: int
    wall_time_s: float
    @property
    def quasistatic(self) -> QuasistaticStepInfo | None: ...

class Model:
    """A loaded scene, MJCF or URDF file (immutable)."""
    @property
    def path(self) -> str: ...
    @property
    def dt(self) -> float: ...
    @property
    def duration(self) -> float: ...
    @property
    def nq(self) -> int: ...
    @property
    def nv(self) -> int: ...
    @property
    def nu(self) -> int: ...
    @property
    def body_names(self) -> list[str]: ...
    @property
    def joint_names(self) -> list[str]: ...
    @property
    def geom_names(self) -> list[str]: ...
    @property
    def actuator_names(self) -> list[str]: ...
    @property
    def kinematic_dofs(self) -> list[int]: ...
    @property
    def parameters(self) -> dict[str, float | str]: ...
    @property
    def stepper(self) -> str: ...
    def make_state(self) -> State: ...
    def make_input(self) -> Input: ...
    def signals(self, t: float) -> Input: ...
    def formulation(self, set: Overrides = None) -> Formulation: ...
    def body_pose(self, state: State, name: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
    def body_velocity(self, state: State, name: str) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

def load(path: str | PathLike[str], set: Overrides = None) -> Model: ...
def step(
    model: Model,
    state: State,
    input: Input | None = None,
    steps: int = 1,
    result: bool = False,
    formulation: Formulation | None = None,
) -> StepResult | None: ...
def rollout(
    model: Model | Sequence[Model],
    states: Sequence[State],
    inputs: Sequence[Input | None] | None = None,
    nsteps: int = 1,
    threads: int = 0,
    formulation: Formulation | None = None,
) -> dict[str, npt.NDArray[np.float64] | npt.NDArray[np.int32]]: ...
