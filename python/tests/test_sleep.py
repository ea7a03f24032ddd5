"""SPOOK sleeping from Python: a resting box falls asleep, and zeroing sleep_time wakes it."""
import numpy as np

import graspsim

BOX = """options: {stepper: spook, dt: 0.001}
geoms: [{name: ground, type: plane}]
bodies:
  - {name: box, pos: [0, 0, 0.05], joint: free, mass: 1, geoms: [{type: box, size: [0.05, 0.05, 0.05]}]}
"""


def test_a_resting_box_sleeps_and_wakes_when_its_sleep_time_is_zeroed(tmp_path):
    path = tmp_path / "box.yaml"
    path.write_text(BOX)
    model = graspsim.load(path)
    state = model.make_state()
    assert state.sleep_time.shape == (2,)  # the world and the box
    result = graspsim.step(model, state, steps=600, result=True)
    assert result.asleep_bodies == 1 and state.sleep_time[1] >= 0.5
    assert np.all(state.v == 0.0)
    state.q[2] = 0.3  # moved by hand: lifted off the ground
    state.sleep_time[:] = 0.0
    result = graspsim.step(model, state, steps=10, result=True)
    assert result.asleep_bodies == 0
    assert state.v[2] < -0.09  # falling: g 10 ms
