"""autocrop through its Python API, one process for the whole corpus.

Run by scripts/bench with the bench-out/venv interpreter:
    bench-out/venv/bin/python scripts/bench_autocrop_api.py CORPUS OUTDIR

Walks CORPUS (sorted, recursively, .jpg/.jpeg/.png/.heic/.heif), and for each
photo does what autocrop's README shows for Python (autocrop 2.0.0):
    result = cropper.crop(path); Image.fromarray(result.image).save(out)
with one Cropper() (default settings: YuNet, 500x500 output) reused for every
photo. Prints one JSON line: photos, photos_with_face, faces (detections
reported in result.diagnostics.faces), errors (exceptions, e.g. HEIC, which
Pillow cannot open without a plugin), first error message.
"""

import json
import os
import sys
import time

from autocrop import Cropper
from PIL import Image

EXTENSIONS = {".jpg", ".jpeg", ".png", ".heic", ".heif"}


def photos(root):
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in sorted(filenames):
            if not name.startswith(".") and os.path.splitext(name)[1].lower() in EXTENSIONS:
                yield os.path.join(dirpath, name)


def main():
    corpus, outdir = sys.argv[1], sys.argv[2]
    t0 = time.perf_counter()
    cropper = Cropper()
    n = with_face = faces = errors = 0
    first_error = None
    for path in photos(corpus):
        n += 1
        try:
            result = cropper.crop(path)
        except Exception as exc:  # noqa: BLE001 - count and go on, like a batch job would
            errors += 1
            first_error = first_error or f"{os.path.basename(path)}: {type(exc).__name__}: {exc}"
            continue
        faces += len(result.diagnostics.faces)
        if result.image is not None:
            with_face += 1
            rel = os.path.relpath(path, corpus)
            out = os.path.join(outdir, os.path.splitext(rel)[0] + ".jpg")
            os.makedirs(os.path.dirname(out), exist_ok=True)
            Image.fromarray(result.image).save(out)
    print(json.dumps({"photos": n, "photos_with_face": with_face, "faces": faces, "errors": errors,
                      "first_error": first_error, "elapsed_s": round(time.perf_counter() - t0, 3)}))


if __name__ == "__main__":
    main()
