"""Shared helpers for the validation scripts: running the graspsim CLI, reading its CSV
recordings, and rendering matplotlib figures as inline SVG."""

import argparse
import csv
import io
import json
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def script_arguments(doc, out_name):
    """The options every run script shares: the build folder, its output folder, parallel runs."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", default=os.path.join(ROOT, "out", out_name))
    ap.add_argument("--jobs", type=int, default=2)
    return ap


def cli_path(build="build"):
    path = os.path.join(ROOT, build, "bin", "graspsim")
    if not os.path.exists(path):
        raise SystemExit(f"graspsim CLI not found at {path}; build it with ninja -C {build} graspsim_cli")
    return path


def run_scene(cli, scene, out_dir, sets, dt=None, force=False):
    """Runs `graspsim run` unless out_dir already holds a finished run (run.json) made with
    the same settings. Returns (ok, message)."""
    args = [cli, "run", os.path.join(ROOT, scene), "--out", out_dir]
    for key, value in sets.items():
        args += ["--set", f"parameters.{key}={value}"]
    if dt is not None:
        args += ["--dt", repr(dt)]
    stamp = os.path.join(out_dir, "args.json")
    if not force and os.path.exists(os.path.join(out_dir, "run.json")) and os.path.exists(stamp):
        with open(stamp) as f:
            if json.load(f) == args[2:]:
                return True, "cached"
    os.makedirs(out_dir, exist_ok=True)
    proc = subprocess.run(args, capture_output=True, text=True)
    if proc.returncode != 0:
        return False, (proc.stderr or proc.stdout).strip()
    with open(stamp, "w") as f:
        json.dump(args[2:], f)
    return True, proc.stdout.strip()


def run_many(jobs, workers=2):
    """jobs: list of (key, callable returning (ok, msg)). Returns {key: (ok, msg)}."""
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {key: pool.submit(fn) for key, fn in jobs}
        return {key: fut.result() for key, fut in futures.items()}


def read_csv(path):
    """A CSV recording as {column: np.array} (strings kept for the name columns)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return {}
    header, body = rows[0], rows[1:]
    cols = {}
    for i, name in enumerate(header):
        values = [r[i] if i < len(r) else "" for r in body]
        try:
            cols[name] = np.array([float(v) if v != "" else np.nan for v in values])
        except ValueError:
            cols[name] = np.array(values)
    return cols


def body_track(bodies, name):
    """t, position (n×3) and yaw (deg, unwrapped) of one body from bodies.csv columns."""
    sel = bodies["body"] == name
    t = bodies["t"][sel]
    pos = np.stack([bodies["x"][sel], bodies["y"][sel], bodies["z"][sel]], axis=1)
    qw, qx, qy, qz = (bodies[k][sel] for k in ("qw", "qx", "qy", "qz"))
    yaw = np.unwrap(np.arctan2(2 * (qw * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz)))
    return t, pos, np.degrees(yaw)


def contact_sums(contacts, times, pair, columns):
    """Per time in `times`, the sum of `columns` over the contacts between the bodies in
    `pair` (either order)."""
    a, b = pair
    sel = ((contacts["body_a"] == a) & (contacts["body_b"] == b)) | ((contacts["body_a"] == b) & (contacts["body_b"] == a))
    t = contacts["t"][sel]
    out = {}
    idx = np.searchsorted(times, t - 1e-9)
    idx = np.clip(idx, 0, len(times) - 1)
    for c in columns:
        acc = np.zeros(len(times))
        np.add.at(acc, idx, np.nan_to_num(contacts[c][sel]))
        out[c] = acc
    return out


def contact_stat(contacts, times, pair, column, reducer):
    """Per time, reducer(values of `column`) over the pair's contacts (nan where none)."""
    a, b = pair
    sel = ((contacts["body_a"] == a) & (contacts["body_b"] == b)) | ((contacts["body_a"] == b) & (contacts["body_b"] == a))
    t, v = contacts["t"][sel], contacts[column][sel]
    out = np.full(len(times), np.nan)
    idx = np.clip(np.searchsorted(times, t - 1e-9), 0, len(times) - 1)
    for i in np.unique(idx):
        vals = v[idx == i]
        vals = vals[~np.isnan(vals)]
        if len(vals):
            out[i] = reducer(vals)
    return out


def figure_svg(fig):
    """The figure as an SVG string without the XML prolog, for inlining in HTML."""
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    svg = buf.getvalue()
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def save_figure(fig, path):
    import matplotlib.pyplot as plt
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(figure_svg(fig))
    plt.close(fig)


def setup_matplotlib():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Text as paths would bloat the SVGs; keep it as text, and make ids unique per figure
    # so several inlined SVGs do not clash.
    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True, "grid.alpha": 0.3,
                         "figure.dpi": 100, "svg.hashsalt": None})
    return plt
