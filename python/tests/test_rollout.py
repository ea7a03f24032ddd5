"""graspsim.rollout: a batch on a thread pool, bit-identical whatever the thread count."""
import numpy as np
import pytest

import graspsim
from conftest import scene


def randomized_models(n, seed=7):
    rng = np.random.default_rng(seed)
    return [
        graspsim.load(scene("validation/push.yaml"),
                      set={"parameters.contact": 0.8, "parameters.mu_ground": 0.16 * rng.uniform(0.9, 1.1),
                           "parameters.mu_pusher": 0.25 * rng.uniform(0.9, 1.1),
                           "parameters.mass": 0.837 * rng.uniform(0.9, 1.1)})
        for _ in range(n)
    ]


def test_rollout_is_bit_identical_for_1_and_2_threads_and_equals_step():
    models = randomized_models(5)
    n = 40
    results = []
    for threads in (1, 2):
        states = [m.make_state() for m in models]
        out = graspsim.rollout(models, states, nsteps=n, threads=threads)
        results.append((out, states))
    (a, sa), (b, sb) = results
    assert set(a) == {"t", "q", "v", "contacts", "normal_force", "max_depth", "solver_residual",
                      "solver_iterations", "wall_time_s"}
    assert a["q"].shape == (5, n, models[0].nq) and a["v"].shape == (5, n, models[0].nv)
    assert a["t"].shape == (5, n) and a["contacts"].dtype == np.int32
    for k in a:
        if k != "wall_time_s":
            assert a[k].tobytes() == b[k].tobytes(), k
    for x, y in zip(sa, sb):
        assert x.q.tobytes() == y.q.tobytes()
    # Row k is the state after step k + 1, the same as stepping one by one.
    s = models[3].make_state()
    for k in range(n):
        graspsim.step(models[3], s)
        assert s.q.tobytes() == a["q"][3, k].tobytes()
    # The randomized friction and mass give different pushes.
    assert len({a["q"][i, -1].tobytes() for i in range(5)}) == 5


def test_rollout_with_inputs_and_errors():
    model = graspsim.load(scene("validation/push.yaml"))
    states = [model.make_state(), model.make_state()]
    still = model.make_input()  # the pusher held still
    out = graspsim.rollout(model, states, inputs=[still, None], nsteps=10, threads=2)
    assert out["q"][0, -1, 7] == model.make_state().q[7]  # the pusher's x did not move
    assert out["q"][1, -1, 7] > model.make_state().q[7]
    with pytest.raises(graspsim.InputError, match="appears twice"):
        graspsim.rollout(model, [states[0], states[0]], nsteps=1)
    with pytest.raises(graspsim.InputError, match="2 models for 1 states"):
        graspsim.rollout([model, model], [states[0]], nsteps=1)
    bad = model.make_state()
    bad.v[0] = np.inf
    with pytest.raises(graspsim.InputError, match="rollout item 1: "):
        graspsim.rollout(model, [model.make_state(), bad], nsteps=3)
