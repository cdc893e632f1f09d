"""`scripts/bench --sizes`: facecrop's memory and time on large photos.

Photos of 12, 48 and 100 MP, each as JPEG q90, PNG, TIFF 8-bit and TIFF
16-bit, rendered from a real fixture photo (Fixtures/faces/two-people.jpg,
two faces) resized with vips to cover the frame, with Gaussian grain as
scripts/bench-corpus adds (sigma 4 in 8 bits; the 16-bit TIFF gets its own
grain, sigma 64 in 16 bits, so its low bits are not a copy of the high
ones). Plus a folder of ten 48 MP 16-bit TIFFs (hard links to one file).
All cached in bench-out/sizes/ (git-ignored).

For every file, one after the other in one run (the machine's load changes
from minute to minute, so only ratios within one run mean much):
  before     the --baseline binary: `facecrop FILE -o OUT --jobs 2 --quiet --json`
  after      the --facecrop binary, the same command
  vipsthumbnail  `vipsthumbnail FILE -s 1024 -o OUT.jpg[Q=90]`: libvips' own
             shrink-on-load decode to the detection size (libvips-tools;
             installed with apt-get when missing)
  detect     `facecrop floor THUMBDIR --jobs 2 --min-face M` on that 1024 px
             thumbnail: one detection pass with facecrop's default detector,
             in its own process (start, detectors loaded, a 1024 px JPEG
             decoded, detected), as `after` starts and loads them too. M =
             floor(48 x 1024 / long side): the default --min-face 48 is in
             pixels of the photo, so `after` looks for faces down to M px in
             its 1024 px detection copy; the thumbnail is searched for the
             same (with the default 48 it would skip the smaller windows and
             do about half the work: 0.38 against 0.70 s CPU at 12 MP)
Each under /usr/bin/time -v (peak RSS = Maximum resident set size; CPU =
user + sys). The targets for `after`: peak RSS <= 200 MB, and time <=
1.5 x (vipsthumbnail + detect), shown as CPU time and as wall time. On a
shared, loaded machine CPU time is the fairer figure: wall time there is
mostly waiting for a core. --sizes-runs N (default 1) runs every command N
times and keeps the fastest (least CPU).
Large crops: the 48 MP PNG and TIFF 8-bit once more with `--size 1024`
(after only): crops that need more than the detection decode, so the photo
is read a second time, down to the crops' bottom row.
Writes bench-out/sizes-results.{json,md} and the plot bench-out/sizes.png
(copy it to docs/sizes.png for docs/measurements.md).
"""

import json
import os
import shutil
import subprocess
import sys

SIZES = {"12MP": (4000, 3000), "48MP": (8000, 6000), "100MP": (11648, 8736)}
FORMATS = {"jpeg": ".jpg[Q=90,strip]", "png": ".png[strip]", "tiff8": ".tif[strip]", "tiff16": ".tif[strip]"}
SOURCE = "two-people.jpg"
FOLDER_COUNT = 10
DETECT_SIDE = 1024  # facecrop's default --detect-size
MIN_FACE = 48  # facecrop's default --min-face, in pixels of the photo


def vips(*args):
    subprocess.run(["vips", *map(str, args)], check=True)


def render(repo, out_dir, name, w, h):
    """The 8-bit frame (a .v file) for size w x h: fixture covered, grain added."""
    frame = os.path.join(out_dir, f"{name}-frame.v")
    if os.path.exists(frame):
        return frame
    src = os.path.join(repo, "Fixtures", "faces", SOURCE)
    sw, sh = (int(subprocess.run(["vipsheader", "-f", f, src], capture_output=True, text=True,
                                 check=True).stdout) for f in ("width", "height"))
    scale = max(w / sw, h / sh)
    tmp = [os.path.join(out_dir, f".{name}-{i}.v") for i in range(4)]
    vips("resize", src, tmp[0], f"{scale:.6f}")
    vips("crop", tmp[0], tmp[1], 0, 0, w, h)
    vips("gaussnoise", tmp[2], w, h, "--sigma", 4, "--mean", 0)
    vips("add", tmp[1], tmp[2], tmp[3])
    vips("cast", tmp[3], frame[:-2] + ".part.v", "uchar")
    os.replace(frame[:-2] + ".part.v", frame)
    for t in tmp:
        os.remove(t)
    return frame


