#!/usr/bin/env python3
"""--people on the people dev set (the set the grouping was tuned on).

Usage: scripts/eval_people.py PEOPLE_DEVSET DEVSET FACECROP_BINARY [--detectors D,D... | --floor]

With --floor, only the quality floor's measure: the people photos as they are,
and every stranger photo enlarged 3x (Lanczos 3), then in turn left so,
blurred (sigma 2), saved at JPEG quality 15 or darkened (x 0.4): soft faces of
64 px and more, which the size rule alone lets make people. Each detector
(cascade, yunet, centerface) runs with --people at its default settings. The
floor (PeopleRule.minCoreQuality) was chosen on these runs' descriptors.

With --detectors (e.g. haar,yunet,centerface), only part 1, and only the rows
`--detector D [--model models/...] --min-face 20`, each with the run's CPU time
(user + system of facecrop) per crop: how `FACECROP_CHIP_LANDMARKS=detector`
(in the environment, passed on to facecrop) was compared with the default.

1. Its README's measure: PEOPLE_DEVSET/images under people/ and DEVSET/images
   under strangers/ in one temporary input folder, facecrop --people run on it
   with three settings (default; --min-face 20; --detector yunet --min-face 20),
   each scored with PEOPLE_DEVSET/score.py (its summary line and counts).
2. How small a known face can be and still join its person: for each person
   with two or more photos, the first photo is shrunk (vips resize) so that its
   labelled face is S px (its box's shorter side), the others are kept as they
   are; a run per S (--min-face 16, so that detection is not what limits it)
   counts the shrunk faces whose person is the one most of that person's other
   photos have.
"""
import collections, json, os, resource, shutil, subprocess, sys, tempfile, time

devset, strangers, binary = sys.argv[1:4]
detectors = sys.argv[5].split(",") if len(sys.argv) > 5 and sys.argv[4] == "--detectors" else None
floor_only = sys.argv[4:5] == ["--floor"]
truth = json.load(open(os.path.join(devset, "truth.json")))
models = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models")
yunet = os.path.join(models, "yunet-any.onnx")
model_files = {"yunet": yunet, "centerface": os.path.join(models, "centerface-int8.onnx")}


def cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(photos, out, options):
    start = time.time()
    subprocess.run([binary, photos, "-o", out, "-q", "--jobs", "2", "--people"] + options, check=False)
    return time.time() - start


def score(out):
    text = subprocess.run(["python3", os.path.join(devset, "score.py"), "--truth", os.path.join(devset, "truth.json"),
                           "--manifest", os.path.join(out, "manifest.jsonl")], capture_output=True, text=True).stdout
    return text.strip().splitlines()


def degraded_strangers(folder):
    """The stranger photos enlarged 3x and degraded in turn (see --floor)."""
    os.makedirs(folder)
    for index, name in enumerate(sorted(os.listdir(os.path.join(strangers, "images")))):
        source = os.path.join(strangers, "images", name)
        target = os.path.join(folder, os.path.splitext(name)[0] + ".jpg")
        big = os.path.join(folder, "big.v")
        subprocess.run(["vips", "resize", source, big, "3", "--kernel", "lanczos3"], check=True)
        step = [["copy", big, target + "[Q=90]"], ["gaussblur", big, target + "[Q=90]", "2"],
                ["copy", big, target + "[Q=15]"], ["linear", big, target + "[Q=90]", "0.4", "0", "--uchar"]][index % 4]
        subprocess.run(["vips"] + step, check=True)
        os.remove(big)


def floor_rows(tmp):
    photos = os.path.join(tmp, "in")
    shutil.copytree(os.path.join(devset, "images"), os.path.join(photos, "people"))
    degraded_strangers(os.path.join(photos, "strangers"))
    print("People dev set (tuned on) with its strangers enlarged 3x and degraded (the quality floor's calibration):")
    print("detector | people recovered | pairwise P / R / F | strangers in a group")
    for detector in ["cascade", "yunet", "centerface"]:
        out = os.path.join(tmp, "out-" + detector)
        run(photos, out, [] if detector == "cascade" else ["--detector", detector, "--model", model_files[detector]])
        lines = score(out)
        recovered = lines[1].split(":")[1].split(" of")[0].strip()
        kv = dict(x.split("=") for x in lines[-1].split())
        merged = lines[3].split(":")[1].strip()
        print(f"{detector} | {recovered} | {kv['precision']} / {kv['recall']} / {kv['F']} | {merged} "
              f"({float(kv['strangers_merged']) * 100:.1f} %)")


