"""The loaders' test (run by scripts/test-loaders, which installs the packages).

Makes a dataset from Fixtures/ (faces, a photo without a face, an animated
GIF, a JPEG XL) with the real facecrop binary, then reads it as training code does:
Hugging Face `datasets` (the dataset card and metadata.jsonl, with photos
and folders named with split words, and a `facecrop pick` folder), `webdataset` over the exported
shards, the three snippets of docs/manual.md, and a DVC pipeline. Prints
'N passed, M failed' and exits 1 on any failure.
"""

import filecmp
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.argv[1]).resolve()
VENV_BIN = Path(sys.executable).parent
results = {"passed": 0, "failed": 0}


def check(condition, what):
    results["passed" if condition else "failed"] += 1
    if not condition:
        print(f"FAIL: {what}", file=sys.stderr)
    return condition


def run(command, cwd=None, env=None):
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"$ {' '.join(map(str, command))}\n{done.stdout}{done.stderr}", file=sys.stderr)
    return done


def key_for(crop):
    """The documented key rule, written again here: the crop path without
    its extension, with %, / and . percent-encoded."""
    stem, ext = crop.rsplit(".", 1)
    return stem.replace("%", "%25").replace("/", "%2F").replace(".", "%2E"), ext.lower()


def make_dataset(work):
    photos = work / "photos"
    for folder in ["faces", "extra-formats"]:
        shutil.copytree(ROOT / "Fixtures" / folder, photos / folder)
    shutil.copy(ROOT / "Fixtures" / "noface" / "coffee.jpg", photos / "coffee.jpg")
    out = work / "out"
    done = run([BIN, photos, "-o", out, "-q"])
    check(done.returncode == 0, "facecrop makes the dataset")
    manifest = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    ok = [line for line in manifest if line["status"] == "ok"]
    check(len(ok) >= 6 and len(ok) < len(manifest), f"the dataset has crops and photos without ({len(ok)}/{len(manifest)})")
    return out, ok


def test_hugging_face(out, ok):
    import datasets
    import numpy
    from PIL import Image

    faces = datasets.load_dataset(str(out), split="train")
    check(len(faces) == len(ok), f"datasets: {len(faces)} rows, {len(ok)} ok crops")
    # Without the card: `imagefolder` on the folder guesses splits from the
    # words in its paths, and these have none.
    plain = datasets.load_dataset("imagefolder", data_dir=str(out), split="train")
    check(plain["crop"] == faces["crop"], "imagefolder with data_dir gives the same rows here")
    paths = faces.cast_column("image", datasets.Image(decode=False))["image"]
    for index, line in enumerate(ok):
        row = faces[index]
        for field, value in line.items():
            check(row[field] == value, f"datasets row {index}: {field} {row[field]!r} == {value!r}")
        crop = out / line["crop"]
        check(Path(paths[index]["path"]).resolve() == crop.resolve(), f"datasets row {index} is {crop}")
        with Image.open(crop) as image:
            same = numpy.array_equal(numpy.asarray(row["image"]), numpy.asarray(image))
        check(same, f"datasets row {index}: the image's pixels are the crop's")
    check(isinstance(faces[0]["bbox"], list) and isinstance(faces[0]["score"], float), "bbox is a list, score a number")


def test_pick(out, work):
    """`load_dataset(PICK)` on a `facecrop pick` folder: a row per picked
    crop, with its pixels as `image` and its caption file as `text`."""
    import datasets
    import numpy
    from PIL import Image

    pick = work / "picked"
    check(run([BIN, "pick", out, pick, "--count", "3", "-q"]).returncode == 0, "facecrop pick writes a folder")
    rows = [json.loads(line) for line in (pick / "metadata.jsonl").read_text().splitlines()]
    picked = datasets.load_dataset(str(pick), split="train")
    check(len(rows) >= 2 and len(picked) == len(rows), f"pick: {len(picked)} rows, {len(rows)} picked crops")
    check({"image", "text", "source", "score"} <= set(picked.column_names), f"pick: columns {picked.column_names}")
    for index, line in enumerate(rows[: len(picked)]):
        row = picked[index]
        caption = (pick / line["file_name"]).with_suffix(".txt").read_text().rstrip("\n")
        check(row["text"] == line["text"] == caption, f"pick row {index}: text {row['text']!r} is the caption {caption!r}")
        with Image.open(pick / line["file_name"]) as image:
            same = numpy.array_equal(numpy.asarray(row["image"]), numpy.asarray(image))
        check(same, f"pick row {index}: the image's pixels are {line['file_name']}'s")


