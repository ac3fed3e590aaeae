"""Where quadbin-perf's results are: shared by scripts/plot_perf.py and
scripts/perf_tables.py."""
import os
import re
import socket


def latest_run_dir():
    """The newest folder a quadbin-perf command wrote on this host without
    --out (perf/results/<host>-<date>-<time>[-k]), or None."""
    host = socket.gethostname() or "unknown"
    results = os.path.join("perf", "results")
    pattern = re.compile(re.escape(host) + r"-(\d{8}-\d{6})(?:-(\d+))?")
    runs = []
    for name in os.listdir(results) if os.path.isdir(results) else []:
        m = pattern.fullmatch(name)
        if m:
            runs.append(((m.group(1), int(m.group(2) or 1)), name))
    return os.path.join(results, max(runs)[1]) if runs else None
