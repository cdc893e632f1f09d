"""scripts/bench --video: how fast facecrop reads video, and its memory on 4K.

    scripts/bench --video [--facecrop BIN] [--seconds 60] [--runs 3] [--fps 1]
    scripts/bench --video --matrix [--baseline BIN] [--jobs 1,2] [--models DIR]

Makes two clips with ffmpeg from Fixtures portraits (into bench-out/video/,
once): 1080p30 H.264 of SECONDS (a slow pan across two people, with a cut to
a third every 10 s), and a 2160p30 H.264 clip of SECONDS/3. Runs
`facecrop CLIP -o OUT --jobs 2 --quiet --video-fps F` (default detector) on
each, R times, and samples the summed VmRSS of facecrop and its ffmpeg and
ffprobe children from /proc every 0.05 s. Prints, as medians: seconds of
video per second of wall time (x real time), CPU seconds (user+sys of the
whole tree, children included), and the peak RSS of facecrop alone and of
facecrop + ffmpeg. Writes bench-out/video-results.json.

--matrix: the 1080p clip with the default detector, yunet, centerface and
--video-keyframes, at each --jobs, then the 4K clip with the default
detector, each binary (--facecrop and, if given, --baseline) one after the
other for each row, so both see the same load; one run a row. Prints a
table and writes bench-out/video-matrix.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "bench-out")
F = os.path.join(REPO, "Fixtures")


def ff(*args):
    subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", *args], check=True)


def make_clip(path, width, height, seconds):
    if os.path.exists(path):
        return
    part = 10
    pieces = []
    for i in range(max(1, seconds // part)):
        photo = "faces/two-people.jpg" if i % 2 == 0 else "faces/grace_hopper.jpg"
        piece = f"{path}.{i}.mp4"
        # A pan: the photo scaled 1.25x the frame, the window moving across.
        ff("-loop", "1", "-t", str(part), "-i", os.path.join(F, photo), "-vf",
           f"scale={width * 5 // 4}:{height * 5 // 4}:force_original_aspect_ratio=increase,"
           f"crop={width}:{height}:(iw-{width})*t/{part}:(ih-{height})/2,fps=30,format=yuv420p",
           "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", piece)
        pieces.append(piece)
    listing = path + ".txt"
    with open(listing, "w") as f:
        f.writelines(f"file '{p}'\n" for p in pieces)
    ff("-f", "concat", "-safe", "0", "-i", listing, "-c", "copy", path)
    for p in pieces:
        os.unlink(p)
    os.unlink(listing)


def tree(pid):
    """pid and its descendants (children are listed per thread: facecrop
    starts ffmpeg from its worker threads)."""
    pids = [pid]
    for p in pids:
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    pids += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return pids


def rss(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(binary, clip, out, fps, jobs=2, extra=()):
    subprocess.run(["rm", "-rf", out])
    before = os.times()
    start = time.monotonic()
    proc = subprocess.Popen([binary, clip, "-o", out, "--jobs", str(jobs), "--quiet", "--json", "--video-fps", str(fps),
                             "--no-report", "--no-contact-sheet", *extra], stdout=subprocess.PIPE)
    own = both = 0
    while proc.poll() is None:
        mine = rss(proc.pid)
        own = max(own, mine)
        both = max(both, sum(rss(p) for p in tree(proc.pid)))
        time.sleep(0.05)
    wall = time.monotonic() - start
    after = os.times()
    stats = json.loads(proc.stdout.read())
    assert proc.returncode == 0, proc.returncode
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"wall_s": wall, "cpu_s": cpu, "rss_facecrop": own, "rss_with_ffmpeg": both, "faces": stats["faces"]}


def duration(clip):
    text = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", clip],
                          capture_output=True, text=True, check=True).stdout
    return float(text)


def matrix(a, folder):
    binaries = [("new", os.path.join(OUT, "facecrop-video.bin"))]
    if a.baseline:
        binaries.append(("base", os.path.join(OUT, "facecrop-video-base.bin")))
        subprocess.run(["cp", a.baseline, binaries[1][1]], check=True)
    models = a.models
    variants = {
        "default": [],
        "yunet": ["--detector", "yunet", "--model", os.path.join(models, "yunet-any.onnx")],
        "centerface": ["--detector", "centerface", "--model", os.path.join(models, "centerface-int8.onnx")],
        "keyframes": ["--video-keyframes"],
    }
    hd = os.path.join(folder, f"1080p30-{a.seconds}s.mp4")
    uhd = os.path.join(folder, f"2160p30-{max(10, a.seconds // 3)}s.mp4")
    make_clip(hd, 1920, 1080, a.seconds)
    make_clip(uhd, 3840, 2160, max(10, a.seconds // 3))
    rows = [(hd, v, j) for v in variants for j in a.jobs] + [(uhd, "default", j) for j in a.jobs]
    results = []
    print("| Clip | Detector | --jobs | Binary | Wall s | CPU s | Video s per wall s | Faces | RSS facecrop MB | RSS with ffmpeg MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for clip, variant, jobs in rows:
        seconds = duration(clip)
        for name, binary in binaries:
            r = measure(binary, clip, os.path.join(folder, "out"), a.fps, jobs, variants[variant])
            r.update(clip=os.path.basename(clip), variant=variant, jobs=jobs, binary=name, video_s=seconds)
            results.append(r)
            print(f"| {r['clip']} | {variant} | {jobs} | {name} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
                  f"{seconds / r['wall_s']:.1f} | {r['faces']} | {r['rss_facecrop'] / 1e6:.0f} | "
                  f"{r['rss_with_ffmpeg'] / 1e6:.0f} |", flush=True)
    with open(os.path.join(OUT, "video-matrix.json"), "w") as f:
        json.dump({"rows": results, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                   "load": os.getloadavg()}, f, indent=1)


def main(argv):
    ap = argparse.ArgumentParser(description="facecrop video benchmark; see scripts/bench_video.py")
    ap.add_argument("--video", action="store_true")
    ap.add_argument("--facecrop", default=os.environ.get("FACECROP", os.path.join(REPO, ".build/release/facecrop")))
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--fps", type=float, default=1)
    ap.add_argument("--matrix", action="store_true")
    ap.add_argument("--baseline")
    ap.add_argument("--jobs", type=lambda t: [int(x) for x in t.split(",")], default=[1, 2])
    ap.add_argument("--models", default=os.path.join(REPO, "models"))
    a = ap.parse_args(argv)
    folder = os.path.join(OUT, "video")
    os.makedirs(folder, exist_ok=True)
    binary = os.path.join(OUT, "facecrop-video.bin")
    subprocess.run(["cp", a.facecrop, binary], check=True)
    if a.matrix:
        return matrix(a, folder)
    clips = {"1080p30": (1920, 1080, a.seconds), "2160p30": (3840, 2160, max(10, a.seconds // 3))}
    results = {}
    for name, (w, h, s) in clips.items():
        clip = os.path.join(folder, f"{name}-{s}s.mp4")
        make_clip(clip, w, h, s)
        seconds = duration(clip)
        runs = [measure(binary, clip, os.path.join(folder, "out"), a.fps) for _ in range(a.runs)]
        med = lambda k: statistics.median(r[k] for r in runs)
        results[name] = {
            "video_s": seconds, "runs": runs, "x_real_time": seconds / med("wall_s"), "cpu_s": med("cpu_s"),
            "peak_rss_facecrop_mb": max(r["rss_facecrop"] for r in runs) / 1e6,
            "peak_rss_with_ffmpeg_mb": max(r["rss_with_ffmpeg"] for r in runs) / 1e6,
            "faces": runs[0]["faces"],
        }
        r = results[name]
        print(f"{name}: {seconds:.0f} s of video in {med('wall_s'):.2f} s (median of {a.runs}) = "
              f"{r['x_real_time']:.1f}x real time, CPU {r['cpu_s']:.1f} s, {r['faces']} faces; peak RSS "
              f"facecrop {r['peak_rss_facecrop_mb']:.0f} MB, with ffmpeg {r['peak_rss_with_ffmpeg_mb']:.0f} MB",
              flush=True)
    results["command"] = f"facecrop CLIP -o OUT --jobs 2 --quiet --json --video-fps {a.fps} --no-report --no-contact-sheet"
    results["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with open(os.path.join(OUT, "video-results.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
