#!/usr/bin/env python3
"""Calibrates and measures the quality record (docs/quality.md).

Makes degraded copies of the dev sets' photos and of Fixtures' portraits
(outside the repository), runs facecrop on the originals, each kind of copy
and the mirrored photos, matches each original face to the same face in the
copy (IoU >= 0.5, boxes in shares of the photo) and reports per kind:
pairs whose face_quality puts the original above the copy (enlarge: the
copy not above), and, of pairs whose original has nothing wrong, copies
whose quality_reason is the kind's own; for the portraits (box >= 15 % of
the photo's shorter side, |yaw| <= 30) the median face_quality and the
share with nothing wrong; for mirrored photos the mean |yaw + yaw'| and
|roll + roll'|. It checks that the binary's scores are the formula below.

The devset is split by name (CRC-32 of the file name, even: tuned on, odd:
held out); the edges (DEFAULTS, as QualityScore.swift) were set by hand from
the even half and the people-devset.

    scripts/eval_quality.py [--bin .build/release/facecrop] [--work /work/qdata] [--sets devset,people,fixtures]
        [--skip devset:shrunk,...] [--detector cascade] [--eyes FOLDER] [--occluded FOLDER]

With --eyes FOLDER (FOLDER/closed and FOLDER/open hold photos of faces with
both eyes closed and open; gathered outside the repository, see
docs/quality.md), it also gives, per half of FOLDER (CRC-32 of the file
name: even tuned on, odd held out), the share of each with eyes_closed and
the AUC of face_quality ranking the open-eyed faces over the closed ones.
Portraits of the dev sets get their eyes_closed, not_a_face and occluded
shares.

With --occluded FOLDER (FOLDER/sunglasses, FOLDER/mask: covered faces;
FOLDER/open: uncovered ones; gathered outside the repository, see
docs/quality.md), it gives per half of FOLDER (CRC-32 of the file name: even
calibrated on, odd held out) the share of each with occluded, at
--min-face 24, and the share of every face of the dev sets' originals with it.

Python 3 standard library; vips (the command) for the copies.
"""
import argparse
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
    # Shrunk to 96 px on the long side: a portrait's face becomes small (eyes about 15 px).
    "shrunk": lambda L: [["resize", "IN", "OUT[Q=95]", f"{96 / L:.5f}"]],
    # Enlarged 2x (vips' default Lanczos): the same detail on more pixels.
    "enlarge": lambda L: [["resize", "IN", "OUT[Q=95]", "2"]],
}

# The reason each kind of copy should name (enlarge: its score must not beat the original's).
EXPECTED = {"blur": "blur", "downscale": "small", "shrunk": "small", "dark": "dark", "bright": "bright", "jpeg": "jpeg", "enlarge": "blur"}


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


def faces(binary, folder, out, detector, min_face=20):
    manifest = os.path.join(out, "manifest.jsonl")
    cmd = [binary, folder, "-o", out, "--quiet", "--min-face", str(min_face), "--jobs", "2"]
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


# The score, as Sources/FaceCropCore/QualityScore.swift computes it: each
# measure's (fine, wrong) edges; a factor is 1 on the fine side and LEVEL at wrong.
LEVEL = 0.75
DEFAULTS = dict(
    softness=(1.0, 1.3), detail=(40.0, 20.0), darkMean=(0.25, 0.22), brightMean=(0.75, 0.85), darkClipped=(0.1, 0.3),
    brightClipped=(0.03, 0.1), blocking=(1.5, 2.0), jpegQuality=(50.0, 25.0), yaw=(30.0, 45.0), outside=(0.02, 0.15),
    eyesOpen=(0.14, 0.12), facePresence=(0.5, 0.2), covered=(0.35, 0.5), wreck=(11.0, 10.8))
# The more closed eye's share of the two eyes' openness (QualityScore.closedEyeWeight).
CLOSED_EYE_WEIGHT = 0.6


def eyes(o):
    """The two eyes' openness as the eyes_closed factor reads it (QualityScore.eyes)."""
    v = o["eyes_open"]
    return CLOSED_EYE_WEIGHT * min(v) + (1 - CLOSED_EYE_WEIGHT) * max(v)


NAMES = ["blur", "small", "dark", "bright", "jpeg", "profile", "padding", "eyes_closed", "not_a_face", "occluded"]