def make_photos(repo, out_dir, log):
    """{(size, format): path}, building what is missing."""
    os.makedirs(out_dir, exist_ok=True)
    photos = {}
    for size, (w, h) in SIZES.items():
        frame = None
        for fmt, suffix in FORMATS.items():
            path = os.path.join(out_dir, f"{size}-{fmt}{suffix.split('[')[0]}")
            photos[(size, fmt)] = path
            if os.path.exists(path):
                continue
            frame = frame or render(repo, out_dir, size, w, h)
            log(f"sizes: making {os.path.relpath(path, repo)}")
            part = path + ".part" + suffix.split("[")[0]
            if fmt == "tiff16":
                a, b, c = (os.path.join(out_dir, f".{size}-16-{i}.v") for i in range(3))
                vips("colourspace", frame, a, "rgb16")
                vips("gaussnoise", b, w, h, "--sigma", 64, "--mean", 0)
                vips("add", a, b, c)
                vips("cast", c, part, "ushort")  # clips to 0..65535; interpretation stays rgb16
                for t in (a, b, c):
                    os.remove(t)
            else:
                vips("copy", frame, part + suffix[len(suffix.split("[")[0]):])
            os.replace(part, path)
        if frame and os.path.exists(frame):
            os.remove(frame)
    folder = os.path.join(out_dir, f"folder-{FOLDER_COUNT}x48MP-tiff16")
    os.makedirs(folder, exist_ok=True)
    for i in range(FOLDER_COUNT):
        dst = os.path.join(folder, f"scan{i:02d}.tif")
        if not os.path.exists(dst):
            os.link(photos[("48MP", "tiff16")], dst)
    return photos, folder


def cpu(t):
    return t["user_s"] + t["sys_s"]


def best(timed, cmd, tag, runs, before_each=None):
    """The run of `cmd` (of `runs`) with the least CPU time."""
    kept = None
    for _ in range(max(1, runs)):
        if before_each:
            before_each()
        t, so, se = timed(cmd, tag)
        t["stderr"] = se.strip()[-300:]
        if kept is None or cpu(t) < cpu(kept):
            kept = t
    return kept


def measure(timed, fresh, out, name, before, after, target, thumb_dir, runs, folder=False, extra=()):
    """One row: before, after, vipsthumbnail and detect on `target`."""
    row = {"name": name, "file": target}
    if not folder:
        row["bytes"] = os.path.getsize(target)
    o = os.path.join(out, "run-sizes")
    for tag, binary in (("before", before), ("after", after)):
        if not binary:
            continue
        t = best(timed, [binary, target, "-o", o, "--jobs", "2", "--quiet", "--json", *extra], f"sizes-{tag}",
                 runs, lambda: fresh(o))
        t["ok"] = t["returncode"] == 0
        t["crops"] = sorted(f for f in os.listdir(o) if ".face" in f)
        row[tag] = t
    if folder or extra:
        return row
    thumb = os.path.join(fresh(thumb_dir), "thumb.jpg")
    row["vipsthumbnail"] = best(timed, ["vipsthumbnail", target, "-s", str(DETECT_SIDE), "-o", thumb + "[Q=90]"],
                                "sizes-thumb", runs)
    w, h = (int(subprocess.run(["vipsheader", "-f", f, target], capture_output=True, text=True, check=True).stdout)
            for f in ("width", "height"))
    row["min_face"] = MIN_FACE * DETECT_SIDE // max(w, h)
    row["detect"] = best(timed, [after or before, "floor", thumb_dir, "--jobs", "2", "--min-face", str(row["min_face"])],
                         "sizes-detect", runs)
    return row


def ratio(r, key, measure_of):
    if key not in r or "detect" not in r:
        return None
    return measure_of(r[key]) / (measure_of(r["vipsthumbnail"]) + measure_of(r["detect"]))


def wall(t):
    return t["wall_s"]