SPLIT_WORDS = ["test", "train", "valid", "dev", "eval", "testing"]


def make_named_dataset(work, extra):
    """Photos in folders and files named with the words `datasets` takes
    splits from: test/train.jpg, train/valid.jpg, ... (each a fixture)."""
    photos = work / "named-photos"
    faces = sorted((ROOT / "Fixtures" / "faces").iterdir())
    for index, word in enumerate(SPLIT_WORDS):
        folder = photos / word
        folder.mkdir(parents=True, exist_ok=True)
        for offset, name in enumerate([SPLIT_WORDS[(index + 1) % len(SPLIT_WORDS)], f"{word}-{index}"]):
            shutil.copy(faces[(index + offset) % len(faces)], folder / f"{name}.jpg")
    out = work / ("named-out" + "".join(extra).replace("=", "").replace(",", "-").replace("--", "-"))
    check(run([BIN, photos, "-o", out, "-q", *extra]).returncode == 0, f"facecrop makes the named dataset {extra}")
    manifest = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    return out, [line for line in manifest if line["status"] == "ok"]


def test_split_words(work):
    """`load_dataset(out)` reads the dataset card: every crop, with every
    manifest column, in the declared splits, whatever the names."""
    import datasets
    from huggingface_hub import DatasetCard

    for extra in [[], ["--split", "train=50,dev=25,eval=25"], ["--split", "a=1,b=1"]]:
        out, ok = make_named_dataset(work, extra)
        check(len(ok) >= 10, f"{extra}: {len(ok)} crops")
        wanted = {}
        for line in ok:
            wanted.setdefault(line.get("split", "train"), []).append(line)
        card = DatasetCard.load(out / "README.md")
        configs = card.data.to_dict()["configs"]
        declared = [entry["split"] for entry in configs[0]["data_files"]]
        check(sorted(declared) == sorted(wanted), f"{extra}: the card declares {declared}, the crops are in {sorted(wanted)}")
        faces = datasets.load_dataset(str(out))
        check(sorted(faces) == sorted(wanted), f"{extra}: load_dataset gives the splits {sorted(faces)}")
        for split, lines in wanted.items():
            if split not in faces:
                continue
            rows = faces[split]
            check(len(rows) == len(lines), f"{extra}: {split} has {len(rows)} rows, {len(lines)} crops")
            columns = sorted(set(rows.column_names) - {"image"})
            check(columns == sorted(lines[0]), f"{extra}: {split}'s columns are the manifest's: {columns}")
            check(sorted(rows["crop"]) == sorted(line["crop"] for line in lines), f"{extra}: {split} has its own crops")
            check(rows[0]["image"].size[0] > 0, f"{extra}: {split}'s images decode")


