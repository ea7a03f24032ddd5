"""The examples run (short versions) and do what they say."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT


def run_example(name, out):
    env = dict(os.environ)
    r = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / name), "--quick", "--out", str(out)],
                       capture_output=True, text=True, env=env, check=False)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)


def test_grasp_2f85_lifts_and_shakes_the_box(tmp_path):
    s = run_example("grasp_2f85.py", tmp_path)
    assert s["held"] and s["rise_mm"] > 90
    assert s["slip_mm_max_shaking"] < 2.0  # the pads hold it through the shake
    assert (tmp_path / "grasp_2f85.png").stat().st_size > 10000


def test_push_rollout_spreads_the_final_poses(tmp_path):
    s = run_example("push_rollout.py", tmp_path)
    assert s["samples"] == 8
    assert 0 < s["randomized_std"]["x_mm"] < 5
    assert (tmp_path / "push_rollout.png").stat().st_size > 10000
