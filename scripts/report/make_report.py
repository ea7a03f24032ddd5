#!/usr/bin/env python3
"""Writes out/report.html: one self-contained page (inline SVG, no network) with the
validation results: the thesis' planar pushes (chapter 4.1-4.3), point vs area support,
prehensile pushing (4.4) and the real MCube pushes (graspsim validate mcube). Every input
is optional; a missing one is said so on the page."""

import argparse
import datetime
import html
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import common  # noqa: E402

CSS = """
body{font-family:system-ui,sans-serif;max-width:1150px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1{border-bottom:2px solid #444}h2{border-bottom:1px solid #aaa;margin-top:2em}
table{border-collapse:collapse;font-size:12px;margin:.8em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f0f0f0}td.l,th.l{text-align:left}.ok{background:#e3f5e1}.bad{background:#fbe1e1}.na{color:#888}
.skip{background:#f4f4f4;color:#888}figure{margin:1em 0}figcaption{font-size:12px;color:#555}
svg{max-width:100%;height:auto}.note{background:#fff8e0;border-left:4px solid #e0b000;padding:.4em .8em}
code{background:#f3f3f3;padding:0 3px}
"""


def esc(x):
    return html.escape(str(x))


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def inline_svg(path, caption):
    try:
        with open(path) as f:
            svg = f.read()
    except OSError:
        return f'<p class="na">figure {esc(os.path.basename(path))} is missing</p>'
    return f"<figure>{svg}<figcaption>{esc(caption)}</figcaption></figure>"


def fmt(v, nd=1):
    return "—" if v is None else f"{v:.{nd}f}"


