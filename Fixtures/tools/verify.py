#!/usr/bin/python3
"""Recompute Fixtures/expected.json and check the hand-assigned answers.

Decodes every image with the `vips` CLI (the same library facecrop uses),
applies the EXIF orientation (vips autorot), converts to 8-bit sRGB, and runs
OpenCV Haar cascades over a grid of detector settings. A fixture is accepted
only if haarcascade_frontalface_alt2 finds exactly the hand-assigned number of
faces under *every* setting. Needs Debian's python3-opencv (run with
/usr/bin/python3) and vips on PATH. Not run by CI.

usage: /usr/bin/python3 Fixtures/tools/verify.py [--write]
"""
import json, os, subprocess, sys, tempfile
import cv2

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.dirname(HERE)
CASCADES = "/usr/share/opencv4/haarcascades/"
TRUTH = {  # hand-assigned number of human frontal faces
    "faces/astronaut.jpg": 1, "faces/grace_hopper.jpg": 1,
    "faces/astronaut-large.jpg": 1, "faces/two-people.jpg": 2,
    "noface/coffee.jpg": 0, "noface/chelsea.jpg": 0,
    "noface/camera.jpg": 0, "noface/rocket.jpg": 0,
    **{f"rotated/astronaut-orient-{n}.jpg": 1 for n in range(1, 9)},
    "rotated/astronaut-sideways-notag.jpg": 0,
    "formats/astronaut-rgba.png": 1, "formats/astronaut-gray.jpg": 1,
    "formats/astronaut-gray16.png": 1, "formats/astronaut-png-named.jpg": 1,
    "formats/astronaut.webp": 1, "formats/astronaut.tif": 1,
    "formats/astronaut.heic": 1, "formats/astronaut.avif": 1,
    "formats/astronaut-upper.JPG": 1, "formats/astronaut-progressive.jpg": 1,
    "formats/astronaut-cmyk.jpg": 1,
}
BROKEN = ["broken/truncated.jpg", "broken/empty.jpg", "broken/notes.jpg",
          "broken/bad-crc.png", "broken/corrupt-idat.png", "broken/truncated.png", "broken/garbage.heic"]
CANON = dict(cascade="haarcascade_frontalface_alt2.xml", scaleFactor=1.1,
             minNeighbors=4, minSize=[48, 48], equalizeHist=True,
             maxLongSide=1024)


def vips(*a):
    return subprocess.run(["vips", *a], capture_output=True, text=True)


def decode(path, tmp, alpha="white"):
    """vips: autorot -> 8-bit sRGB -> alpha handled -> PNG; returns (gray, w, h, info)."""
    a, b, c = (os.path.join(tmp, n) for n in ("a.v", "b.v", "c.png"))
    r = vips("autorot", path, a)
    if r.returncode:
        raise RuntimeError(r.stderr.strip())
    vips("colourspace", a, b, "srgb").check_returncode()
    bands = int(subprocess.run(["vipsheader", "-f", "bands", b], capture_output=True, text=True).stdout)
    if bands == 4:
        if alpha == "ignore":
            vips("extract_band", b, c, "0", "--n", "3").check_returncode()
        else:
            bg = "255 255 255" if alpha == "white" else "0 0 0"
            d = os.path.join(tmp, "d.v")
            vips("flatten", b, d, "--background", bg).check_returncode()
            vips("cast", d, c, "uchar").check_returncode()
    else:
        vips("cast", b, c, "uchar").check_returncode()
    g = cv2.imread(c, cv2.IMREAD_GRAYSCALE | cv2.IMREAD_IGNORE_ORIENTATION)
    return g, g.shape[1], g.shape[0], bands


CAS = {k: cv2.CascadeClassifier(CASCADES + f"haarcascade_frontalface_{k}.xml") for k in ("alt2", "default")}


