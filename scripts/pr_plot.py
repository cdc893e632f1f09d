"""Plots precision-recall curves from scripts/eval_devset.py --curve (see scripts/pr-curve).

    .venv/bin/python scripts/pr_plot.py OUT.png CURVE.json...
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=100)
    for path in paths:
        curve = json.load(open(path))
        points = sorted(curve["points"], key=lambda p: p["recall"])
        line, = ax.plot([p["recall"] for p in points], [p["precision"] for p in points], label=curve["name"])
        if curve.get("chosen"):
            c = curve["chosen"]
            ax.plot(c["recall"], c["precision"], "o", color=line.get_color())
            ax.annotate(f"{curve['name']} default (--min-score {c['threshold']:g})", (c["recall"], c["precision"]),
                        textcoords="offset points", xytext=(6, -12), fontsize=8)
    ax.set_xlabel("recall (IoU 0.5)")
    ax.set_ylabel("precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.set_title("Development set (160 WIDER photos, 183 faces >= 24 px), over --min-score")
    ax.title.set_fontsize(9)
    ax.legend(loc="lower left")
    fig.tight_layout()
    fig.savefig(out)


if __name__ == "__main__":
    main()
