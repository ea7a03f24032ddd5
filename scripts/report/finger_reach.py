#!/usr/bin/env python3
"""How far a mesh object reaches towards each finger of scenes/penalty's 3-finger gripper.

For each finger (at 90°, 210° and 330° around the vertical axis through the object's
origin) it prints the farthest vertex towards that finger among those its pad can touch
(within the pad's half width sideways and its half height of the pad's centre), and the
height of that vertex inside the pad. A reach met at the pad's top or bottom edge means the
pad will touch a sloping flank with its edge and push the object up or down; choose a
grasp height (object_grasp_dz) where every reach lies inside the pad.

  /usr/bin/python3 scripts/report/finger_reach.py MESH.obj --scale 0.03 --euler 90 0 0 --dz -0.008
"""
import argparse

import numpy as np


def read_obj_vertices(path):
    with open(path) as f:
        return np.array([[float(x) for x in line.split()[1:4]] for line in f if line.startswith("v ")])


def rotation(roll, pitch, yaw):
    """R = Rz·Ry·Rx about the fixed axes, degrees (docs/scene-format.md, euler_deg)."""
    a, b, c = np.radians([roll, pitch, yaw])
    rx = np.array([[1, 0, 0], [0, np.cos(a), -np.sin(a)], [0, np.sin(a), np.cos(a)]])
    ry = np.array([[np.cos(b), 0, np.sin(b)], [0, 1, 0], [-np.sin(b), 0, np.cos(b)]])
    rz = np.array([[np.cos(c), -np.sin(c), 0], [np.sin(c), np.cos(c), 0], [0, 0, 1]])
    return rz @ ry @ rx


def reaches(points, dz, half_length):
    out = []
    for angle in (90.0, 210.0, 330.0):
        d = np.array([np.cos(np.radians(angle)), np.sin(np.radians(angle)), 0.0])
        side = np.array([-d[1], d[0], 0.0])
        under_pad = (np.abs(points[:, 2] - dz) < half_length) & (np.abs(points @ side) < half_length)
        if not under_pad.any():
            out.append((float("nan"), float("nan")))
            continue
        k = np.flatnonzero(under_pad)[np.argmax(points[under_pad] @ d)]
        out.append((float(points[k] @ d), float(points[k, 2] - dz)))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("mesh")
    p.add_argument("--scale", type=float, default=1.0)
    p.add_argument("--euler", type=float, nargs=3, default=[0.0, 0.0, 0.0], metavar=("ROLL", "PITCH", "YAW"))
    p.add_argument("--dz", type=float, default=0.0, help="the pads' centre height above the object's origin, m")
    p.add_argument("--half-length", type=float, default=0.02, help="the pad's half width and half height, m")
    a = p.parse_args()
    points = read_obj_vertices(a.mesh) * a.scale @ rotation(*a.euler).T
    for i, (reach, height) in enumerate(reaches(points, a.dz, a.half_length), start=1):
        edge = " (at the pad's edge)" if a.half_length - abs(height) < 1e-3 else ""
        print(f"object_reach_{i}: {reach:.4f}   # met {height * 1e3:+.1f} mm from the pad's centre{edge}")


if __name__ == "__main__":
    main()
