#!/usr/bin/env python3
"""Calibrates and measures the quality record (docs/quality.md).

Makes degraded copies of the dev sets' photos (outside the repository),
runs facecrop on the originals, each kind of copy and the mirrored photos,
matches each original face to the same face in the copy (IoU >= 0.5, boxes
in shares of the photo) and reports, per degradation, the share of
(original, copy) pairs whose face_quality puts the original above the copy;
and for mirrored photos the mean |yaw + yaw'| and |roll + roll'|.

The devset is split by name (CRC-32 of the file name, even: tune, odd:
held out). `--tune` searches the score's constants on the tune half (the
figures it prints for that half are tuned on); the other figures are not.

    scripts/eval_quality.py [--bin .build/release/facecrop] [--work /work/qdata] [--tune] [--detector cascade]

Python 3 standard library; vips (the command) for the copies.
"""
import argparse
import itertools
import json
import math
import os
import subprocess
import sys
import zlib

DEVSET = "/work/shared/devset/images"
PEOPLE = "/work/shared/people-devset/images"

# name -> vips commands making the copy from IN into OUT (the photo's long side is L)
DEGRADATIONS = {
    # Gaussian blur, sigma 1/250 of the long side (1.7 px at 416 px, 4.8 px at 1200 px).
    "blur": lambda L: [["gaussblur", "IN", "OUT.v", f"{L / 250:.2f}"], ["copy", "OUT.v", "OUT[Q=95]"]],
    # Half the size.
    "downscale": lambda L: [["resize", "IN", "OUT[Q=95]", "0.5"]],
    # Pixel values x 0.3 (about 1.7 stops darker in sRGB values).
    "dark": lambda L: [["linear", "IN", "OUT.v", "0.3", "0", "--uchar"], ["copy", "OUT.v", "OUT[Q=95]"]],
    # Pixel values x 2.2 + 30, clipped (overexposed).
    "bright": lambda L: [["linear", "IN", "OUT.v", "2.2", "30", "--uchar"], ["copy", "OUT.v", "OUT[Q=95]"]],
    # JPEG at quality 8.
    "jpeg": lambda L: [["copy", "IN", "OUT[Q=8]"]],
}


def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def long_side(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True, check=True).stdout
    w = int(out)
    h = int(subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True, check=True).stdout)
    return max(w, h)


def make_copies(src, dest, kind):
    os.makedirs(dest, exist_ok=True)
    for name in sorted(os.listdir(src)):
        stem = os.path.splitext(name)[0]
        out = os.path.join(dest, stem + ".jpg")
        if os.path.exists(out):
            continue
        path = os.path.join(src, name)
        if kind == "mirror":
            run(["vips", "flip", path, out + "[Q=95]", "horizontal"])
            continue
        if kind == "original":
            run(["vips", "copy", path, out + "[Q=95]"])
            continue
        tmp = os.path.join(dest, stem + ".v")
        for step in DEGRADATIONS[kind](long_side(path)):
            run(["vips"] + [s.replace("IN", path).replace("OUT.v", tmp).replace("OUT", out) for s in step])
        if os.path.exists(tmp):
            os.remove(tmp)


def faces(binary, folder, out, detector):
    manifest = os.path.join(out, "manifest.jsonl")
    cmd = [binary, folder, "-o", out, "--quiet", "--min-face", "20", "--jobs", "2"]
    if detector != "cascade":
        cmd += ["--detector", detector]
    subprocess.run(cmd, check=True)
    found = {}
    for line in open(manifest):
        o = json.loads(line)
        if "face" not in o:
            continue
        x, y, w, h = o["bbox"]
        W, H = o["width"], o["height"]
        o["norm"] = (x / W, y / H, w / W, h / H)
        found.setdefault(os.path.splitext(o["source"])[0], []).append(o)
    return found


def iou(a, b, mirror=False):
    if mirror:
        b = (1 - b[0] - b[2], b[1], b[2], b[3])
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union > 0 else 0


def pairs(orig, other, mirror=False):
    """(original face, copy's face) for faces found in both, best IoU first, each used once."""
    out = []
    for stem, faces_o in orig.items():
        cands = []
        for a in faces_o:
            for b in other.get(stem, []):
                v = iou(a["norm"], b["norm"], mirror)
                if v >= 0.5:
                    cands.append((-v, a["face"], b["face"], a, b))
        used_a, used_b = set(), set()
        for _, fa, fb, a, b in sorted(cands, key=lambda c: c[:3]):
            if fa in used_a or fb in used_b:
                continue
            used_a.add(fa)
            used_b.add(fb)
            out.append((stem, a, b))
    return out


# The score, as Sources/FaceCropCore/FaceQuality.swift (QualityScore) computes it.
DEFAULTS = dict(sharpHalf=40.0, sizeHalf=12.0, darkHalf=0.03, brightHalf=0.10, blocksHalf=1.0, jpegHalf=5.0, yawHalf=60.0)


