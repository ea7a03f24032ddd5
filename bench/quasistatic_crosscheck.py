#!/usr/bin/env python3
"""The MIQP's branch and bound against Bonmin on the steps of a whole run.

Steps a quasistatic MIQP scene with its own solver (the branch and bound); every `--every`
steps it also takes the same step from a copy of the state with Bonmin
(options.quasistatic.miqp_solver: bonmin, its 60 s limit) and compares the two optima. The
run goes on from the branch and bound's state, so each compared pair solves one problem.

  bench/quasistatic_crosscheck.py build scenes/quasistatic/iiwa_pick.yaml \\
      --set parameters.object=cylinder --every 25 --out crosscheck.csv

One CSV row per compared step, written as it is measured:
  step,t,binaries,bb_objective,bonmin_objective,difference,agree,bb_nodes,bonmin_nodes,
  bb_ms,bonmin_ms,bb_proven,bonmin_status
`agree` is 1 when |bb - bonmin| <= gap * max(|bb|, |bonmin|) + abs_tol: the branch and
bound's own gap (options.quasistatic.miqp_gap_rel, 1e-4) plus an absolute floor below the
objectives' scale (Bonmin's tolerances are absolute, on the objective scaled by 1e6).
`bonmin_status` is "optimal" or Bonmin's error (its time limit: the step is not compared).
"""
import argparse
import pathlib
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", type=pathlib.Path, help="the CMake build directory (its python/ holds graspsim)")
    ap.add_argument("scene", type=pathlib.Path)
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="scene overrides")
    ap.add_argument("--every", type=int, default=10, help="compare every n-th step")
    ap.add_argument("--first", type=int, default=1, help="first step to compare (1-based)")
    ap.add_argument("--last", type=int, default=0, help="last step to run (0: the scene's duration)")
    ap.add_argument("--gap", type=float, default=1e-4)
    ap.add_argument("--abs-tol", type=float, default=1e-12)
    ap.add_argument("--out", type=pathlib.Path, default=pathlib.Path("crosscheck.csv"))
    a = ap.parse_args()
    if a.every < 1:
        ap.error("--every must be >= 1")
    sys.path.insert(0, str(a.build / "python"))
    import graspsim

    overrides = dict(kv.split("=", 1) for kv in a.set)
    model = graspsim.load(str(a.scene), set=overrides)
    bonmin = model.formulation(set={**overrides, "options.quasistatic.miqp_solver": "bonmin"})
    state = model.make_state()
    last = a.last or round(model.duration / model.dt)
    compared = agreed = bonmin_failed = bb_better = bonmin_better = 0
    with a.out.open("w") as out:
        out.write("step,t,binaries,bb_objective,bonmin_objective,difference,agree,bb_nodes,bonmin_nodes,"
                  "bb_ms,bonmin_ms,bb_proven,bonmin_status\n")
        for step in range(1, last + 1):
            check = step >= a.first and (step - a.first) % a.every == 0
            copy = state.copy() if check else None
            t = state.t
            r = graspsim.step(model, state, result=True).quasistatic
            if not check:
                continue
            try:
                b = graspsim.step(model, copy, result=True, formulation=bonmin).quasistatic
                status = "optimal"
            except Exception as e:  # Bonmin's time limit or failure: reported, not compared
                b, status = None, str(e).splitlines()[0].replace(",", ";")
            if b is None:
                bonmin_failed += 1
                out.write(f"{step},{t:.6g},{r.binaries},{r.objective:.12g},,,,{r.nodes},,{r.solve_ms:.4g},,"
                          f"{int(r.proven)},{status}\n")
            else:
                diff = r.objective - b.objective
                ok = abs(diff) <= a.gap * max(abs(r.objective), abs(b.objective)) + a.abs_tol
                compared += 1
                agreed += ok
                bb_better += (not ok) and diff < 0
                bonmin_better += (not ok) and diff > 0
                out.write(f"{step},{t:.6g},{r.binaries},{r.objective:.12g},{b.objective:.12g},{diff:.4g},{int(ok)},"
                          f"{r.nodes},{b.nodes},{r.solve_ms:.4g},{b.solve_ms:.4g},{int(r.proven)},{status}\n")
            out.flush()
    print(f"{a.scene} {overrides}: {compared} steps compared, {agreed} agree; lower by more than the tolerance: "
          f"branch and bound {bb_better}, Bonmin {bonmin_better}; Bonmin failed on {bonmin_failed}")
    return 0 if agreed == compared else 1


if __name__ == "__main__":
    sys.exit(main())
