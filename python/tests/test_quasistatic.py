"""StepResult.quasistatic: the quasistatic stepper's command, displacement and solver work."""
import numpy as np

import graspsim
from conftest import scene


def pang2d(scheme="miqp"):
    return graspsim.load(scene("quasistatic/pang2d.yaml"), set={"parameters.scheme": scheme})


def test_miqp_reports_what_the_fingers_did_against_their_command():
    # Seed 003, Fig. 5: the fingers follow their command until they touch the cylinder at
    # step 21, then their x commands (squeezing it) are not followed.
    model = pang2d()
    state = model.make_state()
    infos = [graspsim.step(model, state, result=True).quasistatic for _ in range(30)]
    assert all(i.binaries == 12 and i.proven and not i.big_m_active for i in infos)
    assert infos[0].actuated_dofs == infos[-1].actuated_dofs and len(infos[0].actuated_dofs) == 3
    for i in infos:
        # the objective is ||dq_a - dq_command||^2 of what the step did
        assert abs(i.objective - np.sum((i.dq - i.dq_command) ** 2)) <= 1e-12
        assert i.force_balance <= 1e-8 and i.complementarity <= 1e-7
    assert all(i.objective == 0.0 for i in infos[:20])
    assert all(i.objective > 1e-8 for i in infos[21:30])


def test_the_branch_and_bound_and_bonmin_reach_one_optimum_on_the_touching_steps():
    model = pang2d()
    bonmin = model.formulation(set={"parameters.scheme": "miqp", "options.quasistatic.miqp_solver": "bonmin"})
    state = model.make_state()
    graspsim.step(model, state, steps=20)
    for _ in range(3):
        copy = state.copy()
        bb = graspsim.step(model, state, result=True).quasistatic
        other = graspsim.step(model, copy, result=True, formulation=bonmin).quasistatic
        assert abs(bb.objective - other.objective) <= 1e-4 * max(bb.objective, other.objective) + 1e-12


def test_other_formulations_have_none():
    model = graspsim.load(scene("validation/grasp_hold.yaml"))
    assert graspsim.step(model, model.make_state(), result=True).quasistatic is None
    convex = pang2d("convex")
    info = graspsim.step(convex, convex.make_state(), result=True).quasistatic
    assert info is not None and info.binaries == 0
