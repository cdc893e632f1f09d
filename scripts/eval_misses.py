#!/usr/bin/env python3
"""Which faces of a set with box truth (the development set, or any folder
laid out as it is: truth.json, ignore.json, score.py) a facecrop run misses,
and why. Give the run's manifest and a second run of the same photos at a
low --min-score (0.3, say): every truth face the first run does not match at
IoU 0.5 (score.py's greedy matching) is put in one cause, using the low run's
boxes as the network's candidates:

  box shape        the run has a box on it at IoU 0.3-0.5 (found; the box
                   disagrees with the truth's)
  neighbour        a box of the run at IoU 0.3 or more went to another truth face
  under threshold  the low run has it at IoU 0.5, scoring under the run's
                   --min-score (the candidate's score is printed)
  under, shape     the low run has it only at IoU 0.3-0.5, under --min-score
  not seen         no box of the low run at IoU 0.3

then recall by the truth face's short side and by its shape (height over
width), and one line per miss with --list.

    facecrop SET/images -o RUN -q --min-face 24 --detector centerface
    facecrop SET/images -o LOW -q --min-face 24 --detector centerface --min-score 0.3
    scripts/eval_misses.py SET RUN/manifest.jsonl LOW/manifest.jsonl [--min-score 0.56] [--list]
"""
import argparse, importlib.util, json, os


def load_score(devset):
    spec = importlib.util.spec_from_file_location("score", os.path.join(devset, "score.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def faces(manifest):
    """The manifest's face boxes by photo, best score first."""
    by = {}
    for line in open(manifest):
        rec = json.loads(line)
        if "bbox" in rec:
            by.setdefault(os.path.basename(rec["source"]) if "/" in rec["source"] else rec["source"], []).append(rec)
    return {k: sorted(v, key=lambda r: -r.get("score", 0)) for k, v in by.items()}


def matched(dets, gts, iou):
    """score.py's greedy matching: the truth index each detection took (or None)."""
    used, took = set(), []
    for rec in dets:
        best, best_j = 0.0, -1
        for j, g in enumerate(gts):
            if j not in used and iou(rec["bbox"], g) > best:
                best, best_j = iou(rec["bbox"], g), j
        took.append(best_j if best >= 0.5 else None)
        if best >= 0.5:
            used.add(best_j)
    return took


def cause(g, j, dets, took, low, min_score, iou):
    """The cause of missing truth face `g` (index `j`), and the low run's best candidate."""
    near = [(iou(r["bbox"], g), r, t) for r, t in zip(dets, took)]
    if any(v >= 0.3 and t is not None and t != j for v, _, t in near):
        return "neighbour", None
    if any(0.3 <= v < 0.5 for v, _, _ in near):
        return "box shape", None
    cands = sorted(((iou(r["bbox"], g), r) for r in low if r.get("score", 0) < min_score), key=lambda c: -c[0])
    if cands and cands[0][0] >= 0.5:
        return "under threshold", cands[0]
    if cands and cands[0][0] >= 0.3:
        return "under, shape", cands[0]
    return "not seen", cands[0] if cands else None


def band(value, edges):
    for lo, hi in zip(edges, edges[1:]):
        if lo <= value < hi:
            return f"{lo:g}-{hi:g}" if hi != float("inf") else f"{lo:g}+"
    return "other"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("devset")
    p.add_argument("manifest")
    p.add_argument("low")
    p.add_argument("--min-score", type=float, default=0.56)
    p.add_argument("--list", action="store_true")
    a = p.parse_args()
    iou = load_score(a.devset).iou
    truth = json.load(open(os.path.join(a.devset, "truth.json")))
    run, low = faces(a.manifest), faces(a.low)
    causes, by_side, by_shape, lines = {}, {}, {}, []
    for name, gts in sorted(truth.items()):
        dets = run.get(name, [])
        took = matched(dets, gts, iou)
        for j, g in enumerate(gts):
            side, shape = band(min(g[2], g[3]), [24, 32, 48, float("inf")]), band(g[3] / g[2], [0, 1.4, 1.8, float("inf")])
            hit = j in took
            for table, key in ((by_side, side), (by_shape, shape)):
                table.setdefault(key, [0, 0])[0 if hit else 1] += 1
            if hit:
                continue
            why, cand = cause(g, j, dets, took, low.get(name, []), a.min_score, iou)
            causes[why] = causes.get(why, 0) + 1
            seen = f"candidate {cand[1]['score']:.2f} at IoU {cand[0]:.2f} {cand[1]['bbox']}" if cand and cand[0] > 0 else "no candidate"
            lines.append(f"{name} truth {[round(v) for v in g]} h/w {g[3] / g[2]:.2f}: {why}; {seen}")
    print("cause | faces")
    for why in ("box shape", "neighbour", "under threshold", "under, shape", "not seen"):
        print(f"{why} | {causes.get(why, 0)}")
    for title, table in (("short side px", by_side), ("height / width", by_shape)):
        print(f"\n{title} | found | missed | recall")
        for key, (hit, miss) in sorted(table.items(), key=lambda kv: float(kv[0].split("-")[0].rstrip("+"))):
            print(f"{key} | {hit} | {miss} | {hit / (hit + miss):.2f}")
    if a.list:
        print("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
