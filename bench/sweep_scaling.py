#!/usr/bin/env python3
"""Jobs per hour of the two example sweeps (scenes/sweeps/) on this machine, on 1 and 2 threads
and on 1 and 2 MPI ranks, in the same run. The sweeps are made longer than the examples so
that start-up is small against the work: hold_grid holds for 10 s instead of 1 (40 jobs),
push_randomized draws 512 samples instead of 64.

Usage: bench/sweep_scaling.py [build-dir]   (prints a Markdown table; JSON to out/bench/sweep_scaling.json)
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

root = pathlib.Path(__file__).resolve().parents[1]
cli = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else root / "build") / "bin" / "graspsim"
sweeps = root / "scenes" / "sweeps"
env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")


def longer(name, edit):
    text = (sweeps / f"{name}.yaml").read_text()
    text = text.replace("scene: ../", f"scene: {sweeps}/../").replace("mcube: ../", f"mcube: {sweeps}/../")
    return edit(text)


cases = {
    "hold_grid (10 s holds)": longer("hold_grid", lambda t: t.replace("hold_s: 1\n", "hold_s: 10\n")),
    "push_randomized (512 samples)": longer("push_randomized", lambda t: t.replace("samples: 64\n", "samples: 512\n")),
}
ways = {
    "1 thread": ["--jobs", "1"],
    "2 threads": ["--jobs", "2"],
    "1 rank": ["mpirun", "-np", "1"],
    "2 ranks": ["mpirun", "-np", "2", "--oversubscribe"],
}

results = []
with tempfile.TemporaryDirectory() as tmp:
    for case, text in cases.items():
        sweep = pathlib.Path(tmp) / "sweep.yaml"
        sweep.write_text(text)
        row = {"case": case}
        for way, args in ways.items():
            out = pathlib.Path(tmp) / "out"
            shutil.rmtree(out, ignore_errors=True)
            if args[0] == "mpirun":
                cmd = args + [str(cli), "sweep", str(sweep), "--quiet", "--out", str(out)]
            else:
                cmd = [str(cli), "sweep", str(sweep), "--quiet", "--out", str(out)] + args
            start = time.monotonic()
            subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
            seconds = time.monotonic() - start
            jobs = sum(1 for _ in open(out / "results.jsonl"))
            row[way] = {"seconds": seconds, "jobs": jobs, "jobs_per_hour": jobs / seconds * 3600}
        results.append(row)

print("| sweep | jobs | " + " | ".join(f"{w} (jobs/h)" for w in ways) + " | 2 threads / 1 | 2 ranks / 1 |")
print("|---" * (len(ways) + 4) + "|")
for r in results:
    jph = {w: r[w]["jobs_per_hour"] for w in ways}
    print(f"| {r['case']} | {r['1 thread']['jobs']} | " + " | ".join(f"{jph[w]:,.0f}" for w in ways) +
          f" | {jph['2 threads'] / jph['1 thread']:.2f} | {jph['2 ranks'] / jph['1 rank']:.2f} |")
(root / "out" / "bench").mkdir(parents=True, exist_ok=True)
(root / "out" / "bench" / "sweep_scaling.json").write_text(json.dumps(results, indent=2))
