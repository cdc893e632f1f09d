#!/usr/bin/env python3
"""Turned and tilted faces: how many of the faces found upright are found
when the photo is stored turned by 90, 180 and 270 degrees (pixels turned,
EXIF stripped), and how many of those crops are upright; and how many are
found and levelled with --align level when the photo is rolled 45 degrees
on an upright canvas.

A photo's face is the largest one found on its upright copy. On a turned
copy it is found when a face's box centre lies within half its box of where
the upright face's centre goes; its crop is upright when the landmarks found on the
upright copy, mapped into the turned copy and through the crop's
`transform`, have the eyes level within 30 degrees and above the mouth (the
turned copy's own landmarks are not trusted: a network may give a turned
face the landmarks of an upright one). A face whose upright copy has no
landmarks (`haar`; the default cascades where they found no two eyes) is
judged by its crop instead: upright when the upright copy's crop, shrunk
to 24 x 24 grey levels, is nearer it as it is than turned by any quarter
(as TurnedFaceTests does). On the rolled copy such a face (no landmarks
upright) is judged by CenterFace's landmarks on the upright copy instead
(its largest face's, where its box centre lies within half the face's box
of the face's own), run by the same binary; the line says how many were.
Copies are made with libvips' command line into a
temporary folder.

    scripts/eval_turned.py [--misses] BIN PHOTOS... [-- facecrop options]

--misses also prints, for each turn, the photos whose face was not found
or whose crop is not upright.
"""
import json, math, os, subprocess, sys, tempfile

def run(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

def size(path):
    out = subprocess.run(["vipsheader", "-f", "width", path], capture_output=True, text=True, check=True).stdout
    h = subprocess.run(["vipsheader", "-f", "height", path], capture_output=True, text=True, check=True).stdout
    return int(out), int(h)

def faces(bin_, folder, out, options):
    run([bin_, folder, "-o", out, "-q", "--no-contact-sheet", "--no-report"] + options)
    by = {}
    for line in open(os.path.join(out, "manifest.jsonl")):
        o = json.loads(line)
        if "face" in o and o.get("status") == "ok":
            by.setdefault(o["source"], []).append(o)
    return by

def upright_in_crop(face, lm):
    """Whether `lm` (the face's landmarks on the upright copy, mapped into
    the turned copy) lie upright in the crop of `face`."""
    t = face.get("transform")
    if not t or not lm:
        return False
    def m(p):
        return (t[0][0] * p[0] + t[0][1] * p[1] + t[0][2], t[1][0] * p[0] + t[1][1] * p[1] + t[1][2])
    a, b = m(lm["left_eye"]), m(lm["right_eye"])
    if a[0] > b[0]:
        a, b = b, a
    mouth = m(((lm["mouth_left"][0] + lm["mouth_right"][0]) / 2, (lm["mouth_left"][1] + lm["mouth_right"][1]) / 2))
    level = abs(math.degrees(math.atan2(b[1] - a[1], b[0] - a[0]))) <= 30
    return level and mouth[1] > (a[1] + b[1]) / 2

def thumbnail(path, tmp):
    """The image at `path` as 24 x 24 grey levels (rows of ints)."""
    run(["vips", "thumbnail", path, f"{tmp}/thumb.v", "24", "--height", "24", "--size", "force"])
    run(["vips", "colourspace", f"{tmp}/thumb.v", f"{tmp}/thumb.pgm", "b-w"])
    data = open(f"{tmp}/thumb.pgm", "rb").read()[-24 * 24:]
    return [list(data[r * 24:(r + 1) * 24]) for r in range(24)]

def upright_by_crop(crop, reference, tmp):
    """Whether `crop` matches `reference` (the upright copy's crop) better
    as it is than turned by any quarter."""
    a, b = thumbnail(crop, tmp), thumbnail(reference, tmp)
    def turned(m):
        return [list(row) for row in zip(*m[::-1])]
    errors = []
    for _ in range(4):
        errors.append(sum(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)))
        a = turned(a)
    return errors[0] == min(errors)

def where(turn, p, w, h):
    """Pixel centre p of a w x h photo in the photo turned `turn` clockwise
    (libvips' rot; similarity about the centre for other angles)."""
    x, y = p
    if turn == 90: return (h - 1 - y, x)
    if turn == 180: return (w - 1 - x, h - 1 - y)
    if turn == 270: return (y, w - 1 - x)
    r = math.radians(turn)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    dx, dy = x - cx, y - cy
    qx, qy = dx * math.cos(r) - dy * math.sin(r), dx * math.sin(r) + dy * math.cos(r)
    W = w * abs(math.cos(r)) + h * abs(math.sin(r))
    H = w * abs(math.sin(r)) + h * abs(math.cos(r))
    return (qx + (W - 1) / 2, qy + (H - 1) / 2)

