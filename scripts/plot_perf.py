#!/usr/bin/python3
"""Charts of quadbin-perf's results (docs/perf-cli.md).

    scripts/plot_perf.py [RESULT_DIR] [--out DIR]

Reads RESULT_DIR/{sweep,scaling,run}.csv (default: this host's newest run,
perf/results/<hostname>-<date>-<time>) and writes PNGs next to them (or
into --out):

  sweep_10-100.png, sweep_100-1000.png, sweep_1000-30000.png
      world steps per second against N, one line per structure, 1 thread
      (the paper's figures 7-9)
  sweep_multithreaded.png
      the same three ranges with the most threads measured, 1 thread dashed
      for comparison (the paper's figure 10)
  scaling.png
      speed-up over 1 thread against the thread count, Workloads A and B
  workload_a.png
      Workload A, ms per frame of every structure and peer, log scale

A figure whose CSV is missing or has no measured rows is left out (with a
note); skipped configurations (status "skipped") are left out of the lines
and marked "skipped" on the bar chart.
"""

import argparse
import csv
import math
import os
import sys

from perf_results import latest_run_dir  # scripts/perf_results.py

try:
    import matplotlib
except ImportError:
    sys.exit("plot_perf: needs matplotlib: Debian's python3-matplotlib (scripts/install-deps) "
             "with /usr/bin/python3")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

RANGES = [(10, 100, "10-100"), (100, 1000, "100-1000"), (1000, 30000, "1000-30000")]
# quadbin's own structures, in `quadbin-perf list` order; anything else is a peer.
QUADBIN_ORDER = ["brute-force", "quadtree", "bin-grid", "sweep-and-prune", "dynamic-aabb-tree",
                 "leaf-quadtree", "dynamic-centre-quadtree", "nona-tree", "diagonal-bsp", "auto"]
MARKERS = "osD^vP*Xh<>p"


def read_csv(path):
    if not os.path.exists(path):
        return None
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def measured(rows):
    return [r for r in rows if r.get("status", "ok") != "skipped" and r.get("median_ms")]


def structure_order(names):
    known = [s for s in QUADBIN_ORDER if s in names]
    return known + sorted(s for s in names if s not in QUADBIN_ORDER)


class Styles:
    """One colour and marker per structure, the same in every figure."""

    def __init__(self):
        self.cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        self.assigned = {}

    def __call__(self, name):
        if name not in self.assigned:
            i = len(self.assigned)
            self.assigned[name] = (self.cycle[i % len(self.cycle)], MARKERS[i % len(MARKERS)])
        return self.assigned[name]


def thousands(x, _pos=None):
    if x >= 1:
        return f"{x:,.0f}"
    return f"{x:g}"


def machine_note(result_dir, command):
    """The machine the numbers come from: <command>.json's, else machine.json."""
    import json

    m = None
    path = os.path.join(result_dir, command + ".json")
    if os.path.exists(path):
        with open(path) as f:
            m = json.load(f).get("machine")
    if m is None:
        path = os.path.join(result_dir, "machine.json")
        if not os.path.exists(path):
            return ""
        with open(path) as f:
            m = json.load(f)
    return f"{m.get('cpu', '?')}, {m.get('logical_cpus', '?')} threads, {m.get('compiler', '?')} " \
           f"{m.get('build_type', '')}, commit {m.get('git_commit', '?')}"


def sweep_axes(ax, rows, lo, hi, threads, styles, dashed_rows=None):
    """Steps per second against N for each structure, N in [lo, hi]."""
    names = structure_order({r["structure"] for r in rows})
    plotted = False
    for name in names:
        colour, marker = styles(name)
        for series, style, width, label in (
            (rows, "-", 1.8, name),
            (dashed_rows or [], "--", 1.0, None),
        ):
            pts = sorted(
                (int(r["n"]), float(r["steps_per_s"]))
                for r in series
                if r["structure"] == name and lo <= int(r["n"]) <= hi and r.get("steps_per_s")
            )
            if not pts:
                continue
            xs, ys = zip(*pts)
            ax.plot(xs, ys, style, color=colour, marker=marker if style == "-" else None,
                    markersize=4, linewidth=width, label=label)
            plotted = plotted or style == "-"
    ax.set_yscale("log")
    if hi / lo > 10:
        ax.set_xscale("log")
    ax.set_xlim(lo * 0.95, hi * 1.05)
    ax.xaxis.set_major_formatter(FuncFormatter(thousands))
    ax.yaxis.set_major_formatter(FuncFormatter(thousands))
    ax.set_xlabel("bodies N")
    ax.set_ylabel("world steps per second")
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    return plotted