def test_webdataset(out, ok, work):
    import webdataset as wds
    from PIL import Image

    shards = work / "wds"
    check(run([BIN, "export", "webdataset", out, shards, "--shard-size", "4", "-q"]).returncode == 0, "export webdataset")
    names = sorted(os.listdir(shards))
    check(names == [f"faces-{index:06d}.tar" for index in range((len(ok) + 3) // 4)], f"shards {names}")
    samples = list(wds.WebDataset([str(shards / name) for name in names], shardshuffle=False))
    check(len(samples) == len(ok), f"webdataset: {len(samples)} samples, {len(ok)} ok crops")
    for sample, line in zip(samples, ok):
        key, ext = key_for(line["crop"])
        check(sample["__key__"] == key and "." not in key, f"key {sample['__key__']} == {key}")
        check(sorted(k for k in sample if not k.startswith("__")) == sorted([ext, "json"]), f"{key}: members {list(sample)}")
        check(json.loads(sample["json"]) == line, f"{key}.json is its manifest line")
        check(sample[ext] == (out / line["crop"]).read_bytes(), f"{key}.{ext} is the crop file")
        with Image.open(io.BytesIO(sample[ext])) as image:
            image.load()
            check(min(image.size) > 0, f"{key}.{ext} decodes")
    again = work / "wds-again"
    run([BIN, "export", "webdataset", out, again, "--shard-size", "4", "-q"])
    same = all(filecmp.cmp(shards / name, again / name, shallow=False) for name in names)
    check(same and sorted(os.listdir(again)) == names, "a second export gives byte-identical shards")
    return shards


def test_snippets(out, ok, shards):
    readme = "".join(path.read_text() for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    for name, argument in [("pytorch_webdataset.py", shards), ("hf_datasets.py", out), ("manifest.py", out)]:
        snippet = ROOT / "docs" / "loaders" / name
        check(f"```python\n{snippet.read_text()}```\n" in readme, f"README.md or docs/*.md shows docs/loaders/{name} as it is")
        done = run([sys.executable, snippet, argument])
        first = done.stdout.split(";")[0]
        check(done.returncode == 0 and first == f"{len(ok)} crops", f"{name} reads {len(ok)} crops: {done.stdout.strip()}")
    for name in ["dvc.yaml", "params.yaml"]:
        text = (ROOT / "docs" / name).read_text()
        check(f"```yaml\n{text}```\n" in readme, f"README.md or docs/*.md shows docs/{name} as it is")


def test_dvc(work):
    repo = work / "dvc"
    repo.mkdir()
    for name in ["dvc.yaml", "params.yaml"]:
        shutil.copy(ROOT / "docs" / name, repo / name)
    shutil.copytree(ROOT / "Fixtures" / "faces", repo / "photos")
    env = dict(os.environ, PATH=f"{BIN.parent}:{VENV_BIN}:{os.environ['PATH']}", DVC_NO_ANALYTICS="1")
    dvc = lambda *arguments: run(["dvc", *arguments], cwd=repo, env=env)
    stats = repo / "faces" / "stats.json"
    check(dvc("init", "--no-scm", "-q").returncode == 0, "dvc init --no-scm")
    first = dvc("repro")
    check(first.returncode == 0 and "Running stage 'faces'" in first.stdout, "the first dvc repro runs facecrop")
    processed = json.loads(stats.read_text())["run"]["processed"]
    check(processed == 4, f"facecrop processed every photo ({processed})")
    before = stats.read_bytes()
    second = dvc("repro")
    check(second.returncode == 0 and "didn't change" in second.stdout, "a second dvc repro skips the stage")
    check(stats.read_bytes() == before, "... and facecrop did not run")
    shutil.copy(ROOT / "Fixtures" / "noface" / "coffee.jpg", repo / "photos" / "astronaut.jpg")
    third = dvc("repro")
    check(third.returncode == 0 and "Running stage 'faces'" in third.stdout, "dvc repro runs facecrop after a photo changed")
    run_stats = json.loads(stats.read_text())["run"]
    check(run_stats["processed"] == 1 and run_stats["reused"] == 3, f"facecrop processed only that photo: {run_stats}")
    status = dvc("status")
    check(status.returncode == 0 and "up to date" in status.stdout, f"dvc status is clean: {status.stdout.strip()}")
    check_run = run([BIN, "--config", "params.yaml", "photos", "-o", "faces", "--check", "-q"], cwd=repo)
    check(check_run.returncode == 0, "facecrop --check with the same params.yaml: up to date")


def main():
    started = time.monotonic()
    os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    with tempfile.TemporaryDirectory(prefix="facecrop-loaders-") as folder:
        work = Path(folder)
        os.environ["HF_HOME"] = str(work / "hf")  # no cache outside the test
        phases = []

        def timed(name, step, *arguments):
            begun = time.monotonic()
            value = step(*arguments)
            phases.append(f"{name} {time.monotonic() - begun:.1f}")
            return value

        out, ok = timed("facecrop", make_dataset, work)
        timed("datasets", test_hugging_face, out, ok)
        timed("pick", test_pick, out, work)
        timed("split words", test_split_words, work)
        shards = timed("webdataset", test_webdataset, out, ok, work)
        timed("snippets", test_snippets, out, ok, shards)
        timed("dvc", test_dvc, work)
    print(f"test-loaders: {time.monotonic() - started:.1f} s ({', '.join(phases)})", file=sys.stderr)
    print(f"{results['passed']} passed, {results['failed']} failed")
    sys.exit(1 if results["failed"] else 0)


if __name__ == "__main__":
    main()
