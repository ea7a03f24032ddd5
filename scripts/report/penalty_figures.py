#!/usr/bin/env python3
"""Seed 004 (Zechmair & Morel, volumetric penalty contact for grasping), Section III, with
the scenes/penalty/ grasps and the graspsim CLI:

  fig3    the contact forces of the penalty stepper and SPOOK (split; direct with box
          friction) side by side on revolute2_sphere, 10 s, every step recorded (Fig. 3);
  holds   whether each formulation keeps each of the nine objects for 10 s;
  sweeps  kinetic-energy ratio maps of the shaken 3-finger grasp (revolute3_cube) over
          g1 x g_i (Fig. 5) and d_t x g_i (Fig. 6).

Every run goes to its own folder under --out/<part>/ (--out/quick/<part>/ with --quick) and
is skipped when its run.json says completed for the same command line, so an interrupted
invocation can be resumed. Each part's CSV gets a row, flushed, as each run finishes. The
script stops with a non-zero exit at the first failed run (--keep-going: records it, goes
on, and exits non-zero at the end).

Usage: python3 scripts/report/penalty_figures.py [--bin build/bin/graspsim]
           [--out out/penalty_figures] [--quick] [--parts fig3,holds,sweeps]"""

import argparse
import csv
import hashlib
import json
import math
import os
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:  # pragma: no cover - environment problem, not a bug
    raise SystemExit("penalty_figures.py needs numpy and matplotlib (e.g. /usr/bin/python3 on this machine)")

sys.path.insert(0, os.path.dirname(__file__))
import common  # noqa: E402

ROOT = common.ROOT
PARTS = ("fig3", "holds", "sweeps")
GRIPPERS = ("prismatic2", "revolute2", "revolute3")
OBJECTS = ("cube", "sphere", "bunny")
# The three formulations: the penalty stepper (the seed's method) and the constraint-based
# SPOOK stepper with the split solver (cone friction) and the direct one (box friction:
# the direct solver alone cannot solve a cone).
FORMULATIONS = {
    "penalty": {"stepper": "penalty"},
    "spook_split": {"stepper": "spook", "spook_solver": "split"},
    "spook_direct_box": {"stepper": "spook", "spook_solver": "direct", "friction_model": "box"},
}
FINGERS2 = ("finger_1", "finger_2")

# The seed's parameters as the scenes read them (scenes/penalty/parts/common.yaml):
# the green dot of Figs. 5-6.
G1_DEFAULT = 7.4e8  # N/m³
GI_DEFAULT = 250.0
DT_DEFAULT = 0.002  # m
GRIDS = {
    "full": {"gi": [0, 50, 250, 1000, 5000], "g1_mult": [0.1, 0.3, 1, 3, 10], "dt_mm": [0.5, 1, 2, 4, 8]},
    "quick": {"gi": [0, 250, 5000], "g1_mult": [0.1, 1, 10], "dt_mm": [0.5, 2, 8]},
}
SWEEP_SCENE = "scenes/penalty/revolute3_cube.yaml"
FIG3_SCENE = "scenes/penalty/revolute2_sphere.yaml"
TRANSIENT_S = 0.5  # Fig. 3's first panel: the impact transient
SETTLE_S = 0.5  # the grasp closes in ~0.3 s: KE ratio "after the grasp" is taken from here on

SUMMARY_KEYS = ["object_held", "object_dropped", "object_lift_m", "ke_ratio_mean", "ke_ratio_max",
                "max_penetration_m", "max_overlap_volume_m3", "wall_s", "sim_s", "steps",
                "rk45_accepted_steps", "rk45_rejected_steps", "rk45_evaluations", "overlap_calls",
                "overlap_us_mean"]
PARAM_KEYS = ["stepper", "spook_solver", "friction_model", "g1", "g2", "gi", "dt_target", "mu", "beta", "gamma",
              "grip_force", "shake_amplitude", "shake_frequency", "shake_axis_x", "shake_axis_y", "shake_axis_z"]


class RunFailed(Exception):
    pass


# ---------------------------------------------------------------------------------------
# Running the CLI


EXIT_MEANING = {1: "internal fault", 2: "bad input"}