def git_commit():
    try:
        return subprocess.run(["git", "-C", common.ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


# ---- thesis -----------------------------------------------------------------------------

VERDICT_CLASS = {"reproduces": "ok", "deviates": "bad", "skipped": "skip", "run failed": "bad"}
VERDICT_MARK = {"reproduces": "✓", "deviates": "✗", "no claim": "", "skipped": "", "run failed": "failed"}


def thesis_section(out):
    s = load_json(os.path.join(out, "thesis", "summary.json"))
    if not s:
        return "<h2>Thesis reproduction (planar pushing)</h2><p class=na>No results: run scripts/report/thesis_pushes.py.</p>"
    res = s["results"]
    counts = {}
    for r in res.values():
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    parts = ["<h2>Thesis reproduction: planar pushing (chapter 4.1–4.3)</h2>",
             "<p>The rect1 box of the MCube data set (90×90×13 mm, 0.837 kg, μ<sub>ground</sub> 0.16, "
             "μ<sub>pusher</sub> 0.25) pushed at 10 mm/s for 5 s by a 4.75 mm rod, for the four pushes of thesis "
             "Table 4.1, with every SPOOK solver and friction model (<code>scenes/validation/push.yaml</code>, "
             "dt 1/60 s, the thesis' four corner contacts). Displacements are of the box centre in mm along the "
             "push (x) and across it (y); yaw in degrees, positive counter-clockwise (contact 0.8 lies at +y, so "
             "the box turns clockwise: negative). A combination <em>rotates</em> when |yaw| ≥ "
             f"{s['rotates_threshold_deg']}°.</p>",
             "<p>Verdicts: " + ", ".join(f"{esc(k)}: {v}" for k, v in sorted(counts.items())) +
             ". ✓ reproduces what the thesis shows for that combination, ✗ deviates, blank: the thesis says "
             "nothing about it (the thesis ran direct solves with the scaled box and iterative ones with the "
             "cone; on the straight 0.5 push every model must go straight by symmetry).</p>",
             '<p class="note">Multi-directional <code>k</code> here counts directions over the full circle, '
             "so k = 4 is the box (±t<sub>1</sub>, ±t<sub>2</sub>) and k = 6 is the thesis' “one extra tangent” "
             "(the thesis counts lines: its 2 = our 4, its 3 = our 6). k = 2 is rejected by the engine. "
             "The cone with the pure direct solver is rejected by <code>graspsim check</code> and skipped.</p>"]
    figs = s.get("figures", {})
    if "yaw_map" in figs:
        parts.append(inline_svg(os.path.join(out, "thesis", "figs", "yaw_map.svg"), figs["yaw_map"]))
    for push, geo in s["pushes"].items():
        angle = "straight" if geo["angle_deg"] == 0 else f"{geo['angle_deg']:+.0f}°"
        rows = [f"<h3>Contact {geo['contact']}, {angle} <small>({esc(push)})</small></h3>",
                "<table><tr><th class=l>friction model</th>" +
                "".join(f"<th>{esc(sv)}<br>dx / dy / yaw</th>" for sv in s["solvers"]) + "</tr>"]
        for m in s["models"]:
            cells = []
            for sv in s["solvers"]:
                r = res.get(f"{push}/{sv}_{m}")
                if not r:
                    cells.append("<td class=na>—</td>")
                elif not r["ok"]:
                    cls = VERDICT_CLASS.get(r["verdict"], "")
                    cells.append(f'<td class="{cls}" title="{esc(r.get("error", ""))}">{esc(r["verdict"])}</td>')
                else:
                    cls = VERDICT_CLASS.get(r["verdict"], "")
                    claim = f' title="thesis: {esc(r["thesis"])}"' if r.get("thesis") else ""
                    cells.append(f'<td class="{cls}"{claim}>{r["dx_mm"]:.1f} / {r["dy_mm"]:.1f} / '
                                 f'{r["dyaw_deg"]:.1f}° {VERDICT_MARK.get(r["verdict"], "")}</td>')
            rows.append(f"<tr><td class=l>{esc(m)}</td>{''.join(cells)}</tr>")
        rows.append("</table>")
        parts.append("".join(rows))
    parts.append(real_comparison(s))
    parts.append(deviations(s))
    parts.append("<h3>Figures in the style of thesis Figs 4.4–4.13</h3><p>Top left: displacement (and yaw, dashed); "
                 "bottom left: friction forces on the box summed over the ground contacts and at the pusher; "
                 "right: the largest Coulomb cone error (thesis eq. 4.1) over the ground contacts and the mean "
                 "|alignment error| (eq. 4.2) over the sliding ones.</p>")
    for fid in sorted((f for f in figs if f.startswith("fig4_")), key=lambda f: int(f.split("_")[1])):
        parts.append(inline_svg(os.path.join(out, "thesis", "figs", fid + ".svg"), figs[fid]))
    parts.append(area_section(out, s))
    return "\n".join(parts)


def real_comparison(s):
    real_dx, real_yaw = s["reference"]["real_abs"]
    rows = [r for r in s["results"].values() if r["push"] == "c08_straight" and r["ok"]]
    rows.sort(key=lambda r: abs(r["real_dx_err_mm"]) + abs(r["real_yaw_err_deg"]))
    out = [f"<h3>How close to the real push</h3><p>The real ABS push at contact 0.8, straight (rect1 i=2 s=0.8 t=0, "
           f"75 mm/s, <code>shared/data/mcube-push/abs/train</code>) moved {real_dx:.0f} mm and turned "
           f"{real_yaw:.0f}°. The eight combinations closest to it with the thesis' corner support, and the "
           "farthest (errors: simulated − real, |yaw|):</p><table><tr><th class=l>combination</th><th>dx (mm)</th>"
           "<th>|yaw| (°)</th><th>dx error (mm)</th><th>|yaw| error (°)</th></tr>"]
    for r in rows[:8] + rows[-3:]:
        out.append(f"<tr><td class=l>{esc(r['solver'])} + {esc(r['model'])}</td><td>{r['dx_mm']:.1f}</td>"
                   f"<td>{abs(r['dyaw_deg']):.1f}</td><td>{r['real_dx_err_mm']:+.1f}</td>"
                   f"<td>{r['real_yaw_err_deg']:+.1f}</td></tr>")
    out.append("</table><p>With four corner contacts no model reaches the real rotation; distributing the "
               "support over the face does (next section).</p>")
    return "".join(out)


def deviations(s):
    bad = [r for r in s["results"].values() if r["verdict"] == "deviates"]
    if not bad:
        return "<p>No combination deviates from the thesis' findings.</p>"
    items = "".join(f"<li>{esc(r['push'])}: {esc(r['solver'])} + {esc(r['model'])}: thesis “{esc(r['thesis'])}”, "
                    f"here {esc(r['result'])} (dy {r['dy_mm']:.1f} mm, yaw {r['dyaw_deg']:.1f}°)</li>"
                    for r in sorted(bad, key=lambda r: (r["push"], r["solver"], r["model"])))
    return f"<h3>Where it deviates ({len(bad)})</h3><ul>{items}</ul>"


def area_section(out, s):
    area = s.get("area") or []
    parts = ["<h2>Point support vs area support (contact 0.8, straight)</h2>"]
    if not area:
        return parts[0] + "<p class=na>Not run (thesis_pushes.py --no-area).</p>"
    ref = s["reference"]
    parts.append(f"<p>The thesis supports the box at its four bottom corners. Known: an exact Coulomb solver gives "
                 f"{ref['exact_corners'][0]} mm / {ref['exact_corners'][1]:.0f}° with the corners and "
                 f"{ref['exact_grid5'][0]} mm / {ref['exact_grid5'][1]:.0f}° with a 5×5 grid of support points; the "
                 f"real push moved {ref['real_abs'][0]:.0f} mm and turned {ref['real_abs'][1]:.0f}°. Here "
                 "<code>area: area, patch_grid: 5</code> (elastic foundation, thesis eqs. 3.10–3.11) against the "
                 "default point contacts.</p><table><tr><th class=l>solver + model</th><th class=l>support</th>"
                 "<th>dx (mm)</th><th>dy (mm)</th><th>|yaw| (°)</th><th>max cone error</th></tr>")
    for r in area:
        if r["ok"]:
            parts.append(f"<tr><td class=l>{esc(r['solver'])} + {esc(r['model'])}</td><td class=l>{esc(r['support'])}"
                         f"</td><td>{r['dx_mm']:.1f}</td><td>{r['dy_mm']:.1f}</td><td>{abs(r['dyaw_deg']):.1f}</td>"
                         f"<td>{fmt(r.get('max_cone_error'), 3)}</td></tr>")
        else:
            parts.append(f"<tr><td class=l>{esc(r['solver'])} + {esc(r['model'])}</td><td class=l>{esc(r['support'])}"
                         f"</td><td colspan=4 class=bad>{esc(r.get('error', 'failed'))}</td></tr>")
    parts.append("</table>")
    if "area_vs_point" in s.get("figures", {}):
        parts.append(inline_svg(os.path.join(out, "thesis", "figs", "area_vs_point.svg"), s["figures"]["area_vs_point"]))
    return "\n".join(parts)


# ---- prehensile ---------------------------------------------------------------------------

THESIS_PREHENSILE = {("direct", "box"): "does not slide down (Fig 4.16)", ("split", "cone"): "slides down (Fig 4.17)"}


def prehensile_section(out):
    s = load_json(os.path.join(out, "prehensile", "summary.json"))
    head = "<h2>Prehensile pushing (thesis 4.4, Kolbert et al.)</h2>"
    if not s:
        return head + "<p class=na>No results: run scripts/report/prehensile.py.</p>"
    parts = [head, "<p>A 100×25×25 mm prism held at its middle by two round 20 mm fingertips squeezing with 20 N "
             "(μ 0.15, the thesis' estimate; the wall's μ is unknown, 0.15 here) is pushed at 10 mm/s for 1.5 s "
             "against a wall (<code>scenes/validation/prehensile.yaml</code>). The wall stops the prism, so the "
             "grip slides 15 mm along it; in the experiment the prism also slides <em>down</em> under gravity. "
             "Quasi-static Coulomb analysis: with cones the fingers' 2μF = 6 N is shared between the wall's push "
             "f<sub>x</sub> and what the wall's friction leaves of the weight, f<sub>x</sub>² + (mg − μ<sub>w</sub>"
             "f<sub>x</sub>)² = (2μF)², and the prism sinks at v·f<sub>z</sub>/f<sub>x</sub>; box friction bounds x "
             "and z separately, so the wall takes 2μF and the prism does not sink "
             "(checked in <code>tests/validation/prehensile_test.cpp</code>).</p>",
             "<table><tr><th class=l>solver + friction</th><th>dt (s)</th><th>mass (g)</th><th>held</th>"
             "<th>drop (mm)</th><th>sink (mm/s) sim / theory</th><th>wall force (N) sim / theory</th>"
             "<th>grip slide (mm)</th><th class=l>slides down?</th><th class=l>thesis</th></tr>"]
    for r in s["runs"]:
        label = f"{esc(r['solver'])} + {esc(r['friction_model'])}"
        dt = "1/60" if r["dt"] > 0.01 else "1/1000"
        if not r["ok"]:
            parts.append(f"<tr><td class=l>{label}</td><td>{dt}</td><td>{r['mass_kg'] * 1000:.1f}</td>"
                         f"<td colspan=7 class=bad>{esc(r.get('error', 'failed'))}</td></tr>")
            continue
        p = r["prediction"]
        if not r["held"]:
            verdict, cls = "dropped: the fingers lost the prism", "bad"
        elif r.get("contact_lost"):
            verdict, cls = f"a fingertip lost its contact for a step (jumped {r['finger_jump_mm']:.1f} mm)", "bad"
        else:
            verdict, cls = ("yes" if r["slides_down"] else "no"), ""
        thesis = THESIS_PREHENSILE.get((r["solver"], r["friction_model"]), "")
        if r["solver"] == "split" and r["dt"] > 0.01:
            thesis = "struggles to keep the object in the grasp (4.4)"
        sink = f"{fmt(r['sink_speed_mm_s'], 2)} / {p['sink_speed_mm_s']:.2f}" if r["held"] else "—"
        wall = f"{r['wall_force_n']:.2f} / {p['wall_force_n']:.2f}" if r["held"] else "—"
        drop = f"{r['object_drop_mm']:.2f}" if r["held"] else "fell"
        parts.append(f"<tr><td class=l>{label}</td><td>{dt}</td><td>{r['mass_kg'] * 1000:.1f}</td>"
                     f"<td>{'yes' if r['held'] else 'no'}</td><td>{drop}</td><td>{sink}</td><td>{wall}</td>"
                     f"<td>{r['slide_mm']:.1f}</td><td class='l {cls}'>{esc(verdict)}</td><td class=l>{esc(thesis)}</td></tr>")
    parts.append("</table>")
    figs = s.get("figures", {})
    for fid in sorted(figs):
        if fid.startswith("masses_") or "_dt1000_m200" in fid or fid == "direct_box_dt60_m200":
            parts.append(inline_svg(os.path.join(out, "prehensile", "figs", fid + ".svg"), figs[fid]))
    return "\n".join(parts)


# ---- real MCube pushes -------------------------------------------------------------------

def read_results(path):
    """Per-file rows and the summary line of `graspsim validate mcube --json` output; bad
    lines are counted, not fatal."""
    rows, summary, bad = [], None, 0
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                bad += 1
                continue
            if isinstance(obj, dict) and "summary" in obj:
                summary = obj["summary"]
            elif isinstance(obj, dict):
                rows.append(obj)
            else:
                bad += 1
    return rows, summary, bad


def median(values):
    v = sorted(x for x in values if isinstance(x, (int, float)))
    if not v:
        return None
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def trajectory_figure(plt, path, title):
    t = common.read_csv(path)
    need = ["t", "sim_x_mm", "sim_y_mm", "sim_yaw_deg", "real_x_mm", "real_y_mm", "real_yaw_deg"]
    if not t or any(k not in t for k in need):
        return None
    fig, ax = plt.subplots(1, 3, figsize=(10, 2.8))
    for a, k, lab in zip(ax, ("x_mm", "y_mm", "yaw_deg"), ("x (mm)", "y (mm)", "yaw (deg)")):
        a.plot(t["t"], t["real_" + k], "k", label="real")
        a.plot(t["t"], t["sim_" + k], "C0--", label="simulated")
        a.set_xlabel("t (s)")
        a.set_ylabel(lab)
    ax[0].legend(fontsize=7)
    fig.suptitle(title, fontsize=8)
    fig.tight_layout()
    return common.figure_svg(fig)


def mcube_section(out, max_plots=4):
    head = "<h2>Real MCube pushes</h2>"
    path = os.path.join(out, "mcube", "results.jsonl")
    if not os.path.exists(path):
        return head + ("<p class=na>No results yet: <code>out/mcube/results.jsonl</code> is absent. It is written by "
                       "<code>graspsim validate mcube shared/data/mcube-push/... --json --out out/mcube</code>.</p>")
    try:
        rows, summary, bad = read_results(path)
    except OSError as e:
        return head + f"<p class=bad>Cannot read {esc(path)}: {esc(e)}</p>"
    ok = [r for r in rows if r.get("status", "ok") == "ok"]
    errors = [r for r in rows if r.get("status", "ok") != "ok"]
    parts = [head, f"<p>{len(rows)} files: {len(ok)} simulated, {len(errors)} failed"
             + (f", {bad} unreadable lines" if bad else "") + ". Displacements in the initial object frame.</p>"]
    usable = [r for r in ok if r.get("usable", True)]
    if len(usable) < len(ok):
        parts.append(f"<p>{len(ok) - len(usable)} recordings are not usable for comparison and are left out of the "
                     "medians: " + "; ".join(esc(os.path.basename(str(r.get('file')))) + " (" +
                                             esc(r.get("unusable_reason", "")) + ")" for r in ok if r not in usable) + "</p>")
    meds = {k: median([r.get(k) for r in usable]) for k in ("pos_err_mm", "yaw_err_deg", "rms_pos_mm", "rms_yaw_deg",
                                                        "force_rms_n")}
    parts.append("<p>Medians over the simulated files: final position error <b>" + fmt(meds["pos_err_mm"]) +
                 " mm</b>, final yaw error <b>" + fmt(meds["yaw_err_deg"]) + "°</b>, RMS position " +
                 fmt(meds["rms_pos_mm"]) + " mm, RMS yaw " + fmt(meds["rms_yaw_deg"]) + "°, force RMS " +
                 fmt(meds["force_rms_n"], 2) + " N (target: ≤ 3 mm and ≤ 3° on rect1).</p>")
    by_shape = {}
    for r in usable:
        by_shape.setdefault((r.get("shape", "?"), r.get("surface", "?")), []).append(r)
    if by_shape:
        parts.append("<table><tr><th class=l>shape</th><th class=l>surface</th><th>files</th><th>median pos err (mm)"
                     "</th><th>median yaw err (°)</th></tr>")
        for (shape, surface), rs in sorted(by_shape.items()):
            parts.append(f"<tr><td class=l>{esc(shape)}</td><td class=l>{esc(surface)}</td><td>{len(rs)}</td>"
                         f"<td>{fmt(median([r.get('pos_err_mm') for r in rs]))}</td>"
                         f"<td>{fmt(median([r.get('yaw_err_deg') for r in rs]))}</td></tr>")
        parts.append("</table>")
    if summary:
        parts.append("<p>Summary line: <code>" + esc(json.dumps(summary)) + "</code></p>")
    cols = [("sim_dx_mm", "sim dx"), ("sim_dy_mm", "sim dy"), ("sim_dyaw_deg", "sim yaw"), ("real_dx_mm", "real dx"),
            ("real_dy_mm", "real dy"), ("real_dyaw_deg", "real yaw"), ("pos_err_mm", "pos err"),
            ("yaw_err_deg", "yaw err"), ("rms_pos_mm", "rms pos"), ("rms_yaw_deg", "rms yaw"), ("force_rms_n", "force rms")]
    parts.append("<table><tr><th class=l>file</th>" + "".join(f"<th>{c[1]}</th>" for c in cols) + "<th class=l>status</th></tr>")
    for r in rows:
        name = os.path.basename(str(r.get("file", "?")))
        if r.get("status", "ok") != "ok":
            parts.append(f"<tr><td class=l>{esc(name)}</td><td colspan={len(cols)} class='l bad'>"
                         f"{esc(r.get('error', 'error'))}</td><td class=l>error</td></tr>")
            continue
        vals = "".join(f"<td>{fmt(r.get(k), 2 if k == 'force_rms_n' else 1)}</td>" for k, _ in cols)
        parts.append(f"<tr><td class=l>{esc(name)}</td>{vals}<td class=l>ok</td></tr>")
    parts.append("</table>")
    plots = 0
    plt = None
    for r in sorted(ok, key=lambda r: r.get("pos_err_mm") or 0):
        if plots >= max_plots:
            break
        stem = os.path.splitext(os.path.basename(str(r.get("file", ""))))[0]
        traj = os.path.join(out, "mcube", stem, "trajectory.csv")
        if not os.path.exists(traj):
            continue
        plt = plt or common.setup_matplotlib()
        try:
            svg = trajectory_figure(plt, traj, stem)
        except (OSError, ValueError) as e:
            svg = None
            parts.append(f"<p class=na>{esc(traj)}: {esc(e)}</p>")
        if svg:
            parts.append(f"<figure>{svg}<figcaption>{esc(stem)}: pos err {fmt(r.get('pos_err_mm'))} mm, yaw err "
                         f"{fmt(r.get('yaw_err_deg'))}°</figcaption></figure>")
            plots += 1
    if plots == 0:
        parts.append("<p class=na>No trajectory.csv files to plot.</p>")
    return "\n".join(parts)


MODEL_NAMES = {
    "mcube": "area support 5×5, split + cone (default)",
    "corners_split_cone": "corner support (thesis), split + cone",
    "area_direct_box": "area support 5×5, direct + box",
    "area_direct_polyhedral8": "area support 5×5, direct + polyhedral k=8 (rect1 on ABS only)",
}


def models_section(out):
    """The same real pushes under other contact models: medians from each run's summary line."""
    runs = [("mcube", os.path.join(out, "mcube", "results.jsonl"))]
    models = os.path.join(out, "mcube_models")
    if os.path.isdir(models):
        runs += [(d, os.path.join(models, d, "results.jsonl")) for d in sorted(os.listdir(models))
                 if os.path.isfile(os.path.join(models, d, "results.jsonl"))]
    head = ("<h3>Contact models on the real pushes</h3><p>Medians of the final position and yaw errors. "
            "Issue 5's target, for the best model with one friction value per surface: median ≤ 3 mm and ≤ 3° "
            "over the usable rect1 files.</p>")
    groups = [("all", "all files"), ("shape=rect1", "rect1"), ("surface=abs", "ABS"), ("surface=plywood", "plywood")]
    rows = []
    for name, path in runs:
        _, summary, _ = read_results(path) if os.path.exists(path) else ([], None, 0)
        if not summary:
            continue
        cells = []
        for key, _ in groups:
            g = summary if key == "all" else summary.get("groups", {}).get(key)
            if not g or not g.get("files") and key != "all":
                cells.append("<td>–</td>")
                continue
            files = summary.get("usable", summary.get("ok")) if key == "all" else g.get("files")
            cells.append(f"<td>{fmt(g.get('median_pos_err_mm'))} mm / {fmt(g.get('median_yaw_err_deg'))}° "
                         f"<small>({files})</small></td>")
        rows.append(f"<tr><td class=l>{esc(MODEL_NAMES.get(name, name))}</td>{''.join(cells)}</tr>")
    if not rows:
        return head + "<p class=na>No model runs found (out/mcube*/results.jsonl).</p>"
    return (head + "<table><tr><th class=l>model</th>" + "".join(f"<th>{label}</th>" for _, label in groups) +
            "</tr>" + "".join(rows) + "</table>")


def intro():
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    return (f"<h1>graspsim validation report</h1><p>graspsim simulates robotic grasping and in-hand manipulation "
            "with a SPOOK constraint stepper (direct, iterative, split and direct+iterative solvers; box, scaled box, "
            "cone, oriented, randomized, multi-directional and polyhedral friction). This page checks it against the "
            "benchmarks of the thesis it follows (chapter 4: planar pushing on the MIT MCube data set and "
            "prehensile pushing after Kolbert et al.) and against the real MCube recordings. It was written by "
            f"<code>scripts/report/make_report.py</code> ({now}, commit {esc(git_commit())}); <code>make demo</code> "
            "reruns everything. Details and how to rerun single parts: <code>docs/validation.md</code>.</p>"
            "<p>Contents: <a href='#mcube'>real MCube pushes</a> · <a href='#models'>contact models on them</a> · "
            "<a href='#thesis'>thesis pushes</a> · <a href='#area'>point vs area support</a> · "
            "<a href='#prehensile'>prehensile pushing</a></p>")


def section(anchor, fn, *args):
    try:
        body = fn(*args)
    except Exception as e:  # noqa: BLE001 - one broken input must not lose the rest of the report
        body = f"<p class=bad>This section failed: {esc(type(e).__name__)}: {esc(e)}</p>"
    return f'<div id="{anchor}">{body}</div>'


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=os.path.join(common.ROOT, "out"))
    args = ap.parse_args()
    thesis = section("thesis", thesis_section, args.out).replace("<h2>Point support", '<h2 id="area">Point support')
    # Real experiments first: what a new user asks before anything else.
    body = "\n".join([intro(), section("mcube", mcube_section, args.out), section("models", models_section, args.out),
                      thesis, section("prehensile", prehensile_section, args.out)])
    page = (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>graspsim validation report</title>"
            f"<style>{CSS}</style></head><body>{body}</body></html>")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "report.html")
    with open(path, "w") as f:
        f.write(page)
    print(f"report: {path} ({len(page) // 1024} KiB)")


if __name__ == "__main__":
    main()