def plot_sweep(rows, out_dir, note, styles):
    rows = measured(rows)
    if not rows:
        print("plot_perf: sweep.csv has no measured rows", file=sys.stderr)
        return []
    written = []
    threads = sorted({int(r["threads"]) for r in rows})
    single = [r for r in rows if int(r["threads"]) == threads[0]]
    scene = rows[0]["scene"]
    for lo, hi, label in RANGES:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        if not sweep_axes(ax, single, lo, hi, threads[0], styles):
            plt.close(fig)
            continue
        ax.set_title(f"Workload C: full world step, {scene} scene, N = {lo:,}-{hi:,}, "
                     f"{threads[0]} thread{'s' if threads[0] > 1 else ''}")
        ax.legend(title="broad phase", fontsize=9)
        fig.text(0.01, 0.01, note, fontsize=7, color="grey")
        fig.tight_layout(rect=(0, 0.03, 1, 1))
        path = os.path.join(out_dir, f"sweep_{label}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    if len(threads) > 1:
        most = threads[-1]
        multi = [r for r in rows if int(r["threads"]) == most]
        fig, axes = plt.subplots(1, 3, figsize=(17, 5.5))
        any_plotted = False
        for ax, (lo, hi, _label) in zip(axes, RANGES):
            any_plotted |= sweep_axes(ax, multi, lo, hi, most, styles, dashed_rows=single)
            ax.set_title(f"N = {lo:,}-{hi:,}")
        if any_plotted:
            handles, labels = axes[0].get_legend_handles_labels()
            for ax in axes[1:]:
                h, l = ax.get_legend_handles_labels()
                for hh, ll in zip(h, l):
                    if ll not in labels:
                        handles.append(hh)
                        labels.append(ll)
            from matplotlib.lines import Line2D

            handles.append(Line2D([], [], color="grey", linestyle="--"))
            labels.append(f"{threads[0]} thread (dashed)")
            fig.legend(handles, labels, loc="upper center", ncol=len(labels), fontsize=9)
            fig.suptitle(f"Workload C: full world step, {scene} scene, {most} threads",
                         y=0.90)
            fig.text(0.01, 0.01, note, fontsize=7, color="grey")
            fig.tight_layout(rect=(0, 0.03, 1, 0.86))
            path = os.path.join(out_dir, "sweep_multithreaded.png")
            fig.savefig(path, dpi=110)
            written.append(path)
        plt.close(fig)
    return written


def plot_scaling(rows, out_dir, note, styles):
    rows = measured(rows)
    if not rows:
        print("plot_perf: scaling.csv has no measured rows", file=sys.stderr)
        return []
    workloads = sorted({r["workload"] for r in rows})
    fig, axes = plt.subplots(1, len(workloads), figsize=(6.5 * len(workloads), 5), squeeze=False)
    max_threads = max(int(r["threads"]) for r in rows)
    titles = {"A": "Workload A: broad phase alone", "B": "Workload B: full world step"}
    for ax, w in zip(axes[0], workloads):
        wrows = [r for r in rows if r["workload"] == w]
        groups = sorted({(r["structure"], r["scene"], int(r["n"])) for r in wrows})
        for name, scene, n in groups:
            pts = sorted(
                (int(r["threads"]), float(r["speedup"]))
                for r in wrows
                if (r["structure"], r["scene"], int(r["n"])) == (name, scene, n) and r.get("speedup")
            )
            if not pts:
                continue
            colour, marker = styles(name)
            xs, ys = zip(*pts)
            label = name if len(groups) == len({g[0] for g in groups}) else f"{name}, {scene}, N={n:,}"
            ax.plot(xs, ys, "-", color=colour, marker=marker, label=label)
        ideal = [1, max_threads]
        ax.plot(ideal, ideal, ":", color="grey", label="ideal (linear)")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({int(r["threads"]) for r in rows}))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x:g}"))
        ax.set_xlabel("threads")
        ax.set_ylabel("speed-up over 1 thread (×)")
        ns = sorted({int(r["n"]) for r in wrows})
        ax.set_title(f"{titles.get(w, w)}, N = {', '.join(f'{n:,}' for n in ns)}")
        ax.grid(True, alpha=0.4)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=9)
    fig.text(0.01, 0.01, note, fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    path = os.path.join(out_dir, "scaling.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [path]


def plot_workload_a(rows, out_dir, note, styles):
    rows = [r for r in rows if r["workload"] == "A"]
    if not measured(rows):
        print("plot_perf: run.csv has no measured Workload A rows", file=sys.stderr)
        return []
    threads = min(int(r["threads"]) for r in rows)
    rows = [r for r in rows if int(r["threads"]) == threads]
    names = structure_order({r["structure"] for r in rows})
    scene_order = {"uniform": 0, "clustered": 1, "mixed": 2}
    groups = sorted({(r["scene"], int(r["n"])) for r in rows},
                    key=lambda g: (scene_order.get(g[0], 9), g[0], g[1]))
    by = {(r["scene"], int(r["n"]), r["structure"]): r for r in rows}
    width = 0.8 / len(names)
    fig, ax = plt.subplots(figsize=(max(9, 1.3 * len(groups) * max(1, len(names) / 6)), 6))
    top = max(float(r["median_ms"]) for r in measured(rows))
    bottom = min(float(r["median_ms"]) for r in measured(rows))
    for i, name in enumerate(names):
        colour, _ = styles(name)
        peer = name not in QUADBIN_ORDER
        xs, ys = [], []
        for g, (scene, n) in enumerate(groups):
            r = by.get((scene, n, name))
            x = g - 0.4 + width * (i + 0.5)
            if r is None:
                continue
            if r.get("status") == "skipped" or not r.get("median_ms"):
                ax.text(x, bottom * 0.8, "skipped", rotation=90, ha="center", va="bottom",
                        fontsize=6, color=colour)
                continue
            xs.append(x)
            ys.append(float(r["median_ms"]))
        ax.bar(xs, ys, width=width * 0.95, color=colour, label=name + (" (peer)" if peer else ""),
               hatch="//" if peer else None, edgecolor="black" if peer else colour, linewidth=0.4)
    ax.set_yscale("log")
    ax.set_ylim(bottom * 0.5, top * 2.5)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{s}\nN={n:,}" for s, n in groups], fontsize=9)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x:g}"))
    ax.set_ylabel("median ms per frame (log scale; lower is faster)")
    frames = rows[0].get("frames", "?")
    ax.set_title(f"Workload A: broad phase alone (update + all pairs), {threads} thread, "
                 f"median of {frames} frames")
    ax.grid(True, axis="y", which="major", alpha=0.4)
    ax.grid(True, axis="y", which="minor", alpha=0.15)
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    fig.text(0.01, 0.01, note, fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    path = os.path.join(out_dir, "workload_a.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [path]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("result_dir", nargs="?",
                        help="default: this host's newest perf/results/<hostname>-<date>-<time>")
    parser.add_argument("--out", help="folder for the PNGs (default: the result folder)")
    args = parser.parse_args()
    args.result_dir = args.result_dir or latest_run_dir()
    if args.result_dir is None:
        print("plot_perf: no perf/results/<hostname>-<date>-<time> folder here: "
              "name the result folder", file=sys.stderr)
        return 2
    out_dir = args.out or args.result_dir
    os.makedirs(out_dir, exist_ok=True)
    styles = Styles()
    for name in QUADBIN_ORDER:
        styles(name)
    written = []
    found = False
    for name, plot in (("sweep.csv", plot_sweep), ("scaling.csv", plot_scaling),
                       ("run.csv", plot_workload_a)):
        rows = read_csv(os.path.join(args.result_dir, name))
        if rows is None:
            print(f"plot_perf: no {name} in {args.result_dir}", file=sys.stderr)
            continue
        found = True
        note = machine_note(args.result_dir, name[:-len(".csv")])
        written += plot(rows, out_dir, note, styles)
    if not found:
        print(f"plot_perf: no results in {args.result_dir} (run quadbin-perf run/sweep/scaling)",
              file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
