#!/usr/bin/env python3
"""Prehensile linear pushing (thesis 4.4, Kolbert et al.): scenes/validation/prehensile.yaml
with Direct+box and Split+cone at dt 1/60 and 1/1000 s, for the 200.5 g and 100 g objects.
Writes out/prehensile/<run>/ recordings, out/prehensile/summary.json and figures in
out/prehensile/figs/ in the style of thesis Figs 4.16-4.19."""

import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import common  # noqa: E402

SCENE = "scenes/validation/prehensile.yaml"
COMBOS = [("direct", "box"), ("split", "cone")]
DTS = {"dt60": 1.0 / 60.0, "dt1000": 1.0 / 1000.0}
MASSES = {"m200": 0.2005, "m100": 0.1}
G = 9.81
SLIDES_DOWN_MM = 0.5  # a drop larger than this over the 1.5 s counts as sliding down


def run_name(solver, model, dt_key, mass_key):
    return f"{solver}_{model}_{dt_key}_{mass_key}"


def read_parameters(run_dir):
    with open(os.path.join(run_dir, "run.json")) as f:
        return json.load(f)["parameters"]


def cone_prediction(p):
    """Quasi-static sliding with Coulomb cones: the fingers' friction (2 μ F in total) both
    balances the wall's push f_x and carries what the wall's friction μ_w f_x leaves of the
    weight: f_x² + (m g − μ_w f_x)² = (2 μ F)². The object then sinks at v f_z / f_x."""
    cap, mg, mw = 2 * p["mu_finger"] * p["grip_force"], p["mass"] * G, p["mu_wall"]
    a, b, c = 1 + mw * mw, -2 * mg * mw, mg * mg - cap * cap
    fx = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    fz = max(mg - mw * fx, 0.0)
    fx = math.sqrt(cap * cap - fz * fz) if fz > 0 else cap
    return {"wall_force_n": fx, "finger_lift_n": fz, "sink_speed_mm_s": 1000 * p["speed"] * fz / fx}


def box_prediction(p):
    """Box friction bounds x and z separately by μ f_n per finger: the wall takes the whole
    2 μ F, and 2 μ F ≥ m g holds the object up without sliding."""
    cap = 2 * p["mu_finger"] * p["grip_force"]
    return {"wall_force_n": cap, "finger_lift_n": min(p["mass"] * G, cap), "sink_speed_mm_s": 0.0}


def analyse(run_dir):
    bodies = common.read_csv(os.path.join(run_dir, "bodies.csv"))
    contacts = common.read_csv(os.path.join(run_dir, "contacts.csv"))
    t, obj, _ = common.body_track(bodies, "object")
    _, left, _ = common.body_track(bodies, "finger_left")
    _, right, _ = common.body_track(bodies, "finger_right")
    s = {"t": t, "object_x": 1000 * (obj[:, 0] - obj[0, 0]), "object_z": 1000 * (obj[:, 2] - obj[0, 2]),
         "gripper_x": 1000 * (left[:, 0] - left[0, 0])}
    s["slide"] = s["gripper_x"] - s["object_x"]  # how far the grip has moved along the object
    wall = common.contact_sums(contacts, t, ("world", "object"), ["fn", "ftz"])
    fl = common.contact_sums(contacts, t, ("object", "finger_left"), ["fn", "ftx", "ftz"])
    fr = common.contact_sums(contacts, t, ("object", "finger_right"), ["fn", "ftx", "ftz"])
    # contacts.csv gives the force on body_b: the prism for the wall, the finger for the
    # finger pairs (body_a = object), so those are negated to be forces on the prism.
    s.update(wall_fn=wall["fn"], wall_ftz=wall["ftz"], left_fn=fl["fn"], right_fn=fr["fn"],
             finger_ftx=-(fl["ftx"] + fr["ftx"]), finger_ftz=-(fl["ftz"] + fr["ftz"]))
    # A fingertip that jumps more than 1 mm across in one step has lost its contact.
    jump = np.max(np.abs(np.diff(left[:, 1]))) if len(t) > 1 else 0.0
    jump = max(jump, np.max(np.abs(np.diff(right[:, 1]))) if len(t) > 1 else 0.0)
    # Held: the fingertips stay closed on the prism (their faces 25 mm apart, the stroke allows
    # 45) and the prism stays between them (it dropped less than the 20 mm fingertip radius).
    held = bool(np.all(np.abs(left[:, 1] - right[:, 1]) < 0.04) and np.all(-s["object_z"] < 20.0))
    # The fingertips close a 0.2 mm gap in the first step; more than 1 mm is a lost contact.
    contact_lost = bool(jump > 1e-3)
    late = t >= 0.5 * t[-1]  # the second half: sliding established
    final = {"object_drop_mm": float(-s["object_z"][-1]), "slide_mm": float(s["slide"][-1]),
             "object_dx_mm": float(s["object_x"][-1]), "held": held, "finger_jump_mm": float(1000 * jump),
             "wall_force_n": float(np.mean(s["wall_fn"][late])),
             "finger_normal_n": float(np.mean(0.5 * (s["left_fn"] + s["right_fn"])[late])),
             "finger_lift_n": float(np.mean(s["finger_ftz"][late])),
             "sink_speed_mm_s": float(-np.polyfit(t[late], s["object_z"][late], 1)[0]) if late.sum() > 2 else None}
    final["contact_lost"] = contact_lost
    final["slides_down"] = held and final["object_drop_mm"] > SLIDES_DOWN_MM
    return final, s


