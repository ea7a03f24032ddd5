"""Saving and restoring States, per-run formulations, and bad input raising with the CLI's messages."""
import threading

import numpy as np
import pytest

import graspsim
from conftest import ROOT, run_cli, scene


def same(a, b):
    return a.t == b.t and a.step == b.step and a.q.tobytes() == b.q.tobytes() and a.v.tobytes() == b.v.tobytes()


def test_save_load_continues_to_the_same_bits(tmp_path):
    model = graspsim.load(scene("penalty/prismatic2_cube.yaml"))
    s = model.make_state()
    graspsim.step(model, s, steps=20)
    s.save(tmp_path / "s.bin")
    later = graspsim.State.load(tmp_path / "s.bin")  # bound to the model when first used
    assert later.t == s.t and later.q.tobytes() == s.q.tobytes()
    q = later.q  # a view taken before binding stays a view of the state
    graspsim.step(model, s, steps=20)
    graspsim.step(model, later, steps=20)
    assert same(s, later)
    assert q.tobytes() == s.q.tobytes()
    c = s.copy()
    graspsim.step(model, s, steps=5)
    graspsim.step(model, c, steps=5)
    assert same(s, c)


def test_constraint_forces_are_the_servos_warm_start_and_are_saved(tmp_path):
    model = graspsim.load(scene("robots/robotiq_box.yaml"))
    s = model.make_state()
    graspsim.step(model, s, steps=200)
    assert s.constraint_forces.size > 0 and np.abs(s.constraint_forces).max() > 0.0
    s.save(tmp_path / "s.bin")
    later = graspsim.State.load(tmp_path / "s.bin", model)
    assert later.constraint_forces.tobytes() == s.constraint_forces.tobytes()
    graspsim.step(model, s, steps=20)
    graspsim.step(model, later, steps=20)
    assert same(s, later)


def test_state_file_of_another_model_is_refused(tmp_path):
    push = graspsim.load(scene("validation/push.yaml"))
    push.make_state().save(tmp_path / "push.bin")
    hold = graspsim.load(scene("validation/grasp_hold.yaml"))
    loaded = graspsim.State.load(tmp_path / "push.bin")
    with pytest.raises(graspsim.InputError, match="push.bin: the state belongs to another model"):
        graspsim.step(hold, loaded)
    with pytest.raises(graspsim.InputError, match="another model"):
        graspsim.step(hold, push.make_state())
    (tmp_path / "junk.bin").write_bytes(b"not a state")
    with pytest.raises(graspsim.InputError, match="junk.bin: not a graspsim state file"):
        graspsim.State.load(tmp_path / "junk.bin")


def test_cli_continues_from_a_python_state(tmp_path):
    model = graspsim.load(scene("validation/push.yaml"))
    s = model.make_state()
    graspsim.step(model, s, steps=30)
    s.save(tmp_path / "s.bin")
    r = run_cli("run", scene("validation/push.yaml"), "--from-state", tmp_path / "s.bin", "--duration", 0.25,
                "--out", tmp_path / "run")
    assert r.returncode == 0, r.stderr
    graspsim.step(model, s, steps=15)
    assert same(s, graspsim.State.load(tmp_path / "run" / "state.bin", model))


def test_a_formulation_per_run_equals_the_scene_that_chooses_it():
    overrides = {"parameters.solver": "iterative", "parameters.contact": 0.8}
    model = graspsim.load(scene("validation/push.yaml"), set={"parameters.contact": 0.8})
    iterative = model.formulation(set=overrides)
    assert iterative.stepper == "spook" and model.formulation().stepper == "spook"
    reference = graspsim.load(scene("validation/push.yaml"), set=overrides)
    a, b, c = model.make_state(), reference.make_state(), model.make_state()
    graspsim.step(model, a, steps=120, formulation=iterative)
    graspsim.step(reference, b, steps=120)
    graspsim.step(model, c, steps=120)
    assert a.q.tobytes() == b.q.tobytes()
    assert a.q.tobytes() != c.q.tobytes()  # PGS alone ends elsewhere than split's direct normals
    # What the model itself fixes (a contact material's friction model) is not a formulation's.
    with pytest.raises(graspsim.InputError, match="friction model 'cone' cannot be solved by the direct solver"):
        model.formulation(set={"parameters.solver": "direct"})
    with pytest.raises(graspsim.InputError, match=r"beyond its options \(contact_materials, default_contact\)"):
        model.formulation(set={"parameters.solver": "direct", "parameters.friction_model": "box"})
    with pytest.raises(graspsim.InputError, match=r"beyond its options \(bodies, duration\)"):
        model.formulation(set={"parameters.mass": 2, "duration": 3})
    assert model.formulation(set={"parameters.patch_grid": 3}).stepper == "spook"  # an option


def test_bad_input_raises_with_the_cli_message(tmp_path):
    with pytest.raises(graspsim.InputError, match="nope.yaml"):
        graspsim.load(tmp_path / "nope.yaml")
    with pytest.raises(graspsim.InputError, match="unknown parameter|nosuch"):
        graspsim.load(scene("validation/push.yaml"), set={"parameters.nosuch": 1})
    with pytest.raises(graspsim.InputError, match="mass"):
        graspsim.load(scene("validation/push.yaml"), set={"parameters.mass": -1})
    with pytest.raises(ValueError):  # InputError is a ValueError
        graspsim.load(scene("validation/push.yaml"), set={"options.dt": float("nan")})
    model = graspsim.load(scene("validation/push.yaml"))
    s = model.make_state()
    with pytest.raises(graspsim.InputError, match="steps must be >= 0"):
        graspsim.step(model, s, steps=-1)
    s.v[0] = np.nan
    with pytest.raises(graspsim.InputError):
        graspsim.step(model, s)
    r = run_cli("run", scene("validation/push.yaml"), "--set", "parameters.mass=-1", "--out", tmp_path / "bad")
    assert r.returncode == 2
    try:
        graspsim.load(scene("validation/push.yaml"), set={"parameters.mass": -1})
    except graspsim.InputError as e:
        assert str(e) in r.stderr  # the same message as the CLI's


def test_divergence_names_the_scene_and_step():
    model = graspsim.load(str(ROOT / "tests" / "cli" / "data" / "diverging_servo.yaml"))
    s = model.make_state()
    with pytest.raises(graspsim.DivergenceError, match=r"diverging_servo.yaml: step \d+.*joint 'hinge' of body 'arm'"):
        graspsim.step(model, s, steps=100)


def test_steps_run_in_parallel_python_threads():
    model = graspsim.load(scene("validation/push.yaml"))
    states = [model.make_state() for _ in range(4)]
    threads = [threading.Thread(target=graspsim.step, args=(model, st), kwargs={"steps": 60}) for st in states]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ref = model.make_state()
    graspsim.step(model, ref, steps=60)
    assert all(same(st, ref) for st in states)
