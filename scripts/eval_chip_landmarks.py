#!/usr/bin/env python3
"""Which five points make --people's dlib chip: dlib's 5-point predictor on
the face box (the default) or the detector's own (FACECROP_CHIP_LANDMARKS=detector),
compared on descriptor distances, for --detector yunet and centerface.

Usage: scripts/eval_chip_landmarks.py PEOPLE_DEVSET DEVSET FACECROP_BINARY

1. The people dev set (tuned on) with DEVSET's photos as strangers, --min-face 20:
   distances between the labelled faces (the largest face of each photo, matched
   to truth.json's box by IoU > 0.5) of one person and of two, and from each
   labelled face to its nearest stranger.
2. Fixtures basketball1.png / basketball2.png (two frames of one scene, not tuned
   on) with astronaut.jpg: the faces matched across the frames by box overlap,
   their size, distance and people.
The grouping figures themselves come from scripts/eval_people.py --detectors.
"""
import json, os, shutil, subprocess, sys, tempfile
import numpy as np

devset, strangers, binary = sys.argv[1:4]
repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
truth = json.load(open(os.path.join(devset, "truth.json")))
detectors = [("yunet", "yunet-any.onnx"), ("centerface", "centerface-int8.onnx")]


def iou(p, q):
    x1, y1, x2, y2 = max(p[0], q[0]), max(p[1], q[1]), min(p[0] + p[2], q[0] + q[2]), min(p[1] + p[3], q[1] + q[3])
    i = max(0, x2 - x1) * max(0, y2 - y1)
    return i / (p[2] * p[3] + q[2] * q[3] - i)


def run(photos, out, detector, model, mode):
    env = dict(os.environ)
    env.pop("FACECROP_CHIP_LANDMARKS", None)
    if mode == "detector":
        env["FACECROP_CHIP_LANDMARKS"] = "detector"
    subprocess.run([binary, photos, "-o", out, "-q", "--jobs", "2", "--people", "--min-face", "20", "--detector",
                    detector, "--model", os.path.join(repo, "models", model)], env=env, check=False)
    faces = [json.loads(l) for l in open(os.path.join(out, "manifest.jsonl"))]
    return [f for f in faces if f.get("embedding") is not None], np.load(os.path.join(out, "embeddings.npy"))


with tempfile.TemporaryDirectory() as tmp:
    photos = os.path.join(tmp, "in")
    shutil.copytree(os.path.join(devset, "images"), os.path.join(photos, "people"))
    shutil.copytree(os.path.join(strangers, "images"), os.path.join(photos, "strangers"))
    pair = os.path.join(tmp, "pair")
    os.makedirs(pair)
    for name in ["people/basketball1.png", "same-person/basketball2.png", "faces/astronaut.jpg"]:
        shutil.copy(os.path.join(repo, "Fixtures", name), pair)
    print("detector chip | labelled | same person mean / max | other people min / mean | nearest stranger min / median")
    for detector, model in detectors:
        for mode in ["predictor", "detector"]:
            faces, emb = run(photos, os.path.join(tmp, f"{detector}-{mode}"), detector, model, mode)
            labelled, others = [], []
            for f in faces:
                known = truth.get(f["source"][len("people/"):]) if f["source"].startswith("people/") else None
                if known and iou(f["bbox"], known[0]["bbox"]) > 0.5:
                    labelled.append((known[0]["person"], emb[f["embedding"]]))
                elif f["source"].startswith("strangers/"):
                    others.append(emb[f["embedding"]])
            same, other = [], []
            for i in range(len(labelled)):
                for j in range(i + 1, len(labelled)):
                    d = float(np.linalg.norm(labelled[i][1] - labelled[j][1]))
                    (same if labelled[i][0] == labelled[j][0] else other).append(d)
            near = [float(np.min(np.linalg.norm(np.array(others) - v, axis=1))) for _, v in labelled]
            print(f"{detector} {mode} | {len(labelled)} | {np.mean(same):.3f} / {max(same):.3f} | "
                  f"{min(other):.3f} / {np.mean(other):.3f} | {min(near):.3f} / {np.median(near):.3f}")
    print()
    print("detector chip | basketball faces matched across the frames: shorter box side, distance, people | astronaut's person")
    for detector, model in detectors:
        for mode in ["predictor", "detector"]:
            faces, emb = run(pair, os.path.join(tmp, f"pair-{detector}-{mode}"), detector, model, mode)
            a = [f for f in faces if f["source"] == "basketball1.png"]
            b = [f for f in faces if f["source"] == "basketball2.png"]
            matched = []
            for f in a:
                g = max(b, key=lambda g: iou(f["bbox"], g["bbox"]), default=None)
                if g and iou(f["bbox"], g["bbox"]) > 0.3:
                    d = float(np.linalg.norm(emb[f["embedding"]] - emb[g["embedding"]]))
                    matched.append(f"{min(f['bbox'][2:])} px {d:.3f} {f.get('person')}/{g.get('person')}")
            astronaut = [f.get("person") for f in faces if f["source"] == "astronaut.jpg"]
            print(f"{detector} {mode} | {'; '.join(matched) or 'none'} | {astronaut}")
