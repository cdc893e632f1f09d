"""Plot facecrop's RSS over a run, for scripts/bench --memory.

    bench-out/venv/bin/python scripts/bench_plot.py OUT.png TITLE rss-1000.csv rss-10000.csv ...

Each CSV has columns elapsed_s, vmrss_kib, photos_est (VmRSS sampled every
0.2 s; photos done estimated from bytes read). Draws RSS against elapsed time
and against photos processed, one line per run.
"""

import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, title, csvs = sys.argv[1], sys.argv[2], sys.argv[3:]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for path in csvs:
        with open(path) as f:
            rows = list(csv.DictReader(f))
        t = [float(r["elapsed_s"]) for r in rows]
        rss = [int(r["vmrss_kib"]) / 1024 for r in rows]
        done = all(r["photos_est"] for r in rows)  # empty for a run that did not finish
        label = f"{int(os.path.basename(path)[4:-4]):,} photos (peak {max(rss):.0f} MiB)"
        label += "" if done else ", interrupted"
        ax1.plot(t, rss, lw=0.8, label=label)
        if done:
            ax2.plot([float(r["photos_est"]) for r in rows], rss, lw=0.8, label=label)
    ax1.set_xlabel("elapsed (s)")
    ax2.set_xlabel("photos processed (estimated from bytes read)")
    ax2.set_xscale("symlog", linthresh=100)
    for ax in (ax1, ax2):
        ax.set_ylabel("VmRSS (MiB)")
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    fig.suptitle(f"RSS over a run: {title}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
