#!/usr/bin/env python3
"""Per-step solve time of the quasistatic schemes on seed 003's two examples, like its
Table I (mean, worst, standard deviation, binaries), from the CLI's run.json summaries.

usage: bench/quasistatic_times.py [BUILD_DIR] [--miqp-3d-duration S]
The MIQP runs with both of its solvers (the complementarity branch and bound, Bonmin) on
the same steps. The branch and bound runs the whole 3D pick; Bonmin only its first S
seconds (default 2.8: down to the pre-grasp, the object on the table, and the pads' first
touch), as it does not get through the grasp at a usable speed (see bench/README.md)."""
import json
import pathlib
import subprocess
import sys
import tempfile

root = pathlib.Path(__file__).resolve().parents[1]
args = [a for a in sys.argv[1:] if not a.startswith("--")]
build = pathlib.Path(args[0]) if args else root / "build"
miqp_3d = 2.8
if "--miqp-3d-duration" in sys.argv:
    miqp_3d = float(sys.argv[sys.argv.index("--miqp-3d-duration") + 1])
cli = build / "bin" / "graspsim"

SCHEMES = ("lcp", "miqp:branch_and_bound", "miqp:bonmin", "convex")
runs = [("pang2d", "scenes/quasistatic/pang2d.yaml", {}, s) for s in SCHEMES]
for obj in ("cylinder", "rounded_box"):
    for scheme in SCHEMES:
        duration = miqp_3d if scheme == "miqp:bonmin" else None
        runs.append((f"iiwa_pick/{obj}", "scenes/quasistatic/iiwa_pick.yaml", {"object": obj, "duration": duration}, scheme))

print(f"{'example':22} {'scheme':24} {'steps':>6} {'mean ms':>9} {'worst ms':>9} {'std ms':>8} {'binaries':>8} {'unproven':>8} {'lift m':>7} dropped  status")
for name, scene, extra, scheme in runs:
    with tempfile.TemporaryDirectory() as out:
        name_scheme, _, solver = scheme.partition(":")
        cmd = [str(cli), "run", str(root / scene), "--out", out, "--set", f"parameters.scheme={name_scheme}"]
        if solver:
            cmd += ["--set", f"options.quasistatic.miqp_solver={solver}"]
        for k, v in extra.items():
            if k == "duration":
                if v is not None:
                    cmd += ["--set", f"duration={v}"]
            else:
                cmd += ["--set", f"parameters.{k}={v}"]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        run = json.loads((pathlib.Path(out) / "run.json").read_text())
        s = run.get("summary", {})
        status = run.get("status", "?")
        if status == "failed":
            status += ": " + run.get("error", "")[:90]
        print(f"{name:22} {scheme:24} {s.get('steps', 0):>6} {s.get('solve_ms_mean', float('nan')):>9.3f} "
              f"{s.get('solve_ms_max', float('nan')):>9.3f} {s.get('solve_ms_std', float('nan')):>8.3f} "
              f"{s.get('binaries', 0):>8} {s.get('unproven_steps', 0):>8} {s.get('object_lift_m', float('nan')):>7.3f} "
              f"{str(s.get('object_dropped', '')):>7}  {status}", flush=True)
