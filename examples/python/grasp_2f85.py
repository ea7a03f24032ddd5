#!/usr/bin/env python3
"""The Robotiq 2F-85 closes on a box, lifts it and shakes it, driven by a controller written
in Python; plots the box's slip in the pads' frame and the contact forces.

    PYTHONPATH=build/python python3 examples/python/grasp_2f85.py --out out/python_2f85

The scene is scenes/robots/robotiq_box.yaml (the Menagerie 2F-85, unedited, hanging fingers
down from `lift`, a kinematic slider). Here Python, not the scene's signals, sets the finger
command and the lift's velocity every step.
"""
import argparse
import json
import math
import pathlib
import sys

import numpy as np

import graspsim

ROOT = pathlib.Path(__file__).resolve().parents[2]


def rotate_back(quat, x):
    """x expressed in the frame of unit quaternion quat = [w, x, y, z] (R^T x)."""
    w, u = quat[0], -np.asarray(quat[1:])
    return x + 2.0 * np.cross(u, np.cross(u, x) + w * x)


class ShakeController:
    """Close, settle, lift 10 cm, shake vertically, hold: a schedule of (ctrl, lift velocity)."""

    def __init__(self, close_s, settle_s, lift_s, shake_s, hold_s, shake_hz, shake_mm):
        self.close_s, self.lift_s, self.shake_s = close_s, lift_s, shake_s
        self.t_lift = close_s + settle_s
        self.t_shake = self.t_lift + lift_s
        self.t_end = self.t_shake + shake_s + hold_s
        self.omega = 2 * math.pi * shake_hz
        self.amp = shake_mm / 1000

    def command(self, t):
        ctrl = 255.0 * min(1.0, t / self.close_s)
        v = 0.0
        if self.t_lift <= t < self.t_shake:  # 10 cm, smooth in velocity: v = 0.2/T sin²(πτ)
            v = 0.2 / self.lift_s * math.sin(math.pi * (t - self.t_lift) / self.lift_s) ** 2
        elif self.t_shake <= t < self.t_shake + self.shake_s:  # whole periods: ends where it began
            v = self.amp * self.omega * math.sin(self.omega * (t - self.t_shake))
        return ctrl, v

    def phase(self, t):
        if t < self.t_lift:
            return "close"
        if t < self.t_shake:
            return "lift"
        return "shake" if t < self.t_shake + self.shake_s else "hold"


def run(args):
    model = graspsim.load(ROOT / "scenes/robots/robotiq_box.yaml", set={"parameters.dt": args.dt})
    state, inp = model.make_state(), model.make_input()
    fingers = model.actuator_names.index("fingers_actuator")
    obj = model.body_names.index("object") + 1
    floor = model.geom_names.index("floor")
    ctl = ShakeController(args.close_s, args.settle_s, args.lift_s, args.shake_s, args.hold_s, args.shake_hz,
                          args.shake_mm)
    rows, start_rel = [], None
    z0 = model.body_pose(state, "object")[0][2]
    while state.t < ctl.t_end - 1e-12:
        inp.ctrl[fingers], inp.kinematic_v[0] = ctl.command(state.t)
        r = graspsim.step(model, state, inp, result=True)
        p_obj, _ = model.body_pose(state, "object")
        p_pad, q_pad = model.body_pose(state, "right_pad")
        rel = rotate_back(q_pad, p_obj - p_pad)  # the box in the pad's frame
        if start_rel is None and state.t >= ctl.t_lift:
            start_rel = rel
        grip = ((r.body_a == obj) | (r.body_b == obj)) & (r.geom_a != floor) & (r.geom_b != floor)
        rows.append({
            "t": state.t,
            "phase": ctl.phase(state.t),
            "slip_mm": 1000 * float(np.linalg.norm(rel - start_rel)) if start_rel is not None else 0.0,
            "grip_force_n": float(r.fn[grip].sum()),
            "max_friction_n": float(np.linalg.norm(r.ft[grip], axis=1).max()) if grip.any() else 0.0,
            "rise_mm": 1000 * (p_obj[2] - z0),
        })
    return model, rows


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [r["t"] for r in rows]
    fig, (a, b) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    a.plot(t, [r["slip_mm"] for r in rows], color="C0")
    a.set_ylabel("slip in the pad frame (mm)")
    a2 = a.twinx()
    a2.plot(t, [r["rise_mm"] for r in rows], color="C2", lw=0.8)
    a2.set_ylabel("box rise (mm)", color="C2")
    b.plot(t, [r["grip_force_n"] for r in rows], label="normal force, pads on box")
    b.plot(t, [r["max_friction_n"] for r in rows], label="largest friction force", lw=0.8)
    b.set_xlabel("t (s)")
    b.set_ylabel("force (N)")
    b.legend(loc="upper left")
    for ax in (a, b):
        for r0, r1 in zip(rows, rows[1:]):
            if r0["phase"] != r1["phase"]:
                ax.axvline(r1["t"], color="0.7", lw=0.6)
    fig.suptitle("Robotiq 2F-85: close, lift, shake (Python controller)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="out/python_2f85")
    ap.add_argument("--dt", type=float, default=0.001)
    ap.add_argument("--close-s", type=float, default=1.0)
    ap.add_argument("--settle-s", type=float, default=0.5)
    ap.add_argument("--lift-s", type=float, default=1.0)
    ap.add_argument("--shake-s", type=float, default=2.0)
    ap.add_argument("--hold-s", type=float, default=0.5)
    ap.add_argument("--shake-hz", type=float, default=3.0)
    ap.add_argument("--shake-mm", type=float, default=5.0)
    ap.add_argument("--quick", action="store_true", help="a short version (the tests run it)")
    args = ap.parse_args()
    if args.quick:
        args.dt, args.close_s, args.settle_s, args.lift_s, args.shake_s, args.hold_s = 0.002, 0.6, 0.2, 0.5, 0.34, 0.1
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model, rows = run(args)
    plot(rows, out / "grasp_2f85.png")
    with open(out / "grasp_2f85.csv", "w") as f:
        f.write(",".join(rows[0]) + "\n")
        for r in rows:
            f.write(",".join(str(v) for v in r.values()) + "\n")
    shake = [r for r in rows if r["phase"] in ("shake", "hold")]
    summary = {
        "steps": len(rows),
        "rise_mm": rows[-1]["rise_mm"],
        "slip_mm_end": rows[-1]["slip_mm"],
        "slip_mm_max_shaking": max(r["slip_mm"] for r in shake),
        "grip_force_n_min_shaking": min(r["grip_force_n"] for r in shake),
        "held": bool(rows[-1]["rise_mm"] > 50.0),
    }
    print(json.dumps(summary, indent=1))
    return 0 if summary["held"] else 1


if __name__ == "__main__":
    sys.exit(main())
