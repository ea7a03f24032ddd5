"""Shared fixtures: the source tree, the CLI built beside the module, CSV readers."""
import csv
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(os.environ.get("GRASPSIM_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("GRASPSIM_CLI", str(ROOT / "build" / "bin" / "graspsim"))


def scene(rel):
    return str(ROOT / "scenes" / rel)


def run_cli(*args):
    """Runs the graspsim CLI; returns the CompletedProcess (text)."""
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=False)


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.fixture
def root():
    return ROOT