def main():
    args = sys.argv[1:]
    options = args[args.index("--") + 1:] if "--" in args else []
    args = args[:args.index("--")] if "--" in args else args
    misses = "--misses" in args
    args = [a for a in args if a != "--misses"]
    bin_, photos = args[0], args[1:]
    with tempfile.TemporaryDirectory(prefix="eval-turned-") as tmp:
        measure(bin_, photos, options, tmp, misses)

def measure(bin_, photos, options, tmp, misses=False):
    turns = [0, 90, 180, 270, 45]
    for turn in turns:
        os.makedirs(f"{tmp}/in{turn}")
    names = {}
    for i, photo in enumerate(photos):
        name = f"p{i:03d}.jpg"
        names[name] = photo
        run(["vips", "copy", photo, f"{tmp}/in0/{name}[strip]"])
        for turn in (90, 180, 270):
            run(["vips", "rot", f"{tmp}/in0/{name}", f"{tmp}/in{turn}/{name}[strip]", f"d{turn}"])
        run(["vips", "similarity", f"{tmp}/in0/{name}", f"{tmp}/in45/{name}[strip]", "--angle", "45"])
    found = {t: faces(bin_, f"{tmp}/in{t}", f"{tmp}/out{t}", options + (["--align", "level"] if t == 45 else [])) for t in turns}
    upright = {}
    for name in names:
        fs = found[0].get(name, [])
        if fs:
            upright[name] = max(fs, key=lambda f: f["bbox"][2] * f["bbox"][3])
    # Where the face has no landmarks upright: CenterFace's, to judge its levelled crop by.
    stand_in = {}
    if any(f.get("landmarks") is None for f in upright.values()):
        other = faces(bin_, f"{tmp}/in0", f"{tmp}/outcf", options + ["--detector", "centerface"])
        for name, face in upright.items():
            x, y, bw, bh = face["bbox"]
            near = [f for f in other.get(name, []) if f.get("landmarks")
                    and math.hypot(f["bbox"][0] + f["bbox"][2] / 2 - x - bw / 2, f["bbox"][1] + f["bbox"][3] / 2 - y - bh / 2) <= max(bw, bh) / 2]
            if face.get("landmarks") is None and near:
                stand_in[name] = max(near, key=lambda f: f["bbox"][2] * f["bbox"][3])["landmarks"]
    rows = []
    for turn in turns[1:]:
        hits = ups = judged = 0
        missed = []
        for name, face in upright.items():
            w, h = size(f"{tmp}/in0/{name}")
            x, y, bw, bh = face["bbox"]
            cx, cy = where(turn, (x + bw / 2 - 0.5, y + bh / 2 - 0.5), w, h)
            near = [f for f in found[turn].get(name, [])
                    if math.hypot(f["bbox"][0] + f["bbox"][2] / 2 - 0.5 - cx, f["bbox"][1] + f["bbox"][3] / 2 - 0.5 - cy) <= max(bw, bh) / 2]
            if near:
                hits += 1
                if face.get("landmarks") is None and turn != 45:
                    up = upright_by_crop(f"{tmp}/out{turn}/{near[0]['crop']}", f"{tmp}/out0/{face['crop']}", tmp)
                else:
                    lm = face.get("landmarks") or (stand_in.get(name) if turn == 45 else None) or {}
                    judged += turn == 45 and face.get("landmarks") is None and bool(lm)
                    marks = {k: where(turn, v, w, h) for k, v in lm.items()}
                    up = upright_in_crop(near[0], marks)
                ups += up
                if not up:
                    missed.append(f"{names[name]} (not upright)")
            else:
                missed.append(f"{names[name]} (not found)")
        rows.append((turn, hits, ups, judged))
        if misses:
            for m in missed:
                print(f"  turn {turn}: {m}")
    n = len(upright)
    print(f"upright: a face in {n} of {len(names)} photos")
    for turn, hits, ups, judged in rows:
        what = "rolled 45, --align level" if turn == 45 else f"turned {turn}"
        by = f" ({judged} found judged by CenterFace's landmarks upright)" if judged else ""
        print(f"{what}: found {hits} of {n}; crop upright {ups} of {hits}{by}")
    t = [r for r in rows if r[0] in (90, 180, 270)]
    print(f"turned 90/180/270: found {sum(r[1] for r in t)} of {3 * n}; upright {sum(r[2] for r in t)} of {sum(r[1] for r in t)}")

if __name__ == "__main__":
    main()
