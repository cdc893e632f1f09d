#!/usr/bin/env python3
"""people.txt on the people dev set (docs/names.md, Figures).

    python3 scripts/eval_names.py make  TRUTH MANIFEST DIR   # DIR/names.txt, DIR/corrections.txt
    python3 scripts/eval_names.py score TRUTH MANIFEST [--not DIR/corrections.txt]

`make` writes, from a --people run's manifest: names.txt, one `NAME = FACE`
per person of truth.json, through the face of their first photo (by file
name); corrections.txt, the same and one `not NAME: FACE` for the last photo
of each person with three or more faces found.

`score` matches the manifest's crops to truth faces (IoU >= 0.4, as the dev
set's score.py does) and prints how many truth faces carry their own name,
another name, an id or no person, how many stranger faces (strangers/) carry
a name, and, with --not, whether every face a `not` statement names is out
of that person.
"""
import collections
import json
import sys


def iou(a, b):
    iw = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    ih = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = iw * ih
    union = a[2] * a[3] + b[2] * b[3] - inter
    return inter / union if union else 0.0


def truth_faces(truth_path, manifest_path):
    truth = json.load(open(truth_path))
    faces, strangers = [], []
    for line in open(manifest_path):
        face = json.loads(line)
        if "crop" not in face:
            continue
        if face["source"].startswith("strangers/"):
            strangers.append(face)
            continue
        key = next((k for k in truth if face["source"].endswith("/" + k) or face["source"] == k), None)
        for labelled in truth.get(key, []):
            if iou(labelled["bbox"], face["bbox"]) >= 0.4:
                faces.append((labelled["person"], face))
    return faces, strangers


def handle(face):
    return f"{face['sha256']} {','.join(map(str, face['bbox']))}  # {face['source']} face {face['face']}"


def make(truth_path, manifest_path, folder):
    faces, _ = truth_faces(truth_path, manifest_path)
    faces.sort(key=lambda f: (f[0], f[1]["source"]))
    first, last, counts = {}, {}, collections.Counter(p for p, _ in faces)
    for person, face in faces:
        first.setdefault(person, face)
        last[person] = face
    names = ["# one name per person, through the face of their first photo"]
    names += [f"{person} = {handle(face)}" for person, face in first.items()]
    nots = ["# corrections: the last photo of each person with 3 or more faces is not them"]
    nots += [f"not {person}: {handle(last[person])}" for person in sorted(counts) if counts[person] >= 3]
    open(f"{folder}/names.txt", "w").write("\n".join(names) + "\n")
    open(f"{folder}/corrections.txt", "w").write("\n".join(names + nots) + "\n")


def score(truth_path, manifest_path, corrections=None):
    faces, strangers = truth_faces(truth_path, manifest_path)
    kinds = collections.Counter()
    for person, face in faces:
        got = face.get("person")
        kinds["own name" if got == person else "no person" if got is None
              else "an id" if got.startswith("person-") else "another name"] += 1
    named_strangers = sum(1 for f in strangers if f.get("person") and not f["person"].startswith("person-"))
    print(f"truth faces: {len(faces)}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    print(f"stranger faces: {len(strangers)}, named: {named_strangers}")
    if corrections:
        held = []
        for line in open(corrections):
            if line.startswith("not "):
                name, rest = line[4:].split(":", 1)
                sha, box = rest.split("#")[0].split()
                face = next(f for _, f in faces if f["sha256"] == sha and ",".join(map(str, f["bbox"])) == box)
                held.append(face.get("person") != name)
        print(f"not statements held: {sum(held)}/{len(held)}")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(*sys.argv[2:5])
    else:
        score(sys.argv[2], sys.argv[3], sys.argv[5] if len(sys.argv) > 5 and sys.argv[4] == "--not" else None)
