#!/usr/bin/env python3
"""Domain randomization with graspsim.rollout: the thesis push (MCube rect1, contact at 0.8 of
the side) with the ground and pusher friction and the box's mass each drawn within ±10 %,
stepped as one batch on a thread pool; plots the final poses against the nominal push.

    PYTHONPATH=build/python python3 examples/python/push_rollout.py --samples 64 --out out/python_push
"""
import argparse
import json
import math
import pathlib
import sys

import numpy as np

import graspsim

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENE = ROOT / "scenes/validation/push.yaml"
NOMINAL = {"mu_ground": 0.16, "mu_pusher": 0.25, "mass": 0.837}


def yaw(q):
    """Yaw (rad) of unit quaternions [..., w, x, y, z]."""
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=0, help="0: every core")
    ap.add_argument("--out", default="out/python_push")
    ap.add_argument("--quick", action="store_true", help="a short version (the tests run it)")
    args = ap.parse_args()
    if args.quick:
        args.samples, args.duration = 8, 1.0
    rng = np.random.default_rng(args.seed)
    draws = [{k: v * rng.uniform(0.9, 1.1) for k, v in NOMINAL.items()} for _ in range(args.samples)]
    base = {"parameters.contact": 0.8}
    models = [graspsim.load(SCENE, set={**base, **{f"parameters.{k}": v for k, v in d.items()}}) for d in draws]
    nominal = graspsim.load(SCENE, set=base)
    nsteps = round(args.duration / nominal.dt)

    states = [m.make_state() for m in models] + [nominal.make_state()]
    out = graspsim.rollout(models + [nominal], states, nsteps=nsteps, threads=args.threads)
    q_end = out["q"][:, -1, :7]  # the box's free joint: x, y, z, qw, qx, qy, qz
    x, y, th = 1000 * q_end[:, 0], 1000 * q_end[:, 1], np.degrees(yaw(q_end[:, 3:7]))
    summary = {
        "samples": args.samples,
        "steps": nsteps,
        "nominal": {"x_mm": x[-1], "y_mm": y[-1], "yaw_deg": th[-1]},
        "randomized_mean": {"x_mm": x[:-1].mean(), "y_mm": y[:-1].mean(), "yaw_deg": th[:-1].mean()},
        "randomized_std": {"x_mm": x[:-1].std(), "y_mm": y[:-1].std(), "yaw_deg": th[:-1].std()},
        "steps_per_second": float(out["q"].shape[0] * nsteps / out["wall_time_s"].sum()),
    }
    dest = pathlib.Path(args.out)
    dest.mkdir(parents=True, exist_ok=True)
    with open(dest / "push_rollout.csv", "w") as f:
        f.write("sample,mu_ground,mu_pusher,mass,x_mm,y_mm,yaw_deg\n")
        for i, d in enumerate(draws):
            f.write(f"{i},{d['mu_ground']!r},{d['mu_pusher']!r},{d['mass']!r},{x[i]!r},{y[i]!r},{th[i]!r}\n")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 4))
    sc = a.scatter(x[:-1], y[:-1], c=th[:-1], s=14, cmap="viridis", label="randomized")
    a.plot(x[-1], y[-1], "r+", ms=12, label="nominal")
    a.set_xlabel("final x (mm)")
    a.set_ylabel("final y (mm)")
    a.legend()
    fig.colorbar(sc, ax=a, label="final yaw (°)")
    t = out["t"][-1]
    for i in range(min(args.samples, 16)):
        b.plot(t, np.degrees(yaw(out["q"][i, :, 3:7])), color="0.6", lw=0.6)
    b.plot(t, np.degrees(yaw(out["q"][-1, :, 3:7])), color="r", label="nominal")
    b.set_xlabel("t (s)")
    b.set_ylabel("yaw (°)")
    b.legend()
    fig.suptitle(f"{args.samples} pushes, μ and mass within ±10 %")
    fig.tight_layout()
    fig.savefig(dest / "push_rollout.png", dpi=110)
    print(json.dumps(summary, indent=1, default=float))
    return 0 if all(math.isfinite(v) for v in (x[-1], y[-1], th[-1])) else 1


if __name__ == "__main__":
    sys.exit(main())