def edge(x, e):
    fine, wrong = e
    past = x - fine if wrong > fine else fine - x
    if past <= 0:
        return 1.0
    span = abs(wrong - fine) / math.sqrt(1 / LEVEL - 1)
    return 1 / (1 + (past / span) ** 2)


def parts(o, c):
    e = o["exposure"]
    yaw = abs(o["pose"]["yaw"]) if o["pose"] is not None else 0
    q = o["jpeg_quality"] if o["jpeg_quality"] is not None else 100
    return [
        edge(o["softness"], c["softness"]),
        edge(o["detail_px"], c["detail"]),
        edge(e["mean"], c["darkMean"]) * edge(e["dark"], c["darkClipped"]),
        edge(e["mean"], c["brightMean"]) * edge(e["bright"], c["brightClipped"]),
        edge(o["blocking"], c["blocking"]) * edge(q, c["jpegQuality"]) * edge(q, c["wreck"]),
        edge(yaw, c["yaw"]),
        edge(o["outside"], c["outside"]),
        edge(eyes(o), c["eyesOpen"]) if o.get("eyes_open") else 1.0,
        edge(o["face_presence"], c["facePresence"]) if o.get("face_presence") is not None else 1.0,
        edge(max(o["occlusion"]["eyes"], o["occlusion"]["mouth"]), c["covered"]) if o.get("occlusion") else 1.0,
    ]


def score(o, c):
    return math.prod(parts(o, c))


def reasons(o, c):
    """The factors below LEVEL, worst first (as FaceQuality.rate orders them)."""
    p = parts(o, c)
    below = sorted((v / LEVEL, i) for i, v in enumerate(p) if v < LEVEL)
    return [NAMES[i] for _, i in below]


def ordered(pairs_by_kind, c=None):
    """Per kind: pairs with the original scoring above its copy (enlarge: not
    below it), and the pairs."""
    result = {}
    for kind, ps in pairs_by_kind.items():
        def q(o):
            return o["face_quality"] if c is None else round(score(o, c), 4)
        if kind == "enlarge":
            good = sum(1 for _, a, b in ps if q(a) >= q(b))
        else:
            good = sum(1 for _, a, b in ps if q(a) > q(b))
        result[kind] = (good, len(ps))
    return result


def named(pairs_by_kind, c=None):
    """Per kind, over the pairs whose original has nothing wrong: copies whose
    quality_reason is the kind's, copies that list it in quality_reasons, pairs."""
    result = {}
    for kind, ps in pairs_by_kind.items():
        def rs(o):
            return o["quality_reasons"] if c is None else reasons(o, c)
        clean = [(a, b) for _, a, b in ps if not rs(a)]
        first = sum(1 for a, b in clean if rs(b)[:1] == [EXPECTED[kind]])
        listed = sum(1 for a, b in clean if EXPECTED[kind] in rs(b))
        result[kind] = (first, listed, len(clean))
    return result


def portraits(orig):
    """Large frontal faces: the box's longer side at least 15 % of the photo's
    shorter side, |yaw| <= 30 (the people-devset's labelled faces are such)."""
    out = []
    for faces_o in orig.values():
        for o in faces_o:
            side = max(o["bbox"][2], o["bbox"][3])
            if side >= 0.15 * min(o["width"], o["height"]) and o["pose"] is not None and abs(o["pose"]["yaw"]) <= 30:
                out.append(o)
    return out