class Runner:
    """Runs `graspsim run` one process at a time, skipping completed runs."""

    def __init__(self, binary, keep_going):
        self.binary = binary
        self.keep_going = keep_going
        self.failures = []
        self.ran = self.cached = 0
        self.wall = 0.0

    def run(self, scene, run_dir, duration, params, extra_sets=None):
        """Returns run.json (dict) of a completed run, or None when the run failed and
        --keep-going is on (else raises RunFailed)."""
        args = [self.binary, "run", os.path.join(ROOT, scene), "--out", run_dir, "--duration", repr(float(duration))]
        for key, value in params.items():
            args += ["--set", f"parameters.{key}={value}"]
        for key, value in (extra_sets or {}).items():
            args += ["--set", f"{key}={value}"]
        request = {"scene": scene, "duration": float(duration), "args": args[2:]}
        run_json = os.path.join(run_dir, "run.json")
        request_json = os.path.join(run_dir, "request.json")
        previous = _load_json(run_json)
        if previous and previous.get("status") == "completed":
            asked = _load_json(request_json)
            if asked is None or asked.get("args") == request["args"]:
                self.cached += 1
                previous["_cached"] = True
                return previous
            print(f"  {shown(run_dir)}: settings changed since the last run, running it again")
        os.makedirs(run_dir, exist_ok=True)
        with open(request_json, "w") as f:
            json.dump(request, f, indent=1)
        start = time.monotonic()
        proc = subprocess.run(args, capture_output=True, text=True)
        wall = time.monotonic() - start
        self.wall += wall
        with open(os.path.join(run_dir, "cli.log"), "w") as f:
            f.write("$ " + " ".join(args) + "\n" + proc.stdout + proc.stderr + f"\nexit code {proc.returncode}\n")
        result = _load_json(run_json)
        status = result.get("status") if result else None
        if proc.returncode != 0 or status != "completed":
            meaning = EXIT_MEANING.get(proc.returncode, "killed by a signal" if proc.returncode >= 128 or
                                       proc.returncode < 0 else "error")
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            msg = (f"run failed: {shown(run_dir)} (exit {proc.returncode}: {meaning}; "
                   f"run.json status {status!r}"
                   + (f", error {result.get('error')!r}" if result and result.get("error") else "") + ")\n"
                   f"  command: {' '.join(args)}\n  last output: " + " | ".join(tail))
            if proc.returncode == 2 or not self.keep_going:  # bad input would repeat in every run
                raise RunFailed(msg)
            print("  " + msg, file=sys.stderr)
            self.failures.append(msg)
            return None
        self.ran += 1
        result["_cached"] = False
        result["_wall_total_s"] = wall
        return result


