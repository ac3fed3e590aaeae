#!/usr/bin/python3
"""Markdown tables of quadbin-perf's results, for docs/perf.md.

    scripts/perf_tables.py [RESULT_DIR]

Reads RESULT_DIR/{run,scaling}.csv (default: this host's newest run,
perf/results/<hostname>-<date>-<time>) and
prints, per workload, scene and N, every structure's median ms per frame
(with min-max), pairs, bytes per body and speed against Box2D's tree; then
the thread-scaling table. Skipped configurations are listed as skipped.
"""
import csv
import os
import sys

from perf_results import latest_run_dir  # scripts/perf_results.py


def rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fmt(v, digits=3):
    try:
        x = float(v)
    except (TypeError, ValueError):
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.{digits}g}"


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else latest_run_dir()
    if folder is None:
        print("perf_tables: no perf/results/<hostname>-<date>-<time> folder here: "
              "name the result folder", file=sys.stderr)
        return 2
    run = rows(os.path.join(folder, "run.csv"))
    groups = {}
    for r in run:
        groups.setdefault((r["workload"], r["scene"], int(r["n"]), r["threads"]), []).append(r)
    for (workload, scene, n, threads), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], kv[0][3])):
        print(f"#### Workload {workload}, {scene}, N = {n:,}, {threads} thread(s)\n")
        extra = "vs box2d-tree" if workload == "A" else "energy drift"
        print(f"| structure | median ms | min-max ms | pairs | bytes/body | {extra} |")
        print("|---|---|---|---|---|---|")
        measured = [r for r in rs if r["status"] == "ok"]
        measured.sort(key=lambda r: float(r["median_ms"]))
        for r in measured:
            last = (f"{float(r['vs_box2d']):.0f}x" if r.get("vs_box2d") else "-") if workload == "A" else (r.get("energy_drift") or "-")
            print(f"| {r['structure']} | {fmt(r['median_ms'])} | {fmt(r['min_ms'])}-{fmt(r['max_ms'])} | "
                  f"{int(r['pairs']):,} | {fmt(r['bytes_per_body'])} | {last} |")
        for r in rs:
            if r["status"] != "ok":
                why = f"predicted {fmt(r['predicted_s'])} s over the budget" if r.get("predicted_s") else "left out: see the run's table"
                print(f"| {r['structure']} | {r['status']} ({why}) | | | | |")
        print()
    scaling = rows(os.path.join(folder, "scaling.csv"))
    if scaling:
        print("#### Thread scaling\n")
        print("| workload | scene | N | structure | threads | median ms | speed-up over 1 thread |")
        print("|---|---|---|---|---|---|---|")
        for r in scaling:
            if r["status"] != "ok":
                continue
            print(f"| {r['workload']} | {r['scene']} | {int(r['n']):,} | {r['structure']} | {r['threads']} | "
                  f"{fmt(r['median_ms'])} | {float(r['speedup']):.2f}x |")
        print()


if __name__ == "__main__":
    sys.exit(main())