def score(o, c):
    def half(x, h):
        return 0 if x <= 0 else x / (x + h)
    e = o["exposure"]
    eyes = o["face_px"] if o["pose"] is not None else o["face_px"] / 2.3
    yaw = abs(o["pose"]["yaw"]) if o["pose"] is not None else 0
    parts = [
        half(o["sharpness"], c["sharpHalf"]),
        half(eyes, c["sizeHalf"]),
        half(e["mean"], c["darkHalf"]) * (1 - e["dark"]),
        half(1 - e["mean"], c["brightHalf"]) * (1 - e["bright"]),
        1 / (1 + (max(0, o["blocking"] - 1) / c["blocksHalf"]) ** 2)
        * half(o["jpeg_quality"] if o["jpeg_quality"] is not None else 100, c["jpegHalf"]) / half(100, c["jpegHalf"]),
        1 / (1 + (yaw / c["yawHalf"]) ** 4),
        1 - o["outside"],
    ]
    return math.prod(parts)


def ordered(pairs_by_kind, c=None):
    """Share of pairs with the original scoring above its copy, per kind."""
    result = {}
    for kind, ps in pairs_by_kind.items():
        if not ps:
            result[kind] = (0, 0)
            continue
        if c is None:
            good = sum(1 for _, a, b in ps if a["face_quality"] > b["face_quality"])
        else:
            good = sum(1 for _, a, b in ps if score(a, c) > score(b, c))
        result[kind] = (good, len(ps))
    return result


def tune(pairs_by_kind):
    grid = dict(
        sharpHalf=[20, 40, 60, 100],
        sizeHalf=[6, 12, 20],
        darkHalf=[0.03, 0.05, 0.1, 0.2],
        brightHalf=[0.05, 0.1, 0.2],
        blocksHalf=[0.5, 1.0, 2.0],
        jpegHalf=[5.0, 10.0, 20.0],
        yawHalf=[60.0],
    )
    best = None
    keys = list(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        c = dict(zip(keys, values))
        r = ordered(pairs_by_kind, c)
        shares = [g / n for g, n in r.values() if n]
        key = (min(shares), sum(shares))
        if best is None or key > best[0]:
            best = (key, c)
    return best[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/facecrop")
    ap.add_argument("--work", default="/work/qdata")
    ap.add_argument("--detector", default="cascade")
    ap.add_argument("--tune", action="store_true")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    sets = {"devset": DEVSET, "people": PEOPLE}
    kinds = ["original", "mirror"] + list(DEGRADATIONS)
    found = {}
    for set_name, src in sets.items():
        for kind in kinds:
            folder = os.path.join(args.work, "photos", set_name, kind)
            make_copies(src, folder, kind)
            out = os.path.join(args.work, "out", args.detector, set_name, kind)
            found[set_name, kind] = faces(binary, folder, out, args.detector)

    def part(set_name, which):
        orig = found[set_name, "original"]
        if set_name == "devset":
            keep = {s for s in orig if (zlib.crc32(s.encode()) % 2 == 0) == (which == "tune")}
            orig = {s: v for s, v in orig.items() if s in keep}
        return {k: pairs(orig, found[set_name, k]) for k in DEGRADATIONS}, pairs(orig, found[set_name, "mirror"], True)

    parts = {
        "devset tune half (tuned on)": part("devset", "tune"),
        "devset held-out half": part("devset", "held"),
        "people-devset (not tuned on)": part("people", "all"),
    }
    constants = None
    if args.tune:
        constants = tune(parts["devset tune half (tuned on)"][0])
        print("tuned constants:", json.dumps(constants))
    else:
        # The binary's own face_quality is the formula above with DEFAULTS.
        faces_all = [f for v in found.values() for fs in v.values() for f in fs]
        off = sum(1 for f in faces_all if abs(round(score(f, DEFAULTS), 4) - f["face_quality"]) > 1e-4)
        print(f"face_quality as the formula with DEFAULTS gives it: {len(faces_all) - off}/{len(faces_all)} faces")
    for title, (by_kind, mirrored) in parts.items():
        print(f"== {title} ({args.detector})")
        r = ordered(by_kind, constants)
        for kind, (good, n) in r.items():
            print(f"  {kind:10s} {good:4d}/{n:<4d} pairs ordered correctly = {100 * good / max(n, 1):5.1f} %")
        with_pose = [(a, b) for _, a, b in mirrored if a["pose"] and b["pose"]]
        if with_pose:
            yaw = sum(abs(a["pose"]["yaw"] + b["pose"]["yaw"]) for a, b in with_pose) / len(with_pose)
            roll = sum(abs(a["pose"]["roll"] + b["pose"]["roll"]) for a, b in with_pose) / len(with_pose)
            pitch = sum(abs(a["pose"]["pitch"] - b["pose"]["pitch"]) for a, b in with_pose) / len(with_pose)
            print(f"  mirrored   {len(with_pose)} faces: mean |yaw+yaw'| = {yaw:.2f} deg, |roll+roll'| = {roll:.2f} deg, |pitch-pitch'| = {pitch:.2f} deg")


if __name__ == "__main__":
    main()