def shown(path):
    """A path as printed: relative to the repository when inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


def _load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class RowWriter:
    """A CSV written row by row, flushed after each, so an interruption loses nothing."""

    def __init__(self, path, fields):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        self.path, self.fields = path, fields
        self.f = open(path, "w", newline="")
        self.w = csv.DictWriter(self.f, fieldnames=fields, extrasaction="ignore")
        self.w.writeheader()
        self.f.flush()

    def write(self, row):
        self.w.writerow({k: _cell(row.get(k)) for k in self.fields})
        self.f.flush()
        os.fsync(self.f.fileno())

    def close(self):
        self.f.close()


def _cell(v):
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return v


def fmt(v, spec=".3g"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "**no**"
    if isinstance(v, (int, np.integer)):
        return f"{v:,}"
    return format(v, spec)


def summary_row(result):
    """The summary fields and the parameters the run used, flat."""
    s = result.get("summary", {})
    row = {k: s.get(k) for k in SUMMARY_KEYS}
    row.update({f"p_{k}": result.get("parameters", {}).get(k) for k in PARAM_KEYS})
    row["status"] = result.get("status")
    row["cached"] = result.get("_cached")
    nonfinite = [k for k, v in row.items() if isinstance(v, float) and not math.isfinite(v)]
    if nonfinite:
        row["_nonfinite"] = nonfinite
    return row


def object_motion(run_dir, settle=None, inertia=None):
    """The object's displacement from its start to its end (mm) from bodies.csv, and, when
    `settle` is given, the KE ratio over the recorded samples from t >= settle (the object's
    kinetic energy over what it would have moving with the palm)."""
    b = common.read_csv(os.path.join(run_dir, "bodies.csv"))
    t, pos, _ = common.body_track(b, "object")
    d = 1000 * (pos[-1] - pos[0])
    out = {"disp_x_mm": float(d[0]), "disp_y_mm": float(d[1]), "disp_z_mm": float(d[2]),
           "disp_mm": float(np.linalg.norm(d)), "final_t": float(t[-1])}
    if settle is not None and inertia is not None:
        sel_o, sel_p = b["body"] == "object", b["body"] == "palm"
        m, idiag = inertia
        vo = np.stack([b[k][sel_o] for k in ("vx", "vy", "vz")], axis=1)
        wo = np.stack([b[k][sel_o] for k in ("wx", "wy", "wz")], axis=1)
        vp = np.stack([b[k][sel_p] for k in ("vx", "vy", "vz")], axis=1)
        # (the palm only translates, so moving rigidly with it the object has 1/2 m v_palm²;
        # diagonal inertia: the cube's is isotropic)
        ke = 0.5 * m * np.sum(vo * vo, axis=1) + 0.5 * np.sum(idiag * wo * wo, axis=1)
        rigid = 0.5 * m * np.sum(vp * vp, axis=1)
        late = t >= settle - 1e-9
        out["ke_ratio_after_grasp"] = float(ke[late].sum() / rigid[late].sum()) if rigid[late].sum() > 0 else None
    return out


def object_inertia(result):
    """(mass, principal inertia) of the object from run.json's resolved scene, for a box or
    a sphere; None otherwise."""
    for body in result.get("resolved", {}).get("bodies", []):
        if body.get("name") != "object":
            continue
        m, geoms = float(body.get("mass", 0)), body.get("geoms", [])
        if len(geoms) != 1:
            return None
        g = geoms[0]
        if g["type"] == "box":
            a, b_, c = (2 * float(x) for x in g["size"])
            return m, np.array([b_ * b_ + c * c, a * a + c * c, a * a + b_ * b_]) * m / 12
        if g["type"] == "sphere":
            r = float(g["size"][0])
            return m, np.full(3, 0.4 * m * r * r)
    return None


def save_png(fig, path):
    import matplotlib.pyplot as plt
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)


def write_text(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


# ---------------------------------------------------------------------------------------
# Part fig3


def part_fig3(runner, out, quick):
    duration = 2.0 if quick else 10.0
    steady_from = duration - 5.0 if duration >= 10.0 else duration / 2
    print(f"fig3: {FIG3_SCENE}, {duration:g} s, every step recorded")
    traces, times, rows = {}, None, []
    stats_w = RowWriter(os.path.join(out, "fig3_stats.csv"),
                        ["formulation", "finger", "steady_mean_n", "steady_std_n", "steady_from_s", "peak_n",
                         "peak_t_s", "first_contact_s", "object_held", "max_penetration_m", "wall_s", "cached",
                         "run_dir"])
    for i, (name, params) in enumerate(FORMULATIONS.items(), 1):
        run_dir = os.path.join(out, "fig3", name)
        result = runner.run(FIG3_SCENE, run_dir, duration, params, {"recording.every": 1})
        if result is None:
            continue
        s = result["summary"]
        contacts = common.read_csv(os.path.join(run_dir, "contacts.csv"))
        bodies = common.read_csv(os.path.join(run_dir, "bodies.csv"))
        t = bodies["t"][bodies["body"] == "object"]
        if times is None:
            times = t
        elif len(t) != len(times) or np.max(np.abs(t - times)) > 1e-9:
            raise RunFailed(f"fig3: {name} recorded other times than the first formulation")
        for finger in FINGERS2:
            fn = common.contact_sums(contacts, times, (finger, "object"), ["fn"])["fn"]
            traces[(name, finger)] = fn
            early = times <= TRANSIENT_S + 1e-9
            steady = times >= steady_from - 1e-9
            k = int(np.argmax(fn[early]))
            touched = np.nonzero(fn > 0)[0]
            row = {"formulation": name, "finger": finger, "steady_mean_n": float(np.mean(fn[steady])),
                   "steady_std_n": float(np.std(fn[steady])), "steady_from_s": steady_from,
                   "peak_n": float(fn[early][k]), "peak_t_s": float(times[early][k]),
                   "first_contact_s": float(times[touched[0]]) if len(touched) else None,
                   "object_held": s.get("object_held"), "max_penetration_m": s.get("max_penetration_m"),
                   "wall_s": s.get("wall_s"), "cached": result["_cached"], "run_dir": os.path.relpath(run_dir, out)}
            stats_w.write(row)
            rows.append(row)
            if not np.all(np.isfinite(fn)):
                print(f"  warning: {name} {finger}: non-finite contact forces")
        print(f"  [{i}/{len(FORMULATIONS)}] {name}: held={s.get('object_held')} wall {s.get('wall_s', 0):.2f} s"
              + (" (cached)" if result["_cached"] else ""))
    stats_w.close()
    if times is None:
        return
    names = [n for n in FORMULATIONS if (n, "finger_1") in traces]
    cols = [f"{n}_{f}" for n in names for f in FINGERS2]
    with open(os.path.join(out, "fig3_forces.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t"] + cols)
        data = np.stack([times] + [traces[(n, fi)] for n in names for fi in FINGERS2], axis=1)
        for r in data:
            w.writerow([repr(float(x)) for x in r])
    lines = [f"# Fig. 3: finger–object normal force (N), {FIG3_SCENE}, {duration:g} s", "",
             f"Steady state: t ≥ {steady_from:g} s. Peak: the largest summed fn in the first {TRANSIENT_S:g} s.", "",
             "| formulation | finger | steady mean (N) | steady std (N) | peak 0–0.5 s (N) | at t (s) | first contact (s) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['formulation']} | {r['finger']} | {r['steady_mean_n']:.3f} | {r['steady_std_n']:.3g} | "
                     f"{r['peak_n']:.2f} | {r['peak_t_s']:.3f} | {fmt(r['first_contact_s'], '.3f')} |")
    write_text(os.path.join(out, "fig3_stats.md"), "\n".join(lines) + "\n")
    print("\n".join("  " + x for x in lines[4:]))

    plt = common.setup_matplotlib()
    fig, ax = plt.subplots(1, 2, figsize=(11, 3.8), gridspec_kw={"width_ratios": [1, 1.6]})
    style = {"penalty": ("-", ("C0", "C1")), "spook_split": ("--", ("C2", "C3")),
             "spook_direct_box": ((0, (6, 2, 1, 2)), ("C4", "C5"))}
    label = {"penalty": "penalty (RK45)", "spook_split": "SPOOK split (cone)", "spook_direct_box": "SPOOK direct (box)"}
    early = times <= TRANSIENT_S + 1e-9
    for n in names:
        ls, colors = style[n]
        # (the two fingers' traces coincide in a symmetric grasp: finger_1 is drawn wider, under)
        for fi, c, lw in zip(FINGERS2, colors, (2.2, 1.0)):
            y = traces[(n, fi)]
            ax[0].plot(times[early], y[early], linestyle=ls, color=c, lw=lw, label=f"{label[n]}, {fi}")
            ax[1].plot(times, y, linestyle=ls, color=c, lw=lw * 0.8)
    ax[0].set_title(f"impact transient (first {TRANSIENT_S:g} s)", fontsize=9)
    ax[1].set_title(f"whole run ({duration:g} s)", fontsize=9)
    for a in ax:
        a.set_xlabel("t (s)")
        a.set_ylabel("finger–object normal force (N)")
    ax[0].legend(fontsize=7)
    fig.suptitle("revolute 2-finger gripper, 6 cm ball: penalty (solid) vs SPOOK (dashed), seed 004 Fig. 3",
                 fontsize=10)
    fig.tight_layout()
    save_png(fig, os.path.join(out, "fig3_forces.png"))


# ---------------------------------------------------------------------------------------
# Part holds


HOLD_FIELDS = (["scene", "gripper", "object", "formulation", "status"] + SUMMARY_KEYS
               + ["disp_x_mm", "disp_y_mm", "disp_z_mm", "disp_mm", "final_t", "cached", "run_dir"]
               + [f"p_{k}" for k in PARAM_KEYS])


def part_holds(runner, out, quick):
    duration = 1.0 if quick else 10.0
    print(f"holds: 9 scenes x {len(FORMULATIONS)} formulations, {duration:g} s each")
    w = RowWriter(os.path.join(out, "holds.csv"), HOLD_FIELDS)
    rows, total, i = [], len(GRIPPERS) * len(OBJECTS) * len(FORMULATIONS), 0
    for gripper in GRIPPERS:
        for obj in OBJECTS:
            scene = f"scenes/penalty/{gripper}_{obj}.yaml"
            for name, params in FORMULATIONS.items():
                i += 1
                run_dir = os.path.join(out, "holds", f"{gripper}_{obj}", name)
                result = runner.run(scene, run_dir, duration, params)
                row = {"scene": f"{gripper}_{obj}", "gripper": gripper, "object": obj, "formulation": name,
                       "run_dir": os.path.relpath(run_dir, out)}
                if result is None:
                    row["status"] = "failed"
                else:
                    row.update(summary_row(result))
                    row.update(object_motion(run_dir))
                w.write(row)
                rows.append(row)
                print(f"  [{i}/{total}] {gripper}_{obj} {name}: held={row.get('object_held')} "
                      f"disp {fmt(row.get('disp_mm'))} mm, pen {fmt(row.get('max_penetration_m'))} m, "
                      f"wall {fmt(row.get('wall_s'))} s" + (" (cached)" if row.get("cached") else "")
                      + (f"  NON-FINITE {row['_nonfinite']}" if row.get("_nonfinite") else ""))
    w.close()
    lines = [f"# Holds: each formulation for {duration:g} s on the nine grasps (scenes/penalty/)", "",
             "KE ratio: null (–) when the palm does not move (no shake in these runs). "
             "Displacement: the object's, start to end, from bodies.csv. RK45 steps: accepted (rejected).", "",
             "| scene | formulation | held | dropped | final disp. (mm) | max penetration (m) | KE ratio mean | "
             "wall s | RK45 steps | overlap µs/call |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        if r.get("status") != "completed":
            lines.append(f"| {r['scene']} | {r['formulation']} | FAILED | | | | | | | |")
            continue
        steps = (f"{fmt(r['rk45_accepted_steps'])} ({fmt(r['rk45_rejected_steps'])})"
                 if r.get("rk45_accepted_steps") is not None else "–")
        lines.append(f"| {r['scene']} | {r['formulation']} | {fmt(r['object_held'])} | "
                     f"{'yes' if r.get('object_dropped') else 'no'} | {fmt(r['disp_mm'])} | "
                     f"{fmt(r['max_penetration_m'])} | {fmt(r['ke_ratio_mean'])} | {fmt(r['wall_s'])} | {steps} | "
                     f"{fmt(r.get('overlap_us_mean'))} |")
    write_text(os.path.join(out, "holds.md"), "\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------
# Part sweeps


SWEEP_FIELDS = (["sweep", "g1", "gi", "dt_target", "status"] + SUMMARY_KEYS
                + ["ke_ratio_after_grasp", "disp_x_mm", "disp_y_mm", "disp_z_mm", "disp_mm", "final_t", "cached",
                   "run_dir"] + [f"p_{k}" for k in PARAM_KEYS])


def sweep_run_dir(out, g1, gi, dt):
    # Named by the full parameter triple: the two sweeps share their default rows.
    return os.path.join(out, "sweeps", f"g1_{g1:.3g}__gi_{gi:g}__dt_{1000 * dt:g}mm")


def part_sweeps(runner, out, quick, shake, extra_sets=None):
    duration = 1.0 if quick else 3.0
    grid = GRIDS["quick" if quick else "full"]
    base = {"stepper": "penalty", "shake_amplitude": shake["amplitude"], "shake_frequency": shake["frequency"],
            "shake_axis_x": shake["axis"][0], "shake_axis_y": shake["axis"][1], "shake_axis_z": shake["axis"][2]}
    print(f"sweeps: {SWEEP_SCENE}, {duration:g} s, palm shaken {shake['amplitude']:g} m at {shake['frequency']:g} Hz "
          f"along {shake['axis']}")

    def run_point(g1, gi, dt):
        run_dir = sweep_run_dir(out, g1, gi, dt)
        result = runner.run(SWEEP_SCENE, run_dir, duration, dict(base, g1=repr(g1), gi=repr(float(gi)),
                                                                 dt_target=repr(dt)), extra_sets)
        row = {"g1": g1, "gi": gi, "dt_target": dt, "run_dir": os.path.relpath(run_dir, out)}
        if result is None:
            row["status"] = "failed"
            return row
        row.update(summary_row(result))
        row.update(object_motion(run_dir, settle=SETTLE_S, inertia=object_inertia(result)))
        return row

    # First the grasp at the seed's parameters with this shake: it must hold, KE ratio ~1.
    check = run_point(G1_DEFAULT, GI_DEFAULT, DT_DEFAULT)
    write_text(os.path.join(out, "sweeps_shake_check.json"), json.dumps(
        {"shake": shake, "duration_s": duration, **{k: check.get(k) for k in
         ("object_held", "ke_ratio_mean", "ke_ratio_max", "ke_ratio_after_grasp", "max_penetration_m", "wall_s",
          "disp_mm", "status")}}, indent=1) + "\n")
    print(f"  shake check (seed's parameters): held={check.get('object_held')} "
          f"ke_ratio_mean={fmt(check.get('ke_ratio_mean'))} ke_ratio_max={fmt(check.get('ke_ratio_max'))} "
          f"after {SETTLE_S:g} s {fmt(check.get('ke_ratio_after_grasp'))} wall {fmt(check.get('wall_s'))} s")
    if check.get("status") != "completed" or not check.get("object_held"):
        raise RunFailed("sweeps: the grasp at the seed's parameters does not hold the object with this shake "
                        f"({shake}); choose another with --shake-amplitude/--shake-frequency")
    if not (0.5 <= (check.get("ke_ratio_mean") or 0) <= 2.0):
        print(f"  warning: KE ratio {fmt(check.get('ke_ratio_mean'))} at the seed's parameters is far from 1")

    plt = common.setup_matplotlib()
    for sweep, ykey, yvals, ylabel in (
            ("g1_gi", "g1", [G1_DEFAULT * m for m in grid["g1_mult"]], "g1 (N/m³)"),
            ("dt_gi", "dt_target", [mm / 1000 for mm in grid["dt_mm"]], "target depth d_t")):
        gis = grid["gi"]
        w = RowWriter(os.path.join(out, f"sweep_{sweep}.csv"), SWEEP_FIELDS)
        cells, n, total = {}, 0, len(yvals) * len(gis)
        for y in yvals:
            for gi in gis:
                n += 1
                g1 = y if ykey == "g1" else G1_DEFAULT
                dt = y if ykey == "dt_target" else DT_DEFAULT
                row = run_point(g1, gi, dt)
                row["sweep"] = sweep
                w.write(row)
                cells[(y, gi)] = row
                print(f"  [{sweep} {n}/{total}] {ykey}={y:.3g} gi={gi:g}: held={row.get('object_held')} "
                      f"ke_mean={fmt(row.get('ke_ratio_mean'))} ke_after={fmt(row.get('ke_ratio_after_grasp'))} "
                      f"pen={fmt(row.get('max_penetration_m'))} wall={fmt(row.get('wall_s'))} s"
                      + (" (cached)" if row.get("cached") else "")
                      + (f"  NON-FINITE {row['_nonfinite']}" if row.get("_nonfinite") else ""))
        w.close()
        write_sweep_md(out, sweep, ykey, yvals, gis, cells, duration, shake)
        plot_sweep(plt, out, sweep, ykey, yvals, gis, cells, ylabel, duration, shake)


def _ylabel_value(ykey, y):
    return f"{y:.3g}" if ykey == "g1" else f"{1000 * y:g} mm"


def write_sweep_md(out, sweep, ykey, yvals, gis, cells, duration, shake):
    title = {"g1_gi": "g1 × g_i (seed Fig. 5)", "dt_gi": "d_t × g_i (seed Fig. 6)"}[sweep]
    lines = [f"# KE ratio, {title}: {SWEEP_SCENE}, {duration:g} s, palm shaken {shake['amplitude']:g} m at "
             f"{shake['frequency']:g} Hz", "",
             "ke_ratio_mean from run.json (the whole run, energy weighted). ✗ = object not held at the end; "
             "FAILED = the run failed. Bracketed: the ratio from bodies.csv samples after "
             f"t = {SETTLE_S:g} s (the grasp closed). The seed's point is marked *.", "",
             f"| {ykey} \\ g_i | " + " | ".join(f"{gi:g}" for gi in gis) + " |",
             "| --- |" + " --- |" * len(gis)]
    for y in yvals:
        out_cells = []
        for gi in gis:
            r = cells[(y, gi)]
            if r.get("status") != "completed":
                out_cells.append("FAILED")
                continue
            seed = (gi == GI_DEFAULT and (math.isclose(y, G1_DEFAULT) if ykey == "g1" else math.isclose(y, DT_DEFAULT)))
            c = f"{fmt(r.get('ke_ratio_mean'))} ({fmt(r.get('ke_ratio_after_grasp'))})"
            if not r.get("object_held"):
                c += " ✗"
            out_cells.append(("*" if seed else "") + c)
        lines.append(f"| {_ylabel_value(ykey, y)} | " + " | ".join(out_cells) + " |")
    text = "\n".join(lines) + "\n"
    write_text(os.path.join(out, f"sweep_{sweep}.md"), text)
    print("\n".join("  " + x for x in lines[4:]))


def _log_edges(v):
    v = np.asarray(v, float)
    mids = np.sqrt(v[:-1] * v[1:])
    return np.concatenate([[v[0] ** 2 / mids[0]], mids, [v[-1] ** 2 / mids[-1]]])


def plot_sweep(plt, out, sweep, ykey, yvals, gis, cells, ylabel, duration, shake):
    from matplotlib.colors import LogNorm
    z = np.full((len(yvals), len(gis)), np.nan)
    for i, y in enumerate(yvals):
        for j, gi in enumerate(gis):
            v = cells[(y, gi)].get("ke_ratio_mean")
            z[i, j] = v if isinstance(v, (int, float)) and v is not None and math.isfinite(v) and v > 0 else np.nan
    fig, ax = plt.subplots(figsize=(6.2, 4.6))
    # g_i includes 0, so its axis is categorical (equal cells in grid order); the y grid is
    # logarithmic, so its axis is too (cell edges at the geometric midpoints).
    xe = np.arange(len(gis) + 1) - 0.5
    ye = _log_edges(yvals)
    finite = z[np.isfinite(z)]
    norm = LogNorm(vmin=min(finite.min(), 0.5), vmax=max(finite.max(), 2.0)) if finite.size else None
    ax.grid(False)
    mesh = ax.pcolormesh(xe, ye, np.ma.masked_invalid(z), cmap="viridis", norm=norm, shading="flat")
    ax.set_yscale("log")
    for i, y in enumerate(yvals):
        for j, gi in enumerate(gis):
            r = cells[(y, gi)]
            if r.get("status") != "completed":
                txt = "failed"
            else:
                txt = fmt(r.get("ke_ratio_mean"), ".2g") + ("" if r.get("object_held") else "\nnot held")
            seed = gi == GI_DEFAULT and math.isclose(y, G1_DEFAULT if ykey == "g1" else DT_DEFAULT)
            ax.annotate(txt, (j, y), xytext=(0, -16 if seed else 0), textcoords="offset points", ha="center",
                        va="center", fontsize=7, color="w", path_effects=_outline())
    ax.set_xticks(range(len(gis)))
    ax.set_xticklabels([f"{gi:g}" for gi in gis])
    ax.set_yticks(yvals)
    ax.set_yticklabels([_ylabel_value(ykey, y) for y in yvals])
    ax.minorticks_off()
    ax.set_xlabel("impact gain g_i (categorical axis)")
    ax.set_ylabel(ylabel)
    ydef = G1_DEFAULT if ykey == "g1" else DT_DEFAULT
    if GI_DEFAULT in gis:
        ax.plot([gis.index(GI_DEFAULT)], [ydef], "o", color="limegreen", ms=11, mec="k", mew=0.8, alpha=0.85,
                label="seed's parameters (Fig. 3)")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(0, -0.14))
    cb = fig.colorbar(mesh, ax=ax)
    cb.set_label("KE ratio (object / moving rigidly with the palm), mean")
    ax.set_title(f"revolute3_cube, palm {shake['amplitude']:g} m at {shake['frequency']:g} Hz, {duration:g} s",
                 fontsize=9)
    fig.tight_layout()
    save_png(fig, os.path.join(out, f"sweep_{sweep}.png"))


def _outline():
    import matplotlib.patheffects as pe
    return [pe.withStroke(linewidth=1.5, foreground="k")]


# ---------------------------------------------------------------------------------------


def resolve_bin(path):
    for p in (path, os.path.join(ROOT, path)):
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.abspath(p)
    raise SystemExit(f"error: graspsim CLI not found at {path} (nor {os.path.join(ROOT, path)}); "
                     "build it or pass --bin")


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/bin/graspsim", help="the graspsim CLI (default build/bin/graspsim)")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", "penalty_figures"),
                    help="output folder (default out/penalty_figures; --quick writes to OUT/quick)")
    ap.add_argument("--quick", action="store_true", help="smoke run: 3x3 grids, shorter runs")
    ap.add_argument("--parts", default=",".join(PARTS), help="comma-separated subset of " + ",".join(PARTS))
    ap.add_argument("--shake-amplitude", type=float, default=0.01, help="sweeps: palm shake amplitude, m")
    ap.add_argument("--shake-frequency", type=float, default=1.0, help="sweeps: palm shake frequency, Hz")
    ap.add_argument("--shake-axis", default="0,1,0", help="sweeps: shake direction x,y,z (default y)")
    ap.add_argument("--sweep-set", action="append", default=[], metavar="KEY=VALUE",
                    help="sweeps: a further --set for every sweep run, e.g. options.gravity=[0,0,0] "
                         "(the object then does not drag on the ground); repeatable")
    ap.add_argument("--keep-going", action="store_true",
                    help="record a failed run and go on (bad input still stops); exit non-zero at the end")
    args = ap.parse_args()

    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    bad = [p for p in parts if p not in PARTS]
    if bad or not parts:
        ap.error(f"--parts: unknown {bad}; choose from {','.join(PARTS)}")
    axis = [float(x) for x in args.shake_axis.split(",")]
    if len(axis) != 3:
        ap.error("--shake-axis: three numbers x,y,z")
    binary = resolve_bin(args.bin)
    out = os.path.abspath(args.out)
    if args.quick:
        out = os.path.join(out, "quick")
    os.makedirs(out, exist_ok=True)
    st = os.stat(binary)
    manifest = {"bin": binary, "bin_sha256": sha256(binary), "bin_mtime": time.ctime(st.st_mtime),
                "parts": parts, "quick": args.quick, "started": time.ctime(),
                # the scenes are read at run time: their hashes tell which version a run used
                "scene_sha256": {p: sha256(os.path.join(ROOT, "scenes", "penalty", p))[:16] for p in
                                 sorted(os.listdir(os.path.join(ROOT, "scenes", "penalty", "parts")))
                                 for p in [os.path.join("parts", p)]},
                "shake": {"amplitude": args.shake_amplitude, "frequency": args.shake_frequency, "axis": axis}}
    write_text(os.path.join(out, f"manifest_{'_'.join(parts)}.json"), json.dumps(manifest, indent=1) + "\n")
    print(f"graspsim: {binary} (sha256 {manifest['bin_sha256'][:12]}, built {manifest['bin_mtime']}); out: {out}")

    runner = Runner(binary, args.keep_going)
    start = time.monotonic()
    part_wall = {}
    try:
        for part in parts:
            t0 = time.monotonic()
            if part == "fig3":
                part_fig3(runner, out, args.quick)
            elif part == "holds":
                part_holds(runner, out, args.quick)
            else:
                part_sweeps(runner, out, args.quick, {"amplitude": args.shake_amplitude,
                                                      "frequency": args.shake_frequency, "axis": axis},
                            dict(kv.split("=", 1) for kv in args.sweep_set))
            part_wall[part] = time.monotonic() - t0
            print(f"{part}: done in {part_wall[part]:.1f} s wall")
    except RunFailed as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(1)
    except KeyboardInterrupt:
        print("\ninterrupted: finished runs are kept; run the same command again to resume", file=sys.stderr)
        sys.exit(130)
    print(f"total {time.monotonic() - start:.1f} s wall ({runner.ran} runs made, {runner.cached} reused); "
          f"results in {out}")
    if runner.failures:
        print(f"error: {len(runner.failures)} run(s) failed:\n" + "\n".join(runner.failures), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
