#!/usr/bin/env python3
"""Plots scale-results-*.json (scripts/bench_scale.py): peak RSS against photos.
Usage: bench_scale_plot.py OUT.png RESULTS.json..."""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

out, files = sys.argv[1], sys.argv[2:]
fig, ax = plt.subplots(figsize=(7, 4.2))
for path in files:
    with open(path) as f:
        data = json.load(f)
    counts = sorted(int(c) for c in data["results"])
    for run, style in (("dry-run", "o-"), ("check", "s--"), ("rerun", "^:")):
        ys = [data["results"][str(c)][run]["peak_rss_mib"] for c in counts]
        ax.plot(counts, ys, style, label=f"{data['tag']}: {run}")
# Reruns with --no-report (bench_scale.py --no-report-rerun), if measured.
folder = os.path.dirname(files[0]) if files else "."
extra = sorted((int(f.split("-")[-1].split(".")[0]), f) for f in os.listdir(folder) if f.startswith("scale-noreport-"))
if extra:
    ax.plot([c for c, _ in extra], [json.load(open(os.path.join(folder, f)))["peak_rss_mib"] for _, f in extra],
            "D-", label="streaming: rerun --no-report")
# Processing runs (bench_scale.py --process-counts), if measured.
for name in sorted(f for f in os.listdir(folder) if f.startswith("scale-process-") and f.endswith(".json")):
    with open(os.path.join(folder, name)) as f:
        data = json.load(f)
    counts = sorted(int(c) for c in data["results"])
    ax.plot(counts, [data["results"][str(c)]["peak_rss_mib"] for c in counts], "v-", label=f"{data['tag']}: processing run")
ax.set_xscale("log")
ax.set_xlabel("photos in the library")
ax.set_ylabel("peak RSS (MiB)")
ax.set_title("facecrop peak memory against library size (scripts/bench --scale)")
ax.grid(True, which="both", alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=110)