if floor_only:
    with tempfile.TemporaryDirectory() as tmp:
        floor_rows(tmp)
    sys.exit(0)

with tempfile.TemporaryDirectory() as tmp:
    photos = os.path.join(tmp, "in")
    shutil.copytree(os.path.join(devset, "images"), os.path.join(photos, "people"))
    shutil.copytree(os.path.join(strangers, "images"), os.path.join(photos, "strangers"))
    print("People dev set (tuned on) with the detection dev set's photos as strangers:")
    print("setting | faces found | crops (strangers) | people recovered | pairwise P / R / F | BCubed "
          + ("P / R / F" if detectors else "F") + " | strangers in a group | s")
    settings = [("default", []), ("--min-face 20", ["--min-face", "20"]),
                ("yunet --min-face 20", ["--detector", "yunet", "--model", yunet, "--min-face", "20"])]
    if detectors:
        settings = [(f"{d} --min-face 20", ["--detector", d] + (["--model", model_files[d]] if d in model_files else [])
                     + ["--min-face", "20"]) for d in detectors]
        print("(and the CPU seconds of the run, user + system, per crop in ms, after the s)")
    for name, options in settings:
        out = os.path.join(tmp, "out-" + name.replace(" ", "_"))
        before = cpu()
        seconds = run(photos, out, options)
        used = cpu() - before
        lines = score(out)
        found = lines[0].split(";")[0].split(":")[1].strip()
        crops = lines[0].split(";")[1].split(":")[1].strip()
        recovered = lines[1].split(":")[1].split(" of")[0].strip()
        kv = dict(x.split("=") for x in lines[-1].split())
        bcubed = lines[2].split("BCubed:")[1].split()
        bf = bcubed[5] if not detectors else f"{bcubed[1]} / {bcubed[3]} / {bcubed[5]}"
        merged = lines[3].split(":")[1].strip()
        print(f"{name} | {found} | {crops} | {recovered} | {kv['precision']} / {kv['recall']} / {kv['F']} | {bf} | "
              f"{merged} ({float(kv['strangers_merged']) * 100:.1f} %) | {seconds:.0f}"
              + (f" | {used / max(1, int(crops.split()[0])) * 1000:.0f} ms/crop" if detectors else ""))
    if detectors:
        sys.exit(0)

    print()
    print("Smallest face that still joins its person (the person's first photo shrunk, the rest as they are):")
    by_person = collections.defaultdict(list)
    for source in sorted(truth):
        by_person[truth[source][0]["person"]].append(source)
    shrunk = {person: sources[0] for person, sources in by_person.items() if len(sources) >= 2}
    print("face px | joined its person | not found | in no group | in another group")
    for side in [96, 64, 48, 40, 32, 24, 20]:
        folder = os.path.join(tmp, f"small-{side}")
        os.makedirs(folder)
        for source in truth:
            target = os.path.join(folder, source)
            if source in shrunk.values():
                box = truth[source][0]["bbox"]
                factor = side / min(box[2], box[3])
                subprocess.run(["vips", "resize", os.path.join(devset, "images", source), target + ".png", str(factor)],
                               check=True)
            else:
                shutil.copy(os.path.join(devset, "images", source), target)
        out = os.path.join(tmp, f"small-out-{side}")
        run(folder, out, ["--min-face", "16"])
        faces = [json.loads(l) for l in open(os.path.join(out, "manifest.jsonl"))]
        first = {}
        for f in faces:
            if f.get("face") == 0:
                first[f["source"]] = f
        joined = missing = alone = other = 0
        for person, source in shrunk.items():
            mine = first.get(source + ".png")
            groups = collections.Counter(first[s].get("person") for s in by_person[person][1:] if s in first)
            group = groups.most_common(1)[0][0] if groups else None
            if mine is None:
                missing += 1
            elif mine.get("person") is None:
                alone += 1
            elif mine.get("person") == group:
                joined += 1
            else:
                other += 1
        print(f"{side} | {joined}/{len(shrunk)} | {missing} | {alone} | {other}")
