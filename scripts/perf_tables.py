#!/usr/bin/python3
"""Markdown tables of quadbin-perf's results, for docs/perf.md.

    scripts/perf_tables.py [RESULT_DIR]

Reads RESULT_DIR/{run,scaling}.csv (default: this host's newest run,
perf/results/<hostname>-<date>-<time>) and
prints, per workload, scene and N, every structure's median ms per frame
(with its p10-p90 over the repetitions, or min-max for older CSVs), CPU
ms, pairs, and A: bytes per body and speed against Box2D's tree; B:
energy drift, overlaps, max penetration, the two biggest stages and the
speed against Box2D's b2World and Chipmunk2D (median and p10-p90, taken
repetition by repetition); then the thread-scaling table. Skipped
configurations are listed as skipped.
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
    peers = {"vs_box2d": "box2d", "vs_chipmunk": "chipmunk"}
    run_json = os.path.join(folder, "run.json")
    if os.path.exists(run_json):
        import json
        with open(run_json) as f:
            peers.update(json.load(f).get("options", {}).get("peers", {}))
    stages = [("stage_integrate_ms", "integrate"), ("stage_broad_phase_ms", "broad"),
              ("stage_narrow_phase_ms", "narrow"), ("stage_solver_ms", "solver"),
              ("stage_position_ms", "position"), ("stage_sleep_ms", "sleep"),
              ("stage_events_ms", "events")]

    def spread(r):
        if r.get("p10_ms"):
            return f"{fmt(r['p10_ms'])}-{fmt(r['p90_ms'])}"
        return f"{fmt(r['min_ms'])}-{fmt(r['max_ms'])}"

    def ratio(r, col):
        if not r.get(col):
            return "-"
        return f"{float(r[col]):.2f}x ({float(r[col + '_p10']):.2f}-{float(r[col + '_p90']):.2f})" \
            if r.get(col + "_p10") else f"{float(r[col]):.2f}x"

    def top_stages(r):
        vals = sorted(((float(r[c]), name) for c, name in stages if r.get(c)), reverse=True)[:2]
        return ", ".join(f"{name} {fmt(v)}" for v, name in vals) or "-"

    for (workload, scene, n, threads), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], kv[0][3])):
        print(f"#### Workload {workload}, {scene}, N = {n:,}, {threads} thread(s)\n")
        measured = [r for r in rs if r["status"] == "ok"]
        measured.sort(key=lambda r: float(r["median_ms"]))
        band = "p10-p90 ms" if any(r.get("p10_ms") for r in measured) else "min-max ms"
        if workload == "A":
            print(f"| structure | frames | median ms | {band} | CPU ms | pairs | bytes/body | "
                  f"vs {peers['vs_box2d']} |")
            print("|---|---|---|---|---|---|---|---|")
        else:
            print(f"| structure | steps | median ms | {band} | CPU ms | contacts | energy drift | "
                  f"overlaps | max pen. | top stages (ms) | vs {peers['vs_box2d']} | "
                  f"vs {peers['vs_chipmunk']} |")
            print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in measured:
            cpu = fmt(r["cpu_ms"]) if r.get("cpu_ms") else "-"
            head = f"| {r['structure']} | {r['frames']} | {fmt(r['median_ms'])} | {spread(r)} | {cpu} | " \
                   f"{int(r['pairs']):,} |"
            if workload == "A":
                print(f"{head} {fmt(r['bytes_per_body'])} | {ratio(r, 'vs_box2d')} |")
            else:
                pen = f"{float(r['max_penetration']):.3g}" if r.get("max_penetration") else "-"
                print(f"{head} {r.get('energy_drift') or '-'} | {r.get('overlaps') or '-'} | {pen} | "
                      f"{top_stages(r)} | {ratio(r, 'vs_box2d')} | {ratio(r, 'vs_chipmunk')} |")
        for r in rs:
            if r["status"] != "ok":
                why = f"predicted {fmt(r['predicted_s'])} s over the budget" if r.get("predicted_s") else "left out: see the run's table"
                print(f"| {r['structure']} | {r['status']} ({why}) |")
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
