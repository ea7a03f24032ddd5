#!/usr/bin/env python3
"""What Python costs on top of the C++ step, and rollout's throughput on 1 and 2 threads.

1. Overhead of one Python `graspsim.step` call over the C++ step, on the two-finger hold
   (scenes/validation/grasp_hold.yaml, SPOOK split): N calls of step(steps=1) against one call
   of step(steps=N), whose loop runs in C++. Also with result=True (the contacts as arrays).
2. `graspsim.rollout` on the thesis push (scenes/validation/push.yaml, 64 independent pushes of
   300 steps) on 1 and 2 threads: steps per second.

Each measurement is the best of five, the variants interleaved in the same run.

Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python_step.py   (prints a Markdown table)
"""
import pathlib
import time

import graspsim

ROOT = pathlib.Path(__file__).resolve().parents[1]
REPEATS = 5


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def hold_overhead(n=20000):
    model = graspsim.load(ROOT / "scenes/validation/grasp_hold.yaml")
    variants = {
        "C++ loop: step(steps=N)": lambda s: graspsim.step(model, s, steps=n),
        "Python loop: N x step()": lambda s: [graspsim.step(model, s) for _ in range(n)],
        "Python loop: N x step(result=True)": lambda s: [graspsim.step(model, s, result=True) for _ in range(n)],
    }
    times = {k: float("inf") for k in variants}
    for _ in range(REPEATS):
        for name, run in variants.items():
            s = model.make_state()
            graspsim.step(model, s, steps=200)  # the grasp closed, contacts persisting
            times[name] = min(times[name], timed(lambda: run(s)))
    return {k: 1e6 * v / n for k, v in times.items()}


def rollout_throughput(batch=64, nsteps=300):
    model = graspsim.load(ROOT / "scenes/validation/push.yaml", set={"parameters.contact": 0.8})
    times = {1: float("inf"), 2: float("inf")}
    for _ in range(REPEATS):
        for threads in times:
            states = [model.make_state() for _ in range(batch)]
            times[threads] = min(times[threads],
                                 timed(lambda: graspsim.rollout(model, states, nsteps=nsteps, threads=threads)))
    return {k: batch * nsteps / v for k, v in times.items()}


def main():
    hold = hold_overhead()
    base = hold["C++ loop: step(steps=N)"]
    print("| two-finger hold, SPOOK split | µs per step | over the C++ loop |")
    print("|---|---:|---:|")
    for name, us in hold.items():
        print(f"| {name} | {us:.2f} | {us - base:+.2f} µs ({us / base:.2f}x) |")
    roll = rollout_throughput()
    print()
    print("| rollout, 64 pushes x 300 steps | steps/s | vs 1 thread |")
    print("|---|---:|---:|")
    for threads, sps in roll.items():
        print(f"| {threads} thread{'s' if threads > 1 else ''} | {sps:,.0f} | {sps / roll[1]:.2f}x |")


if __name__ == "__main__":
    main()