def table(rows):
    def mib(r, k):
        return f"{r[k]['max_rss_kb'] / 1024:.0f}" if k in r else "n/a"

    def secs(r, k, of):
        return f"{of(r[k]):.2f}" if k in r else ""

    def x(v, bold=False):
        return "" if v is None else f"**{v:.2f}x**" if bold else f"{v:.2f}x"

    lines = ["| photo | file MB | peak RSS before MiB | peak RSS after MiB | after CPU s | vipsthumbnail CPU s | "
             "detect CPU s | **after / (vipsthumbnail + detect), CPU** | before, CPU | after wall s | "
             "vipsthumbnail + detect wall s | after / reference, wall |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if "--size" in r["name"]:
            continue
        mb = f"{r['bytes'] / 1e6:.0f}" if "bytes" in r else ""
        ref_wall = f"{wall(r['vipsthumbnail']) + wall(r['detect']):.2f}" if "detect" in r else ""
        lines.append(f"| {r['name']} | {mb} | {mib(r, 'before')} | {mib(r, 'after')} | {secs(r, 'after', cpu)} | "
                     f"{secs(r, 'vipsthumbnail', cpu)} | {secs(r, 'detect', cpu)} | {x(ratio(r, 'after', cpu), bold=True)} | "
                     f"{x(ratio(r, 'before', cpu))} | {secs(r, 'after', wall)} | {ref_wall} | "
                     f"{x(ratio(r, 'after', wall))} |")
    return lines


def large_crops_table(rows):
    plain = {r["name"]: r for r in rows}
    lines = ["| photo | crops | after CPU s | after wall s | peak RSS MiB | CPU / same photo at --size 256 |",
             "| --- | --- | ---: | ---: | ---: | ---: |"]
    for r in rows:
        if "--size" not in r["name"] or "after" not in r:
            continue
        base = plain.get(r["name"].split(" --size")[0])
        rel = f"{cpu(r['after']) / cpu(base['after']):.2f}x" if base and "after" in base else ""
        lines.append(f"| {r['name'].split(' --size')[0]} | 1024 px | {cpu(r['after']):.2f} | {wall(r['after']):.2f} | "
                     f"{r['after']['max_rss_kb'] / 1024:.0f} | {rel} |")
    return lines if len(lines) > 2 else []


LARGE_CROPS = (("48MP", "png"), ("48MP", "tiff8"))


def ensure_vipsthumbnail(log):
    if shutil.which("vipsthumbnail"):
        return
    log("installing vipsthumbnail (apt-get install -y libvips-tools)")
    subprocess.run(["apt-get", "update", "-qq"], check=True)
    subprocess.run(["apt-get", "install", "-y", "-qq", "libvips-tools"], check=True)


def run(a, repo, out, timed, fresh, log, vpy, info):
    ensure_vipsthumbnail(log)
    sizes_dir = os.path.join(out, "sizes")
    photos, folder = make_photos(repo, sizes_dir, log)
    only = set(filter(None, (a.sizes_only or "").split(",")))
    runs = a.sizes_runs
    thumbs = os.path.join(out, "sizes-thumb")
    rows = []
    for (size, fmt), path in photos.items():
        name = f"{size} {fmt}"
        if only and size not in only and fmt not in only and name not in only:
            continue
        log(f"sizes: {name}")
        rows.append(measure(timed, fresh, out, name, a.baseline, info["snapshot"], path, thumbs, runs))
        log("  " + table(rows)[-1])
        if (size, fmt) in LARGE_CROPS:
            log(f"sizes: {name} --size 1024")
            rows.append(measure(timed, fresh, out, f"{name} --size 1024", None, info["snapshot"], path, thumbs,
                                runs, extra=("--size", "1024")))
        save(out, rows, info, a)
    if not only or "folder" in only:
        log(f"sizes: folder of {FOLDER_COUNT} x 48MP tiff16")
        rows.append(measure(timed, fresh, out, f"{FOLDER_COUNT} x 48MP tiff16 (folder)", a.baseline,
                            info["snapshot"], folder, None, runs, folder=True))
        save(out, rows, info, a)
    md = save(out, rows, info, a)
    print(md)
    subprocess.run([vpy, __file__, "plot", os.path.join(out, "sizes-results.json"),
                    os.path.join(out, "sizes.png")], check=True)
    log("wrote bench-out/sizes-results.md, .json and sizes.png")


def save(out, rows, info, a):
    head = (f"facecrop --jobs 2; before = {a.baseline or 'n/a'}, after = {info['binary']} "
            f"({info['git_head']}{' + uncommitted Sources' if info['sources_dirty'] else ''}); "
            f"one run, each file's commands back to back, the least CPU of {a.sizes_runs}; "
            f"load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores.")
    large = large_crops_table(rows)
    md = "\n".join(["## facecrop on large photos (scripts/bench --sizes)\n", head, "", *table(rows), "",
                    *(["Large crops (`--size 1024`: the photo is read again for the crops):", "", *large, ""]
                      if large else [])])
    with open(os.path.join(out, "sizes-results.md"), "w") as f:
        f.write(md)
    with open(os.path.join(out, "sizes-results.json"), "w") as f:
        json.dump({"facecrop": info, "baseline": a.baseline, "runs": a.sizes_runs, "rows": rows}, f, indent=1)
    return md


def plot(results, png):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(results) as f:
        rows = json.load(f)["rows"]
    rows = [r for r in rows if "--size" not in r["name"]]
    names = [r["name"].replace(" (folder)", "\n(folder)") for r in rows]
    x = range(len(rows))
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(12, 8), sharex=True)
    for off, key, label in ((-0.2, "before", "before (today's main)"), (0.2, "after", "after")):
        ys = [r[key]["max_rss_kb"] / 1024 if key in r else 0 for r in rows]
        ax1.bar([i + off for i in x], ys, width=0.4, label=label)
    ax1.axhline(200e6 / 2**20, color="red", linestyle="--", linewidth=1, label="target 200 MB")
    ax1.set_ylabel("peak RSS, MiB (--jobs 2)")
    ax1.set_yscale("log")
    ax1.legend()
    for off, key, label in ((-0.2, "before", "before"), (0.2, "after", "after")):
        ys = [ratio(r, key, cpu) or 0 for r in rows]
        ax2.bar([i + off for i in x], ys, width=0.4, label=label)
    ax2.axhline(1.5, color="red", linestyle="--", linewidth=1, label="target 1.5x")
    ax2.set_ylabel("CPU time / (vipsthumbnail + detect)")
    ax2.legend()
    ax2.set_xticks(list(x))
    ax2.set_xticklabels(names, rotation=45, ha="right", fontsize=8)
    fig.suptitle("facecrop on 12-100 MP photos: JPEG, PNG, TIFF 8/16-bit")
    fig.tight_layout()
    fig.savefig(png, dpi=90)


if __name__ == "__main__" and len(sys.argv) == 4 and sys.argv[1] == "plot":
    plot(sys.argv[2], sys.argv[3])
