#!/usr/bin/env python3
"""--people on photos the grouping was never tuned on: known people among strangers.

Usage: scripts/eval_people_heldout.py FACECROP_BINARY [--detectors cascade,haar,yunet,centerface] [--keep DIR]

The set is put together from files anyone can get on Debian 12 and PyPI
(nothing of it is in the repository but the Fixtures it names):

- known people, each in two photos or more:
  - Barack Obama: tests/test_images/obama{,2,3,_partial_face,_partial_face2}.jpg
    of the `face_recognition` 1.3.0 sdist (`pip download --no-deps
    --no-binary :all: face_recognition==1.3.0`, MIT);
  - Eileen Collins: Fixtures/faces/astronaut.jpg, astronaut-large.jpg, and
    the left half of two-people.jpg;
  - Grace Hopper: Fixtures/faces/grace_hopper.jpg and the right half of
    two-people.jpg (Fixtures/SOURCES.md gives their sources and licences);
- strangers, people who appear in no other photo of the set:
  - dlib's example photos, /usr/share/doc/libdlib19.1/examples/faces/*.jpg
    (Debian `libdlib-dev`; dogs.jpg left out), most of them groups;
  - insightface 2.1's sdist images t1.jpg (a group of six) and
    Tom_Hanks_54745.png (`pip download --no-deps --no-binary :all:
    insightface==2.1`, MIT);
  - face_recognition's biden.jpg (one photo: a stranger here);
  - Fixtures/people/expedition-1897.jpg and vtest-400.png, and
    eval-data/photos/messi5.jpg and bus.jpg (fetched by scripts/eval: Debian
    opencv-doc, the ultralytics wheel).

Each known photo's labelled face is its largest crop in the run (two-people.jpg:
its left face is Collins, its right Hopper); the other faces of known photos
are not scored. Every face of a stranger photo is a person of its own.

For each detector it runs `facecrop IN -o OUT --people --jobs 2 -q` (with
--model for yunet and centerface, from models/) and prints: crops, stranger
crops, stranger faces in a group, and the known people recovered (the group
holding most of a person's labelled faces holds two or more of them and no
other person's labelled face). The last line of each row is for scripts.
"""
import glob, json, os, shutil, subprocess, sys, tarfile, tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODELS = {"yunet": os.path.join(REPO, "models", "yunet-any.onnx"),
          "centerface": os.path.join(REPO, "models", "centerface-int8.onnx")}
DLIB_FACES = "/usr/share/doc/libdlib19.1/examples/faces"
EVAL_PHOTOS = os.path.join(REPO, "eval-data", "photos")


