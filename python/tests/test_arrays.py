"""Shapes, dtypes, views and frames of what the module returns."""
import numpy as np
import pytest

import graspsim
from conftest import scene

G = 9.81


@pytest.fixture
def resting():
    """push.yaml with the pusher still: the box rests on the ground."""
    return graspsim.load(scene("validation/push.yaml"), set={"parameters.speed": 0})


def test_state_arrays_are_views(resting):
    s = resting.make_state()
    assert s.q.shape == (resting.nq,) and s.q.dtype == np.float64
    assert s.v.shape == (resting.nv,)
    q = s.q
    q[0] += 0.25  # writes into the state: the box's x (its free joint comes first)
    p, _ = resting.body_pose(s, "box")
    assert p[0] == pytest.approx(0.25)
    s.q = np.zeros(resting.nq) + s.q  # assignment copies in, same size
    with pytest.raises(graspsim.InputError, match="expected 14 numbers"):
        s.q = np.zeros(3)


def test_body_pose_and_velocity_frames(resting):
    s = resting.make_state()
    p, quat = resting.body_pose(s, "box")
    assert p.shape == (3,) and quat.shape == (4,)
    assert np.linalg.norm(quat) == pytest.approx(1.0)
    assert p[2] == pytest.approx(resting.parameters["height"] / 2)
    s.v[:3] = [0.1, 0.0, 0.0]  # free joint: linear velocity in the world first
    lin, ang = resting.body_velocity(s, "box")
    assert list(lin) == pytest.approx([0.1, 0, 0]) and list(ang) == pytest.approx([0, 0, 0])
    assert resting.body_names == ["box", "pusher"]
    with pytest.raises(graspsim.InputError, match="nobox"):
        resting.body_pose(s, "nobox")


def test_contacts_of_a_resting_box_carry_its_weight(resting):
    s = resting.make_state()
    graspsim.step(resting, s, steps=30)
    r = graspsim.step(resting, s, result=True)
    n = len(r)
    assert n >= 1
    for name in ("position", "normal", "ft", "slip"):
        assert getattr(r, name).shape == (n, 3), name
    for name in ("fn", "depth", "torsion", "mu", "cone_error", "alignment_error", "volume"):
        assert getattr(r, name).shape == (n,), name
    assert r.geom_a.dtype == np.int32 and r.body_b.shape == (n,)
    box = resting.body_names.index("box") + 1
    ground = resting.geom_names.index("ground")
    on_ground = (r.geom_a == ground) | (r.geom_b == ground)
    assert on_ground.sum() >= 3  # and the pusher, placed touching the box
    # Forces are on B, the normal points from A to B: the box (B) is pushed up, +z.
    sign = np.where(r.body_b == box, 1.0, -1.0)[on_ground]
    np.testing.assert_allclose(r.normal[on_ground] * sign[:, None], np.tile([0, 0, 1.0], (on_ground.sum(), 1)),
                               atol=1e-12)
    assert r.fn[on_ground].sum() == pytest.approx(resting.parameters["mass"] * G, rel=1e-6)
    assert np.abs(r.position[on_ground, 2]).max() < 1e-4  # on the ground plane
    assert r.solver == "split" and r.solver_iterations >= 0


def test_input_and_signals_match_the_model():
    model = graspsim.load(scene("robots/robotiq_box.yaml"))
    inp = model.make_input()
    assert inp.ctrl.shape == (model.nu,) and inp.kinematic_v.shape == (len(model.kinematic_dofs),)
    assert model.actuator_names == ["fingers_actuator"]
    sig = model.signals(0.5)
    assert sig.ctrl[0] == pytest.approx(255 * (0.5 + model.dt))  # set point at the step's end
    inp.ctrl = [10.0]
    assert inp.ctrl[0] == 10.0
