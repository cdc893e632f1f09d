#!/usr/bin/env python3
"""Scores a facecrop manifest on the development set (see scripts/eval) with the
set's own scorer (score.py beside truth.json): one table row with precision,
recall, F1 and mean IoU (of the matched faces) at IoU 0.5, and precision and
recall at IoU 0.3. --min-score rescores at a higher threshold; --curve prints
JSON points (threshold, precision, recall) for docs/pr.png."""
import argparse, json, os, subprocess, sys, tempfile


def score(devset, manifest, iou, min_score=None):
    """score.py's overall metrics for `manifest`, keeping faces scoring >= min_score."""
    with tempfile.TemporaryDirectory() as tmp:
        path = manifest
        if min_score is not None:
            path = os.path.join(tmp, "manifest.jsonl")
            with open(manifest) as src, open(path, "w") as dst:
                for line in src:
                    rec = json.loads(line)
                    if "bbox" in rec and rec.get("score", 1) < min_score:
                        rec.pop("bbox")
                    dst.write(json.dumps(rec) + "\n")
        out = os.path.join(tmp, "metrics.json")
        subprocess.run([sys.executable, os.path.join(devset, "score.py"), "--truth", os.path.join(devset, "truth.json"),
                        "--images", os.path.join(devset, "images"), "--manifest", path, "--iou", str(iou),
                        "--json", out], check=True, stdout=subprocess.DEVNULL)
        metrics = json.load(open(out))
    return metrics["overall"] if "overall" in metrics else metrics


def main():
    p = argparse.ArgumentParser()
    p.add_argument("devset")
    p.add_argument("manifest")
    p.add_argument("--name", default="run")
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--min-score", type=float, default=None)
    p.add_argument("--curve", action="store_true")
    p.add_argument("--chosen", type=float, default=None, help="with --curve: the default --min-score to mark")
    a = p.parse_args()
    if a.curve:
        scores = sorted({json.loads(l).get("score", 0) for l in open(a.manifest) if '"bbox"' in l})
        steps = [s for i, s in enumerate(scores) if i % max(1, len(scores) // 40) == 0] + scores[-1:]
        points = []
        for t in steps:
            m = score(a.devset, a.manifest, 0.5, t)
            points.append({"threshold": t, "precision": m["precision"], "recall": m["recall"]})
        result = {"name": a.name, "points": points}
        if a.chosen is not None:
            m = score(a.devset, a.manifest, 0.5, a.chosen)
            result["chosen"] = {"threshold": a.chosen, "precision": m["precision"], "recall": m["recall"]}
        print(json.dumps(result))
        return
    m5 = score(a.devset, a.manifest, 0.5, a.min_score)
    m3 = score(a.devset, a.manifest, 0.3, a.min_score)
    photos = len(json.load(open(os.path.join(a.devset, "truth.json"))))
    rate = photos / a.seconds if a.seconds else 0
    iou = m5.get("mean_iou_tp")
    print(f"{a.name} | {m5['precision']:.2f} ({m5['tp']}/{m5['tp'] + m5['fp']}) | {m5['recall']:.2f} ({m5['tp']}/{m5['tp'] + m5['fn']}) | "
          f"{m5['f1']:.2f} | {iou if iou is None else round(iou, 2)} | {m3['precision']:.2f} | {m3['recall']:.2f} | {rate:.1f}")


if __name__ == "__main__":
    main()
