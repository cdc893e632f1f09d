#!/usr/bin/env python3
"""The 1024 px crowd check on the development set (scripts/eval): the dev
photos tiled four to a mosaic (2 x 2, 832 px) and enlarged to 1024 px with
libvips (`vips` command), faces >= 29.5 px, written to a temporary folder
(never into the repository); truth and ignore boxes moved and scaled with
them. Runs facecrop on the mosaics with the given options and prints the
dev-set row (scripts/eval_devset.py) for them.

    scripts/eval_crowd.py DEVSET FACECROP NAME [facecrop options...]
"""
import json, os, subprocess, sys, tempfile, time

SIDE, TILE = 1024, 416


def build(devset, folder):
    truth = json.load(open(os.path.join(devset, "truth.json")))
    ignore = json.load(open(os.path.join(devset, "ignore.json")))
    names = sorted(truth)
    scale = SIDE / (2 * TILE)
    out_truth, out_ignore = {}, {}
    os.makedirs(os.path.join(folder, "images"))
    for k in range(0, len(names), 4):
        group = names[k:k + 4]
        mosaic = f"mosaic{k // 4:02d}.jpg"
        joined = os.path.join(folder, "joined.v")
        subprocess.run(["vips", "arrayjoin", " ".join(os.path.join(devset, "images", n) for n in group), joined,
                        "--across", "2"], check=True)
        subprocess.run(["vips", "resize", joined, os.path.join(folder, "images", mosaic) + "[Q=95]", str(scale),
                        "--kernel", "cubic"], check=True)
        os.remove(joined)
        moved = lambda boxes, j: [[(b[0] + j % 2 * TILE) * scale, (b[1] + j // 2 * TILE) * scale, b[2] * scale,
                                   b[3] * scale] for b in boxes]
        out_truth[mosaic] = [b for j, n in enumerate(group) for b in moved(truth[n], j)]
        out_ignore[mosaic] = [b for j, n in enumerate(group) for b in moved(ignore.get(n, []), j)]
    json.dump(out_truth, open(os.path.join(folder, "truth.json"), "w"))
    json.dump(out_ignore, open(os.path.join(folder, "ignore.json"), "w"))
    os.symlink(os.path.join(devset, "score.py"), os.path.join(folder, "score.py"))


def main():
    devset, facecrop, name, options = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory() as tmp:
        crowd = os.path.join(tmp, "crowd")
        build(devset, crowd)
        out = os.path.join(tmp, "out")
        start = time.time()
        subprocess.run([facecrop, os.path.join(crowd, "images"), "-o", out, "-q", "--jobs", "2", *options])
        seconds = time.time() - start
        subprocess.run([sys.executable, os.path.join(here, "eval_devset.py"), crowd, os.path.join(out, "manifest.jsonl"),
                        "--name", name, "--seconds", str(seconds)], check=True)


if __name__ == "__main__":
    main()