def plot_run(plt, s, title):
    """Thesis Figs 4.16-4.17: (a) positions, (b) contact forces."""
    fig, ax = plt.subplots(1, 2, figsize=(9, 3.2))
    ax[0].plot(s["t"], s["gripper_x"], label="gripper x")
    ax[0].plot(s["t"], s["object_x"], label="object x")
    ax[0].plot(s["t"], s["object_z"], label="object z")
    ax[0].set_ylabel("position change (mm)")
    ax[0].legend(fontsize=7)
    ax[1].plot(s["t"], s["wall_fn"], label="wall normal ('pusher')")
    ax[1].plot(s["t"], s["left_fn"], label="finger normal (left)")
    ax[1].plot(s["t"], s["finger_ftx"], "--", label="finger friction x (sum)")
    ax[1].plot(s["t"], s["finger_ftz"], "--", label="finger friction z (sum)")
    ax[1].set_ylabel("force on object (N)")
    ax[1].legend(fontsize=7)
    for a in ax:
        a.set_xlabel("t (s)")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_masses(plt, runs, title):
    """Thesis Fig 4.19: the object's height for the two masses."""
    fig, ax = plt.subplots(figsize=(5, 3))
    for label, s in runs:
        ax.plot(s["t"], s["object_z"], label=label)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("object z change (mm)")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    return fig


def main():
    ap = common.script_arguments(__doc__, "prehensile")
    args = ap.parse_args()
    cli = common.cli_path(args.build)

    jobs = []
    for solver, model in COMBOS:
        for dk, dt in DTS.items():
            for mk, mass in MASSES.items():
                d = os.path.join(args.out, run_name(solver, model, dk, mk))
                sets = {"solver": solver, "friction_model": model, "mass": mass}
                jobs.append(((solver, model, dk, mk), lambda s=sets, d=d, dt=dt: common.run_scene(cli, SCENE, d, s, dt)))
    status = common.run_many(jobs, args.jobs)

    plt = common.setup_matplotlib()
    runs, series, figures = [], {}, {}
    for (solver, model, dk, mk), (ok, msg) in status.items():
        name = run_name(solver, model, dk, mk)
        entry = {"run": name, "solver": solver, "friction_model": model, "dt": DTS[dk], "mass_kg": MASSES[mk], "ok": ok}
        if ok:
            d = os.path.join(args.out, name)
            p = read_parameters(d)
            final, s = analyse(d)
            entry.update(final)
            entry["prediction"] = cone_prediction(p) if model == "cone" else box_prediction(p)
            series[name] = s
            dt_label = "1/60 s" if dk == "dt60" else "1/1000 s"
            caption = f"{solver}+{model}, dt {dt_label}, {MASSES[mk] * 1000:.1f} g"
            common.save_figure(plot_run(plt, s, caption), os.path.join(args.out, "figs", name + ".svg"))
            figures[name] = caption
        else:
            entry["error"] = msg
        runs.append(entry)
    for solver, model in COMBOS:
        for dk in DTS:
            pair = [(f"{MASSES[mk] * 1000:.1f} g", series[run_name(solver, model, dk, mk)])
                    for mk in MASSES if run_name(solver, model, dk, mk) in series]
            if pair:
                fid = f"masses_{solver}_{model}_{dk}"
                cap = f"Object height, 200.5 g vs 100 g: {solver}+{model}, dt {'1/60' if dk == 'dt60' else '1/1000'} s"
                common.save_figure(plot_masses(plt, pair, cap), os.path.join(args.out, "figs", fid + ".svg"))
                figures[fid] = cap
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump({"runs": runs, "figures": figures, "slides_down_mm": SLIDES_DOWN_MM}, f, indent=1)
    for r in runs:
        if r["ok"]:
            print(f"prehensile {r['run']:28s} held={r['held']!s:5} drop {r['object_drop_mm']:7.2f} mm  "
                  f"slide {r['slide_mm']:6.2f} mm  wall {r['wall_force_n']:5.2f} N (pred {r['prediction']['wall_force_n']:.2f})"
                  f"  sink {r['sink_speed_mm_s'] or 0:6.2f} mm/s (pred {r['prediction']['sink_speed_mm_s']:.2f})"
                  f"  jump {r['finger_jump_mm']:.2f} mm")
        else:
            print(f"prehensile {r['run']}: FAILED {r['error']}")


if __name__ == "__main__":
    main()
