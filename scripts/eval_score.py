#!/usr/bin/env python3
"""Scores a facecrop manifest against eval/boxes.json (see scripts/eval)."""
import argparse, json


def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw = max(0, min(ax2, bx2) - max(a[0], b[0]))
    ih = max(0, min(ay2, by2) - max(a[1], b[1]))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union else 0.0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("truth")
    p.add_argument("manifest")
    p.add_argument("--name", default="run")
    p.add_argument("--seconds", type=float, default=0)
    p.add_argument("--min-score", type=float, default=None, help="rescore at this threshold")
    p.add_argument("--verbose", action="store_true")
    a = p.parse_args()
    truth = json.load(open(a.truth))["photos"]
    found, status = {}, {}
    for line in open(a.manifest):
        rec = json.loads(line)
        name = rec["source"].split("/")[-1]
        status[name] = rec["status"]
        if rec["status"] == "ok" and (a.min_score is None or rec["score"] >= a.min_score):
            found.setdefault(name, []).append((rec["score"], rec["bbox"]))
    tp = fp = fn = fp_nopeople = 0
    kept = dropped = people = nopeople = 0
    for name, t in truth.items():
        boxes = [b for b in t["faces"] if max(b[2], b[3]) >= 24]
        dets = sorted(found.get(name, []), key=lambda d: -d[0])
        used = set()
        for score, d in dets:
            best, bi = 0.0, -1
            for i, b in enumerate(boxes):
                if i not in used and iou(d, b) > best:
                    best, bi = iou(d, b), i
            if best >= 0.5:
                used.add(bi)
                tp += 1
            else:
                fp += 1
                if not t["people"]:
                    fp_nopeople += 1
                if a.verbose:
                    print(f"  false: {name} {d} score {score}")
        fn += len(boxes) - len(used)
        if a.verbose:
            for i, b in enumerate(boxes):
                if i not in used:
                    print(f"  missed: {name} {b}")
        if t["people"]:
            people += 1
            kept += status.get(name) != "no_person"
        else:
            nopeople += 1
            dropped += status.get(name) in ("no_person",) or name not in found
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    rate = len(truth) / a.seconds if a.seconds else 0
    print(f"{a.name} | {prec:.2f} ({tp}/{tp + fp}) | {rec:.2f} ({tp}/{tp + fn}) | {f1:.2f} | {fp_nopeople} | "
          f"{kept}/{people} | {dropped}/{nopeople} | {rate:.1f}")


if __name__ == "__main__":
    main()