def detect(g, cascade, mn, eq, maxside):
    h, w = g.shape
    s = 1.0
    if maxside and max(h, w) > maxside:
        s = maxside / max(h, w)
        g = cv2.resize(g, (round(w * s), round(h * s)), interpolation=cv2.INTER_AREA)
    if eq:
        g = cv2.equalizeHist(g)
    r = CAS[cascade].detectMultiScale(g, scaleFactor=1.1, minNeighbors=mn, minSize=(48, 48))
    boxes = sorted([[round(v / s) for v in b] for b in r] if len(r) else [])
    return boxes


def iou(a, b):
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    iw = max(0, min(ax2, bx2) - max(a[0], b[0])); ih = max(0, min(ay2, by2) - max(a[1], b[1]))
    inter = iw * ih
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


def main():
    write = "--write" in sys.argv
    out, problems = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for rel, truth in TRUTH.items():
            p = os.path.join(FIX, rel)
            alphas = ["white", "black", "ignore"] if rel.endswith("rgba.png") else ["white"]
            counts = {"alt2": set(), "default": set()}
            alt2_runs = []
            for al in alphas:
                g, w, h, bands = decode(p, tmp, al)
                for casc in ("alt2", "default"):
                    for mn in (3, 4, 5):
                        for eq in (True, False):
                            for ms in (None, 1024):
                                bx = detect(g, casc, mn, eq, ms)
                                counts[casc].add(len(bx))
                                if casc == "alt2":
                                    alt2_runs.append(bx)
            g, w, h, bands = decode(p, tmp, "white")
            canon = detect(g, "alt2", 4, True, 1024)
            dflt = detect(g, "default", 4, True, 1024)
            ok = counts["alt2"] == {truth}
            if not ok:
                problems.append(f"{rel}: alt2 counts {sorted(counts['alt2'])} != {truth}")
            entry = {"faces": truth, "boxes": canon, "width": w, "height": h,
                     "boxes_default": dflt}
            if truth and ok:
                # worst IoU between a canonical box and its best match in any alt2 run
                entry["alt2_min_iou"] = round(min(max(iou(c, b) for b in run) for run in alt2_runs for c in canon), 3)
            if counts["default"] != {truth}:
                entry["default_counts_seen"] = sorted(counts["default"])
            out[rel] = entry
            print(f"{rel:40s} {w}x{h} bands={bands} truth={truth} alt2={sorted(counts['alt2'])} "
                  f"default={sorted(counts['default'])} boxes={canon} default_boxes={dflt}")
        for rel in BROKEN:
            p = os.path.join(FIX, rel)
            loads = {}
            for lvl in ("none", "truncated", "error", "warning"):
                r = vips("copy", f"{p}[fail_on={lvl}]", os.path.join(tmp, "x.png"))
                loads[lvl] = r.returncode == 0
            lenient = vips("copy", p, os.path.join(tmp, "x.png"))
            e = {"broken": True, "vips_loads_with_fail_on": loads}
            if lenient.returncode == 0:
                # what a detector sees if the tool ignores libvips' warnings
                g, w, h, _ = decode(p, tmp)
                e["if_loaded_leniently"] = {"width": w, "height": h,
                                            "faces": len(detect(g, "alt2", 4, True, 1024))}
            out[rel] = e
            print(f"{rel:40s} {e} | {lenient.stderr.strip()[:150]!r}")
    doc = {"_comment": "Known answers for Fixtures/. See SOURCES.md. Boxes are [x, y, w, h] in upright "
                       "(EXIF-orientation-applied) full-resolution pixels; 'boxes' from the canonical "
                       "detector settings in _detector, 'boxes_default' the same with "
                       "haarcascade_frontalface_default.xml. Regenerate with tools/verify.py --write.",
           "_detector": CANON, **out}
    if write:
        with open(os.path.join(FIX, "expected.json"), "w") as f:
            f.write("{\n" + ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}" for k, v in doc.items()) + "\n}\n")
    print("PROBLEMS:" if problems else "all alt2 answers unambiguous", *problems, sep="\n  ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
