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
  workload_b.png
      Workload B (the full world step), ms per step of quadbin's structures
      and the world-step peers (Box2D's b2World, Chipmunk2D's cpSpace)
  stages.png
      Workload B, where the step goes: each stage's median ms, stacked, for
      every engine that reports stages (quadbin; Box2D through b2Profile)

Every time carries an error bar from its p10 to its p90 over the
repetitions (the CSV's p10_ms, p90_ms; none for CSVs older than them).
Each caption names the machine, the date, the commit, the repetitions and
how busy the machine was. A figure or panel without measured rows is left
out (with a note); skipped configurations (status "skipped") are left out of
the lines and marked "skipped" on the bar charts.
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
    """The caption: machine, date, commit, repetitions and load of the run."""
    import json

    doc, m = {}, None
    path = os.path.join(result_dir, command + ".json")
    if os.path.exists(path):
        with open(path) as f:
            doc = json.load(f)
        m = doc.get("machine")
    machine_path = os.path.join(result_dir, "machine.json")
    if os.path.exists(machine_path):
        with open(machine_path) as f:
            m_file = json.load(f)
        if m is None or ("load" in m_file and "load" not in m):
            m = {**(m or {}), **m_file}
    if m is None:
        return ""
    note = f"{m.get('cpu', '?')}, {m.get('logical_cpus', '?')} threads, " \
           f"{m.get('compiler', '?')} {m.get('build_type', '')}, commit {m.get('git_commit', '?')}, " \
           f"{m.get('date', '?')}"
    reps = doc.get("options", {}).get("repetitions")
    if reps:
        note += f", {reps} repetition{'s' if str(reps) != '1' else ''} (error bars: p10-p90)"
    load = m.get("load")
    if load:
        note += f"; other processes: {float(load.get('others_cpus_mean', 0)):.2f} CPUs on average, " \
                f"load average up to {float(load.get('load_avg_max', 0)):.1f}"
        if load.get("busy"):
            note += " (BUSY: times may be slow and noisy)"
    return note


def wrap(note, width_inches):
    """The caption in lines that fit a figure `width_inches` wide (7 pt)."""
    import textwrap

    return "\n".join(textwrap.wrap(note, max(60, int(width_inches * 17))))


def spread(r, to_value=None):
    """(low, high) of the row's p10-p90 band, mapped through to_value; None if absent."""
    try:
        p10, p90 = float(r["p10_ms"]), float(r["p90_ms"])
    except (KeyError, TypeError, ValueError):
        return None
    if to_value is None:
        return p10, p90
    a, b = to_value(p10), to_value(p90)
    return min(a, b), max(a, b)


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
                (int(r["n"]), float(r["steps_per_s"]), spread(r, lambda ms: 1000.0 / ms))
                for r in series
                if r["structure"] == name and lo <= int(r["n"]) <= hi and r.get("steps_per_s")
            )
            if not pts:
                continue
            xs, ys, bands = zip(*pts)
            yerr = None
            if style == "-" and all(b is not None for b in bands):
                yerr = [[max(0.0, y - b[0]) for y, b in zip(ys, bands)],
                        [max(0.0, b[1] - y) for y, b in zip(ys, bands)]]
            ax.errorbar(xs, ys, yerr=yerr, fmt=style, color=colour,
                        marker=marker if style == "-" else None, markersize=4, linewidth=width,
                        label=label, capsize=2, elinewidth=0.8)
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
        fig.text(0.01, 0.01, wrap(note, 8), fontsize=7, color="grey")
        fig.tight_layout(rect=(0, 0.05, 1, 1))
        path = os.path.join(out_dir, f"sweep_{label}.png")
        fig.savefig(path, dpi=120)
        plt.close(fig)
        written.append(path)
    if len(threads) > 1:
        most = threads[-1]
        multi = [r for r in rows if int(r["threads"]) == most]
        # Only the ranges with measured points: no empty panels.
        ranges = [rg for rg in RANGES if any(rg[0] <= int(r["n"]) <= rg[1] for r in multi)]
        fig, axes = plt.subplots(1, max(1, len(ranges)), figsize=(5.7 * max(1, len(ranges)), 5.5),
                                 squeeze=False)
        axes = axes[0]
        any_plotted = False
        for ax, (lo, hi, _label) in zip(axes, ranges):
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
            fig.text(0.01, 0.01, wrap(note, 5.7 * len(axes)), fontsize=7, color="grey")
            fig.tight_layout(rect=(0, 0.05, 1, 0.86))
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
                (int(r["threads"]), float(r["speedup"]), float(r["median_ms"]), spread(r))
                for r in wrows
                if (r["structure"], r["scene"], int(r["n"])) == (name, scene, n) and r.get("speedup")
            )
            if not pts:
                continue
            colour, marker = styles(name)
            xs, ys, meds, bands = zip(*pts)
            yerr = None
            if all(b is not None for b in bands):
                # The speed-up with this row's p90 (slow) and p10 (fast) time.
                yerr = [[max(0.0, y - y * m / b[1]) for y, m, b in zip(ys, meds, bands)],
                        [max(0.0, y * m / b[0] - y) for y, m, b in zip(ys, meds, bands)]]
            label = name if len(groups) == len({g[0] for g in groups}) else f"{name}, {scene}, N={n:,}"
            ax.errorbar(xs, ys, yerr=yerr, fmt="-", color=colour, marker=marker, label=label,
                        capsize=2, elinewidth=0.8)
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
    fig.text(0.01, 0.01, wrap(note, 6.5 * len(workloads)), fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path = os.path.join(out_dir, "scaling.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [path]


def plot_workload(rows, out_dir, note, styles, workload):
    rows = [r for r in rows if r["workload"] == workload]
    if not measured(rows):
        print(f"plot_perf: run.csv has no measured Workload {workload} rows", file=sys.stderr)
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
        xs, ys, lows, highs = [], [], [], []
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
            band = spread(r) or (ys[-1], ys[-1])
            lows.append(max(0.0, ys[-1] - band[0]))
            highs.append(max(0.0, band[1] - ys[-1]))
        ax.bar(xs, ys, width=width * 0.95, color=colour, label=name + (" (peer)" if peer else ""),
               hatch="//" if peer else None, edgecolor="black" if peer else colour, linewidth=0.4,
               yerr=[lows, highs] if xs else None, capsize=1.5,
               error_kw={"elinewidth": 0.7, "ecolor": "black"})
    ax.set_yscale("log")
    ax.set_ylim(bottom * 0.5, top * 2.5)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels([f"{s}\nN={n:,}" for s, n in groups], fontsize=9)
    ax.yaxis.set_major_formatter(FuncFormatter(lambda x, _p: f"{x:g}"))
    unit = "frame" if workload == "A" else "step"
    ax.set_ylabel(f"median ms per {unit} (log scale; lower is faster)")
    frames = sorted({int(r["frames"]) for r in measured(rows)})
    frames = f"{frames[0]}" if len(frames) == 1 else f"{frames[0]}-{frames[-1]}"
    what = "broad phase alone (update + all pairs)" if workload == "A" else \
        "full world step, quadbin and the world-step peers"
    ax.set_title(f"Workload {workload}: {what}, {threads} thread, median of {frames} {unit}s")
    ax.grid(True, axis="y", which="major", alpha=0.4)
    ax.grid(True, axis="y", which="minor", alpha=0.15)
    ax.legend(fontsize=8, ncol=2, loc="upper left")
    fig.text(0.01, 0.01, wrap(note, fig.get_size_inches()[0]), fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    path = os.path.join(out_dir, f"workload_{workload.lower()}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return [path]


STAGES = [("stage_integrate_ms", "integrate"), ("stage_broad_phase_ms", "broad phase"),
          ("stage_narrow_phase_ms", "narrow phase"), ("stage_solver_ms", "solver"),
          ("stage_position_ms", "position"), ("stage_sleep_ms", "sleep"),
          ("stage_events_ms", "events")]


def plot_stages(rows, out_dir, note, _styles):
    """Workload B: each stage's median ms, stacked, per scene, N and engine."""
    rows = [r for r in measured(rows) if r["workload"] == "B"
            and any(r.get(col) for col, _ in STAGES)]
    if not rows:
        print("plot_perf: run.csv has no Workload B rows with stage times", file=sys.stderr)
        return []
    threads = min(int(r["threads"]) for r in rows)
    rows = [r for r in rows if int(r["threads"]) == threads]
    scene_order = {"uniform": 0, "clustered": 1, "mixed": 2}
    order = structure_order({r["structure"] for r in rows})
    rows.sort(key=lambda r: (scene_order.get(r["scene"], 9), int(r["n"]),
                             order.index(r["structure"])))
    groups = sorted({(r["scene"], int(r["n"])) for r in rows},
                    key=lambda g: (scene_order.get(g[0], 9), g[1]))
    cols = min(3, len(groups))
    grid_rows = (len(groups) + cols - 1) // cols
    fig, axes = plt.subplots(grid_rows, cols, figsize=(4.6 * cols, 3.6 * grid_rows + 1.4),
                             squeeze=False)
    axes = [ax for row in axes for ax in row]
    for ax in axes[len(groups):]:
        ax.remove()  # no empty panels
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, (scene, n) in zip(axes, groups):
        grows = [r for r in rows if (r["scene"], int(r["n"])) == (scene, n)]
        names = [r["structure"] for r in grows]
        totals = [sum(float(r[col]) for col, _ in STAGES if r.get(col)) for r in grows]
        left = [0.0] * len(grows)
        for k, (col, label) in enumerate(STAGES):
            vals = [100.0 * float(r[col]) / t if r.get(col) and t > 0 else 0.0
                    for r, t in zip(grows, totals)]
            ax.barh(range(len(grows)), vals, left=left, color=colours[k % len(colours)],
                    label=label)
            left = [a + b for a, b in zip(left, vals)]
        for y, r in enumerate(grows):
            ax.text(101, y, f"{float(r['median_ms']):.3g} ms", va="center", fontsize=7)
        ax.set_yticks(range(len(grows)))
        ax.set_yticklabels(names, fontsize=8)
        ax.invert_yaxis()
        ax.set_xlim(0, 125)
        ax.set_xticks([0, 25, 50, 75, 100])
        ax.set_xlabel("share of the stages (%); ms per step at right")
        ax.set_title(f"{scene}, N = {n:,}", fontsize=10)
        ax.grid(True, axis="x", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    top = 1 - 1.2 / fig.get_size_inches()[1]
    fig.legend(handles, labels, loc="upper center", ncol=min(7, len(labels)), fontsize=8)
    fig.suptitle(f"Workload B: where the step goes (median of each stage), {threads} thread; "
                 "Box2D's b2Profile mapped onto the same stages; Chipmunk2D reports none",
                 y=top + 0.04, fontsize=10)
    fig.text(0.01, 0.01, wrap(note, 4.6 * cols), fontsize=7, color="grey")
    fig.tight_layout(rect=(0, 0.4 / fig.get_size_inches()[1], 1, top))
    path = os.path.join(out_dir, "stages.png")
    fig.savefig(path, dpi=110)
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
    def plot_run(rows, out_dir, note, styles):
        return (plot_workload(rows, out_dir, note, styles, "A")
                + plot_workload(rows, out_dir, note, styles, "B")
                + plot_stages(rows, out_dir, note, styles))

    for name, plot in (("sweep.csv", plot_sweep), ("scaling.csv", plot_scaling),
                       ("run.csv", plot_run)):
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
