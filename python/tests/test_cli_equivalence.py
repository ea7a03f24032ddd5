"""Stepping from Python reaches the same bits as `graspsim run` (its %.17g recordings)."""
import pytest

import graspsim
from conftest import read_rows, run_cli, scene

# (scene, --set overrides, duration): SPOOK with a kinematic pusher, the 2F-85 driven by its
# actuator and a kinematic lift (signals), the penalty stepper (RK45, its step size in State),
# the quasistatic stepper.
CASES = [
    ("validation/push.yaml", {"parameters.contact": 0.8}, 0.5),
    ("robots/robotiq_box.yaml", {"parameters.dt": 0.002}, 0.3),
    ("penalty/prismatic2_cube.yaml", {}, 0.05),
    ("quasistatic/pang2d.yaml", {"parameters.scheme": "lcp"}, 0.3),
]


def cli_args(overrides):
    out = []
    for k, v in overrides.items():
        out += ["--set", f"{k}={v}"]
    return out


@pytest.mark.parametrize("rel,overrides,duration", CASES)
def test_python_steps_equal_cli_recording(tmp_path, rel, overrides, duration):
    out = tmp_path / "run"
    r = run_cli("run", scene(rel), "--duration", duration, "--out", out, *cli_args(overrides))
    assert r.returncode == 0, r.stderr
    rows = read_rows(out / "bodies.csv")
    by_time = {}
    for row in rows:
        by_time.setdefault(row["t"], []).append(row)

    model = graspsim.load(scene(rel), set=overrides)
    state = model.make_state()
    steps = round(duration / model.dt)
    every = len(by_time) and steps // (len(by_time) - 1)
    assert every >= 1
    checked = 0
    for k in range(steps + 1):
        if k % every == 0:
            recorded = by_time[f"{state.t:.17g}"]
            for row in recorded:
                p, q = model.body_pose(state, row["body"])
                # %.17g round-trips a double: equality is bit equality.
                assert list(p) == [float(row[c]) for c in ("x", "y", "z")], (row["body"], state.t)
                assert list(q) == [float(row[c]) for c in ("qw", "qx", "qy", "qz")], (row["body"], state.t)
                checked += 1
        if k < steps:
            graspsim.step(model, state)
    assert checked >= len(model.body_names)

    # The final state equals the run's state.bin bit for bit.
    saved = graspsim.State.load(out / "state.bin", model)
    assert saved.t == state.t and saved.step == state.step
    assert saved.q.tobytes() == state.q.tobytes()
    assert saved.v.tobytes() == state.v.tobytes()


def test_steps_argument_equals_single_steps():
    model = graspsim.load(scene("validation/push.yaml"))
    a, b = model.make_state(), model.make_state()
    graspsim.step(model, a, steps=30)
    for _ in range(30):
        graspsim.step(model, b)
    assert a.q.tobytes() == b.q.tobytes() and a.v.tobytes() == b.v.tobytes() and a.t == b.t
