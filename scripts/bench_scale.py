#!/usr/bin/env python3
"""facecrop's memory against the number of photos: `scripts/bench --scale`.

Usage (from the repository root):
    scripts/bench --scale [--scale-counts 10000,100000,1000000] [--process-counts 10000,100000]
                          [--facecrop PATH] [--tag NAME]

Builds, once, trees of N small real JPEGs under bench-out/scale/: 5,000 per
folder (d000/p0000.jpg ...), every file a hard link to one small JPEG per
folder (Fixtures/noface/coffee.jpg made 64 px wide with vipsthumbnail, all
with one fixed mtime). A million photos cost 200 small files and a million
directory entries (about 40 MB of folders), and take a minute to make.

For each N it measures, with /usr/bin/time -v (wall time, Maximum resident
set size):
  dry-run   `facecrop TREE -o EMPTY --dry-run` (every photo "new"; stdout to /dev/null)
  check     `facecrop TREE -o DONE --check`   (a finished dataset: up to date)
  rerun     `facecrop TREE -o DONE --quiet`   (nothing changed: every record kept)
  (with --no-report-rerun, the rerun again with --no-report: report.html
  lists every photo without a face, and every photo here has none)
DONE is a finished dataset for the tree. Processing a million photos takes
hours, so it is made the way a finished run leaves it: facecrop processes a
one-photo tree for real, and its state record and manifest line are repeated
for every photo with the source path changed. Every photo in the tree has
the same bytes and mtime as that one, so a rerun keeps every record.

With --process-counts 10000,100000 it also times real processing runs:
  process   `facecrop TREE -o EMPTY --quiet` (every photo hashed, decoded and
  searched for a face; none has one), into bench-out/scale-process-TAG.json.

Writes bench-out/scale-results-TAG.json, prints a Markdown table, and plots
every scale-results-*.json into docs/scale.png (matplotlib, in bench-out/venv).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "bench-out")
SCALE = os.path.join(OUT, "scale")
PER_FOLDER = 5000
MTIME = 1_700_000_000
RUNS = ("dry-run", "check", "rerun")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def base_photo():
    path = os.path.join(SCALE, "base.jpg")
    if not os.path.exists(path):
        os.makedirs(SCALE, exist_ok=True)
        src = os.path.join(REPO, "Fixtures", "noface", "coffee.jpg")
        subprocess.run(["vipsthumbnail", src, "--size", "64", "-o", path + "[Q=80,strip]"], check=True)
    return path


def make_tree(count):
    """The tree of `count` photos; made once (a marker file says it is complete)."""
    root = os.path.join(SCALE, f"tree-{count}")
    done = os.path.join(SCALE, f".tree-{count}.done")
    if os.path.exists(done):
        return root
    shutil.rmtree(root, ignore_errors=True)
    base = base_photo()
    bases = os.path.join(SCALE, f".bases-{count}")  # outside the tree: one inode per folder
    os.makedirs(bases, exist_ok=True)
    t0 = time.time()
    for folder in range((count + PER_FOLDER - 1) // PER_FOLDER):
        own = os.path.join(bases, f"b{folder:03d}.jpg")
        if not os.path.exists(own):
            shutil.copyfile(base, own)
            os.utime(own, (MTIME, MTIME))
        sub = os.path.join(root, f"d{folder:03d}")
        os.makedirs(sub)
        for i in range(min(PER_FOLDER, count - folder * PER_FOLDER)):
            os.link(own, os.path.join(sub, f"p{i:04d}.jpg"))
    open(done, "w").close()
    log(f"scale: made {count:,} links in {time.time() - t0:.0f}s")
    return root


def sources(count):
    for folder in range((count + PER_FOLDER - 1) // PER_FOLDER):
        for i in range(min(PER_FOLDER, count - folder * PER_FOLDER)):
            yield f"d{folder:03d}/p{i:04d}.jpg"


def template(fc):
    """A real run over one photo: the state header, record and manifest line."""
    tree = os.path.join(SCALE, "tree-1")
    if not os.path.exists(tree):
        os.makedirs(os.path.join(tree, "d000"))
        one = os.path.join(tree, "d000", "p0000.jpg")
        shutil.copyfile(base_photo(), one)
        os.utime(one, (MTIME, MTIME))
    out = os.path.join(SCALE, "template-out")
    shutil.rmtree(out, ignore_errors=True)
    subprocess.run([fc, tree, "-o", out, "--quiet"], check=True)
    with open(os.path.join(out, ".facecrop", "state.jsonl")) as f:
        header, record = f.read().splitlines()[:2]
    with open(os.path.join(out, "manifest.jsonl")) as f:
        manifest = f.read()
    return header, record, manifest


def finished_dataset(fc, count, tree):
    """An output folder as a finished run over `tree` leaves it (see the header)."""
    out = os.path.join(SCALE, f"done-{count}")
    header, record, manifest = template(fc)
    old = "d000/p0000.jpg"
    assert old in record and '"crops":[]' in record.replace(" ", ""), "the template photo must give no crop"
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, ".facecrop"))
    with open(os.path.join(out, ".facecrop", "state.jsonl"), "w") as state, \
            open(os.path.join(out, "manifest.jsonl"), "w") as lines:
        state.write(header + "\n")
        for source in sources(count):
            state.write(record.replace(old, source) + "\n")
            if manifest:
                lines.write(manifest.replace(old, source))
    return out


def timed(cmd):
    tfile = os.path.join(OUT, ".time-scale.txt")
    with open(os.devnull, "w") as null:
        p = subprocess.run(["/usr/bin/time", "-v", "-o", tfile, *cmd], stdout=null, stderr=subprocess.PIPE, text=True)
    with open(tfile) as f:
        text = f.read()
    field = lambda name: next(l.split(": ", 1)[1] for l in text.splitlines() if l.strip().startswith(name))
    wall = field("Elapsed (wall clock) time").strip().split(":")
    seconds = sum(float(x) * 60 ** i for i, x in enumerate(reversed(wall)))
    return {"wall_s": round(seconds, 2), "peak_rss_mib": round(int(field("Maximum resident set size")) / 1024, 1),
            "exit": p.returncode, "stderr": p.stderr.strip()[-300:]}


def measure(fc, count, no_report=False):
    tree = make_tree(count)
    done = finished_dataset(fc, count, tree)
    empty = os.path.join(SCALE, f"empty-{count}")
    shutil.rmtree(empty, ignore_errors=True)
    results = {}
    results["dry-run"] = timed([fc, tree, "-o", empty, "--dry-run"])
    results["check"] = timed([fc, tree, "-o", done, "--check"])
    results["rerun"] = timed([fc, tree, "-o", done, "--quiet"])
    if no_report:  # the same rerun without report.html, which lists every photo without a face
        done = finished_dataset(fc, count, tree)
        r = timed([fc, tree, "-o", done, "--quiet", "--no-report"])
        with open(os.path.join(OUT, f"scale-noreport-{count}.json"), "w") as f:
            json.dump(r, f)
        results["rerun --no-report"] = r
    for name, r in results.items():
        log(f"scale: {count:>9,} {name:8} {r['wall_s']:8.2f}s {r['peak_rss_mib']:8.1f} MiB exit {r['exit']}")
    shutil.rmtree(done, ignore_errors=True)
    return results


def measure_processing(fc, counts, tag):
    """Real runs over the whole tree, from an empty output folder."""
    results = {}
    for count in counts:
        tree = make_tree(count)
        out = os.path.join(SCALE, f"process-{count}")
        shutil.rmtree(out, ignore_errors=True)
        r = timed([fc, tree, "-o", out, "--quiet"])
        r["photos_per_s"] = round(count / r["wall_s"], 1) if r["wall_s"] else None
        log(f"scale: {count:>9,} process  {r['wall_s']:8.2f}s {r['peak_rss_mib']:8.1f} MiB exit {r['exit']}")
        shutil.rmtree(out, ignore_errors=True)
        results[count] = r
        with open(os.path.join(OUT, f"scale-process-{tag}.json"), "w") as f:
            json.dump({"tag": tag, "results": results}, f, indent=1)
    print("| photos | process s | photos/s | peak RSS MiB |\n| ---: | ---: | ---: | ---: |")
    for count, r in results.items():
        print(f"| {count:,} | {r['wall_s']:.1f} | {r['photos_per_s']} | {r['peak_rss_mib']:.1f} |")
    return results


def plot(path):
    vpy = os.path.join(OUT, "venv", "bin", "python")
    if not os.path.exists(vpy):
        subprocess.run([sys.executable, "-m", "venv", os.path.join(OUT, "venv")], check=True)
    if subprocess.run([vpy, "-c", "import matplotlib"], capture_output=True).returncode != 0:
        subprocess.run([vpy, "-m", "pip", "install", "-q", "matplotlib"], check=True)
    files = sorted(f for f in os.listdir(OUT) if f.startswith("scale-results-") and f.endswith(".json"))
    subprocess.run([vpy, os.path.join(REPO, "scripts", "bench_scale_plot.py"), path,
                    *[os.path.join(OUT, f) for f in files]], check=True)


def main(argv):
    ap = argparse.ArgumentParser(description="facecrop memory against library size; see the header of this file")
    ap.add_argument("--scale", action="store_true")
    ap.add_argument("--scale-counts", default="10000,100000,1000000")
    ap.add_argument("--facecrop", default=os.environ.get("FACECROP") or os.path.join(REPO, ".build", "release", "facecrop"))
    ap.add_argument("--tag", default="current", help="name of this binary in the results and the plot")
    ap.add_argument("--no-plot", action="store_true")
    ap.add_argument("--no-report-rerun", action="store_true", help="also time the rerun with --no-report")
    ap.add_argument("--process-counts", default="", help="also time real processing runs of these sizes")
    a = ap.parse_args(argv)
    os.makedirs(OUT, exist_ok=True)
    fc = os.path.join(OUT, f"facecrop-scale-{a.tag}.bin")
    shutil.copy2(a.facecrop, fc)  # a rebuild during the run does not change what is measured
    if a.process_counts:
        measure_processing(fc, [int(c) for c in a.process_counts.split(",")], a.tag)
    if not a.scale_counts:
        return
    counts = [int(c) for c in a.scale_counts.split(",")]
    results = {}
    for count in counts:
        results[count] = measure(fc, count, a.no_report_rerun)
        with open(os.path.join(OUT, f"scale-results-{a.tag}.json"), "w") as f:
            json.dump({"tag": a.tag, "binary": a.facecrop, "results": results}, f, indent=1)
    lines = [f"| photos | {' | '.join(f'{r} s | {r} MiB' for r in RUNS)} |", "|" + " ---: |" * (1 + 2 * len(RUNS))]
    for count, r in results.items():
        lines.append(f"| {count:,} | " + " | ".join(f"{r[n]['wall_s']:.2f} | {r[n]['peak_rss_mib']:.1f}" for n in RUNS) + " |")
    first, last = results[counts[0]], results[counts[-1]]
    lines += [""] + [f"peak RSS {counts[-1]:,} / {counts[0]:,}, {n}: "
                     f"{last[n]['peak_rss_mib'] / first[n]['peak_rss_mib']:.2f}x" for n in RUNS]
    print(f"## {a.tag}\n\n" + "\n".join(lines) + "\n")
    if not a.no_plot:
        plot(os.path.join(REPO, "docs", "scale.png"))


if __name__ == "__main__":
    main(sys.argv[1:])
