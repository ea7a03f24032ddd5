#!/usr/bin/env python3
"""Rewrites the measured tables of docs/validation.md from out/thesis/summary.json (written by
thesis_pushes.py), between the markers <!-- tables:thesis --> ... <!-- /tables:thesis --> and
<!-- tables:area --> ... <!-- /tables:area -->, so the doc shows what the code measures."""
import argparse
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TITLES = {"c05_straight": ("Contact 0.5, straight", False), "c05_40deg": ("Contact 0.5, 40°", False),
          "c08_straight": ("Contact 0.8, straight", True), "c08_m20deg": ("Contact 0.8, −20°", False)}
MARK = {"reproduces": " ✓", "deviates": " ✗"}


def cell(r, full):
    if not r or not r.get("ok"):
        return "skip"
    text = (f"{r['dx_mm']:.1f} / {r['dy_mm']:.1f} / {r['dyaw_deg']:.1f}" if full else f"{r['dyaw_deg']:.1f}")
    return text + MARK.get(r.get("verdict"), "")


def thesis_tables(s):
    out = []
    solvers = s["solvers"]
    models = sorted({r["model"] for r in s["results"].values()}, key=lambda m: list(s["models"]).index(m)
                    if m in s["models"] else len(s["models"]))
    for push, (title, full) in TITLES.items():
        out.append(f"#### {title} — " + ("dx / dy (mm) / yaw (deg)" if full else "final yaw (deg)") + "\n")
        out.append("| model | " + " | ".join(solvers) + " |")
        out.append("|---" * (len(solvers) + 1) + "|")
        for m in models:
            out.append(f"| {m} | " + " | ".join(cell(s["results"].get(f"{push}/{sv}_{m}"), full) for sv in solvers) + " |")
        out.append("")
    return "\n".join(out)


def area_table(s):
    out = ["| solver + model | support | dx (mm) | dy (mm) | yaw (°) |", "| --- | --- | --- | --- | --- |"]
    for r in s["area"]:
        if not r.get("ok"):
            continue
        support = "4 corners" if r["support"] == "point" else "5×5 area grid"
        out.append(f"| {r['solver']} + {r['model'].replace('_k', ' k')} | {support} | {r['dx_mm']:.1f} | "
                   f"{r['dy_mm']:.1f} | {abs(r['dyaw_deg']):.1f} |")
    out.append("| exact Coulomb (issue 5) | corners / 5×5 grid | 39.8 / 31.9 | | 18 / 32 |")
    out.append("| real ABS push, i=2 s=0.8 t=0, 75 mm/s | | 31 | | 31 |")
    return "\n".join(out) + "\n"


def replace(doc, name, body):
    pattern = re.compile(rf"(<!-- tables:{name} -->\n).*?(<!-- /tables:{name} -->)", re.S)
    if not pattern.search(doc):
        raise SystemExit(f"docs/validation.md has no <!-- tables:{name} --> block")
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--summary", default=os.path.join(ROOT, "out", "thesis", "summary.json"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "validation.md"))
    args = ap.parse_args()
    with open(args.summary) as f:
        s = json.load(f)
    with open(args.doc) as f:
        doc = f.read()
    doc = replace(replace(doc, "thesis", thesis_tables(s)), "area", area_table(s))
    with open(args.doc, "w") as f:
        f.write(doc)
    print(f"{args.doc}: tables rewritten from {args.summary}")


if __name__ == "__main__":
    main()
