#!/usr/bin/python3
"""Fits predict's region and task costs to measured speed-ups.

    scripts/fit_costs.py DIR [DIR ...]

Each DIR holds the files of one `quadbin-perf predict --compare` run
(predict.csv, predict_measured.csv and predict.json, the costs it used).
A step's prediction is linear in the costs: changing the region cost
from r0 to r and the task cost from t0 to t (both per doubling of the
workers) moves the predicted time on P workers by regions * (r - r0) *
log2(P) + tasks / P * (t - t0) * log2(P) (tasks spread over the workers;
runs whose predict.json lacks region_per_doubling counted r0 once per
region, and those that lack task_per_doubling t0 once per task). The script finds
the r and t that minimise the squared error of the predicted speed-ups
against the measured ones over every configuration and P > 1 (a grid of
0.25 us steps), and prints them with each configuration's error before
and after. docs/scaling.md, "The model", says how the defaults came from
it. Barrier and slowdown stay as the runs used them.
"""
import csv
import json
import math
import os
import sys


def load(folder):
    steps = {}
    with open(os.path.join(folder, "predict.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["stage"] == "step" and r["threads"] == "1":
                key = (r["workload"], r["scene"], r["n"])
                steps[key] = (int(r["regions"]), int(r["tasks"]))
    with open(os.path.join(folder, "predict.json")) as f:
        costs = json.load(f)["options"]["costs"]
    # Runs before region_per_doubling counted the region cost once.
    used = (costs["region_ns"] * 1e-6, costs["task_ns"] * 1e-6,
            bool(costs.get("region_per_doubling", False)),
            bool(costs.get("task_per_doubling", False)))  # ms
    rows = []
    with open(os.path.join(folder, "predict_measured.csv"), newline="") as f:
        for r in csv.DictReader(f):
            p = int(r["threads"])
            if p == 1:
                continue
            key = (r["workload"], r["scene"], r["n"])
            rows.append({
                "key": key, "p": p, "steps": steps[key], "used": used,
                "measured": float(r["measured_speedup"]),
                "predicted_ms": float(r["predicted_ms"]),
                "predicted": float(r["predicted_speedup"]),
            })
    return rows


def speedup(row, region_ms, task_ms):
    regions, tasks = row["steps"]
    r0, t0, region_doubling, task_doubling = row["used"]
    p = row["p"]
    one = row["predicted_ms"] * row["predicted"]  # the one-thread prediction
    before = r0 * math.log2(p) if region_doubling else r0
    before_task = t0 * math.log2(p) if task_doubling else t0
    ms = (row["predicted_ms"] + regions * (region_ms * math.log2(p) - before)
          + tasks / p * (task_ms * math.log2(p) - before_task))
    return one / ms


def error(row, s):
    return (s / row["measured"] - 1.0) * 100.0


def main(folders):
    rows = [r for folder in folders for r in load(folder)]
    if not rows:
        sys.exit("no measured rows with P > 1")
    best = None
    for a in range(0, 400):  # region, 0.25 us steps up to 100 us
        for b in range(0, 160):  # task, 0.125 us steps up to 20 us
            region, task = a * 0.25e-3, b * 0.125e-3
            sse = sum(error(r, speedup(r, region, task)) ** 2 for r in rows)
            if best is None or sse < best[0]:
                best = (sse, region, task)
    sse, region, task = best
    print(f"fitted: --region-ns {region * 1e6:.0f} --task-ns {task * 1e6:.0f} "
          f"(rms error {math.sqrt(sse / len(rows)):.1f} % over {len(rows)} speed-ups)")
    print("workload scene n threads: measured, predicted as run (error), fitted (error)")
    for r in rows:
        fitted = speedup(r, region, task)
        print(f"{' '.join(r['key'])} {r['p']}: {r['measured']:.2f}x, "
              f"{r['predicted']:.2f}x ({error(r, r['predicted']):+.1f} %), "
              f"{fitted:.2f}x ({error(r, fitted):+.1f} %)")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