def sdist(package, version, folder):
    """The sdist of package==version unpacked in folder (pip download, then tar)."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    f"{package}=={version}", "-d", folder], check=True)
    archive = glob.glob(os.path.join(folder, f"{package.replace('-', '_')}-{version}.tar.gz")) + \
        glob.glob(os.path.join(folder, f"{package}-{version}.tar.gz"))
    with tarfile.open(archive[0]) as tar:
        tar.extractall(folder, filter="data")
    return os.path.join(folder, f"{package}-{version}")


def assemble(folder, downloads):
    known, strangers = os.path.join(folder, "known"), os.path.join(folder, "strangers")
    os.makedirs(known)
    os.makedirs(strangers)
    fr = os.path.join(sdist("face_recognition", "1.3.0", downloads), "tests", "test_images")
    for name in ["obama", "obama2", "obama3", "obama_partial_face", "obama_partial_face2"]:
        shutil.copy(os.path.join(fr, name + ".jpg"), os.path.join(known, f"obama_{name}.jpg"))
    shutil.copy(os.path.join(fr, "biden.jpg"), os.path.join(strangers, "fr_biden.jpg"))
    faces = os.path.join(REPO, "Fixtures", "faces")
    for name, label in [("astronaut", "collins"), ("astronaut-large", "collins"), ("grace_hopper", "hopper"),
                        ("two-people", "both")]:
        shutil.copy(os.path.join(faces, name + ".jpg"), os.path.join(known, f"{label}_{name}.jpg"))
    for path in sorted(glob.glob(os.path.join(DLIB_FACES, "*.jpg"))):
        if os.path.basename(path) != "dogs.jpg":
            shutil.copy(path, os.path.join(strangers, "dlib_" + os.path.basename(path)))
    images = os.path.join(sdist("insightface", "2.1", downloads), "insightface", "data", "images")
    shutil.copy(os.path.join(images, "t1.jpg"), os.path.join(strangers, "insightface_t1.jpg"))
    shutil.copy(os.path.join(images, "Tom_Hanks_54745.png"), os.path.join(strangers, "insightface_Tom_Hanks.png"))
    for path in [os.path.join(REPO, "Fixtures", "people", "expedition-1897.jpg"),
                 os.path.join(REPO, "Fixtures", "people", "vtest-400.png"), os.path.join(EVAL_PHOTOS, "messi5.jpg"),
                 os.path.join(EVAL_PHOTOS, "bus.jpg")]:
        shutil.copy(path, strangers)


def labelled(crops):
    """Known photos' labelled faces: {index in crops: person}."""
    by_photo = {}
    for index, crop in enumerate(crops):
        if crop["source"].startswith("known/"):
            by_photo.setdefault(crop["source"], []).append(index)
    labels = {}
    for source, indices in by_photo.items():
        person = os.path.basename(source).split("_")[0]
        if person == "both":
            for index in indices:
                x, _, w, _ = crops[index]["bbox"]
                if w >= 64:
                    labels[index] = "collins" if x + w / 2 < 512 else "hopper"
        else:
            labels[max(indices, key=lambda i: crops[i]["bbox"][2] * crops[i]["bbox"][3])] = person
    return labels


def score(manifest):
    crops = [line for line in map(json.loads, open(manifest)) if "bbox" in line and line.get("status") == "ok"]
    strangers = [c for c in crops if c["source"].startswith("strangers/")]
    merged = sum(1 for c in strangers if c.get("person") is not None)
    labels = labelled(crops)
    people = sorted(set(labels.values()))
    recovered = 0
    for person in people:
        mine = [i for i, p in labels.items() if p == person]
        groups = {}
        for i in mine:
            if crops[i].get("person") is not None:
                groups.setdefault(crops[i]["person"], []).append(i)
        if not groups:
            continue
        group, members = max(groups.items(), key=lambda item: (len(item[1]), item[0]))
        others = [i for i, p in labels.items() if p != person and crops[i].get("person") == group]
        recovered += len(members) >= 2 and not others
    return len(crops), len(strangers), merged, recovered, len(people)


def main():
    binary = sys.argv[1]
    detectors = ["cascade", "yunet", "centerface"]
    keep = None
    args = sys.argv[2:]
    while args:
        if args[0] == "--detectors":
            detectors = args[1].split(",")
        elif args[0] == "--keep":
            keep = args[1]
        args = args[2:]
    with tempfile.TemporaryDirectory() as tmp:
        photos = os.path.join(tmp, "in")
        assemble(photos, os.path.join(tmp, "downloads"))
        print("People not tuned on (known people among strangers):")
        print("detector | crops | stranger crops | strangers in a group | people recovered")
        for detector in detectors:
            out = os.path.join(keep or tmp, "out-" + detector)
            shutil.rmtree(out, ignore_errors=True)
            options = [] if detector == "cascade" else ["--detector", detector] + (
                ["--model", MODELS[detector]] if detector in MODELS else [])
            subprocess.run([binary, photos, "-o", out, "--people", "--jobs", "2", "-q"] + options, check=False)
            crops, stranger_crops, merged, recovered, people = score(os.path.join(out, "manifest.jsonl"))
            share = merged / stranger_crops if stranger_crops else 0
            print(f"{detector} | {crops} | {stranger_crops} | {merged}/{stranger_crops} ({share:.1%}) | "
                  f"{recovered}/{people}")


if __name__ == "__main__":
    main()