def report(title, by_kind, mirrored, orig, c, detector):
    print(f"== {title} ({detector})")
    r, n = ordered(by_kind, c), named(by_kind, c)
    for kind in by_kind:
        good, total = r[kind]
        first, listed, clean = n[kind]
        print(f"  {kind:10s} ordered {good:4d}/{total:<4d} = {100 * good / max(total, 1):5.1f} %   "
              f"names {EXPECTED[kind]:6s} {first:3d}/{clean:<3d} = {100 * first / max(clean, 1):5.1f} % (listed {100 * listed / max(clean, 1):5.1f} %)")
    ps = portraits(orig)
    if ps:
        qs = sorted(p["face_quality"] if c is None else round(score(p, c), 4) for p in ps)
        empty = sum(1 for p in ps if not (p["quality_reasons"] if c is None else reasons(p, c)))
        print(f"  portraits  {len(ps)} faces: median face_quality {qs[len(qs) // 2]:.3f}, quality_reason empty {empty}/{len(ps)} = {100 * empty / len(ps):.1f} %")
        for name in ("eyes_closed", "not_a_face", "occluded"):
            k = sum(1 for p in ps if name in (p["quality_reasons"] if c is None else reasons(p, c)))
            print(f"  portraits  {name}: {k}/{len(ps)} = {100 * k / len(ps):.1f} %")
    with_pose = [(a, b) for _, a, b in mirrored if a["pose"] and b["pose"]]
    if with_pose:
        yaw = sum(abs(a["pose"]["yaw"] + b["pose"]["yaw"]) for a, b in with_pose) / len(with_pose)
        roll = sum(abs(a["pose"]["roll"] + b["pose"]["roll"]) for a, b in with_pose) / len(with_pose)
        print(f"  mirrored   {len(with_pose)} faces: mean |yaw+yaw'| = {yaw:.2f} deg, |roll+roll'| = {roll:.2f} deg")


def auc(high, low):
    """The share of (h, l) pairs with h above l, a tie counting half."""
    if not high or not low:
        return float("nan")
    wins = sum((h > l) + 0.5 * (h == l) for h in high for l in low)
    return wins / (len(high) * len(low))


def eyes_report(binary, folder, work, detector):
    """FOLDER/closed and FOLDER/open: one face a photo (the largest found);
    split by CRC-32 of the file name (even: tuned on, odd: held out)."""
    found = faces(binary, folder, os.path.join(work, "out", detector, "eyes"), detector)
    print(f"== eyes: {folder} ({detector})")
    for half, title in ((0, "tuned on (even CRC-32)"), (1, "held out (odd CRC-32)")):
        by = {"closed": [], "open": []}
        photos = {"closed": 0, "open": 0}
        for kind in by:
            names = [n for n in os.listdir(os.path.join(folder, kind)) if zlib.crc32(n.encode()) % 2 == half]
            photos[kind] = len(names)
            for n in names:
                fs = found.get(os.path.splitext(os.path.join(kind, n))[0], [])
                if fs:
                    by[kind].append(max(fs, key=lambda o: o["bbox"][2] * o["bbox"][3]))
        print(f"  {title}:")
        for kind, fs in by.items():
            k = sum(1 for o in fs if "eyes_closed" in o["quality_reasons"])
            values = sorted(eyes(o) for o in fs if o.get("eyes_open"))
            median = values[len(values) // 2] if values else float("nan")
            print(f"    {kind:6s} {len(fs)}/{photos[kind]} photos with a face: eyes_closed {k}/{len(fs)} = {100 * k / max(len(fs), 1):.1f} %, "
                  f"median openness {median:.3f}")
        q = auc([o["face_quality"] for o in by["open"]], [o["face_quality"] for o in by["closed"]])
        e = auc([eyes(o) for o in by["open"] if o.get("eyes_open")],
                [eyes(o) for o in by["closed"] if o.get("eyes_open")])
        print(f"    AUC open over closed: face_quality {q:.3f}, openness {e:.3f}")


def occluded_report(binary, folder, work, detector):
    """FOLDER/sunglasses, FOLDER/mask, FOLDER/open: one face a photo (the
    largest found), --min-face 24; split by CRC-32 of the file name (even:
    calibrated on, odd: held out)."""
    found = faces(binary, folder, os.path.join(work, "out", detector, "occluded"), detector, min_face=24)
    kinds = [k for k in ("sunglasses", "mask", "open") if os.path.isdir(os.path.join(folder, k))]
    print(f"== occluded: {folder} ({detector}, --min-face 24)")
    for half, title in ((0, "calibrated on (even CRC-32)"), (1, "held out (odd CRC-32)")):
        print(f"  {title}:")
        for kind in kinds:
            names = [n for n in os.listdir(os.path.join(folder, kind)) if zlib.crc32(n.encode()) % 2 == half]
            fs = [max(v, key=lambda o: o["bbox"][2] * o["bbox"][3]) for v in
                  (found.get(os.path.splitext(os.path.join(kind, n))[0], []) for n in names) if v]
            k = sum(1 for o in fs if "occluded" in o["quality_reasons"])
            print(f"    {kind:10s} {len(fs)}/{len(names)} photos with a face: occluded {k}/{len(fs)} = {100 * k / max(len(fs), 1):.1f} %")


def devsets_occluded(binary, work, detector):
    """Every face found in the dev sets' originals (uncovered but for a few
    in the crowds), --min-face 24: the share with occluded."""
    for name, src in (("devset", DEVSET), ("people", PEOPLE)):
        found = faces(binary, src, os.path.join(work, "out", detector, "occluded-" + name), detector, min_face=24)
        fs = [o for v in found.values() for o in v if o.get("occlusion")]
        k = [o for o in fs if "occluded" in o["quality_reasons"]]
        print(f"== occluded on {name} ({detector}, --min-face 24): {len(k)}/{len(fs)} faces = {100 * len(k) / max(len(fs), 1):.1f} %"
              + "".join(f"\n    {o['source']} face {o['face']}: {o['occlusion']}" for o in k))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=".build/release/facecrop")
    ap.add_argument("--work", default="/work/qdata")
    ap.add_argument("--detector", default="cascade")
    ap.add_argument("--sets", default="devset,people", help="of devset, people, fixtures (Fixtures/faces and people)")
    ap.add_argument("--skip", default="", help="kinds of copy to leave out, e.g. devset:shrunk,people:mirror")
    ap.add_argument("--eyes", default="", help="a folder of closed/ and open/ eyed faces: the eye measure's figures")
    ap.add_argument("--occluded", default="", help="a folder of sunglasses/, mask/ and open/ faces: the occluded figures")
    args = ap.parse_args()
    binary = os.path.abspath(args.bin)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sources = {"devset": [DEVSET], "people": [PEOPLE], "fixtures": [os.path.join(here, "Fixtures", f) for f in ("faces", "people")]}
    kinds = ["original", "mirror"] + list(DEGRADATIONS)
    found = {}
    skip = set(args.skip.split(","))
    for set_name in filter(None, args.sets.split(",")):
        for kind in kinds:
            if f"{set_name}:{kind}" in skip:
                found[set_name, kind] = {}
                continue
            folder = os.path.join(args.work, "photos", set_name, kind)
            for src in sources[set_name]:
                make_copies(src, folder, kind)
            out = os.path.join(args.work, "out", args.detector, set_name, kind)
            found[set_name, kind] = faces(binary, folder, out, args.detector)

    def part(set_name, which):
        orig = found[set_name, "original"]
        if set_name == "devset":
            keep = {s for s in orig if (zlib.crc32(s.encode()) % 2 == 0) == (which == "tune")}
            orig = {s: v for s, v in orig.items() if s in keep}
        return {k: pairs(orig, found[set_name, k]) for k in DEGRADATIONS}, pairs(orig, found[set_name, "mirror"], True), orig

    titles = {"devset": ["devset tune half (tuned on)", "devset held-out half"], "people": ["people-devset (tuned on)"],
              "fixtures": ["Fixtures/faces and Fixtures/people (not tuned on)"]}
    parts_ = {}
    for set_name in filter(None, args.sets.split(",")):
        if set_name == "devset":
            parts_[titles["devset"][0]] = part("devset", "tune")
            parts_[titles["devset"][1]] = part("devset", "held")
        else:
            parts_[titles[set_name][0]] = part(set_name, "all")
    constants = None
    # The binary's own face_quality and quality_reasons are the formula above with DEFAULTS.
    faces_all = [f for v in found.values() for fs in v.values() for f in fs]
    off = sum(1 for f in faces_all if abs(round(score(f, DEFAULTS), 4) - f["face_quality"]) > 1e-4 or reasons(f, DEFAULTS) != f["quality_reasons"])
    print(f"face_quality and quality_reasons as the formula with DEFAULTS gives them: {len(faces_all) - off}/{len(faces_all)} faces")
    for title, (by_kind, mirrored, orig) in parts_.items():
        report(title, by_kind, mirrored, orig, constants, args.detector)
    if args.eyes:
        eyes_report(binary, args.eyes, args.work, args.detector)
    if args.occluded:
        occluded_report(binary, args.occluded, args.work, args.detector)
        devsets_occluded(binary, args.work, args.detector)


if __name__ == "__main__":
    main()
