#!/usr/bin/env python3
"""Where a facecrop run's threads wait: runs the command given after `--`,
polls /proc/PID/task/*/ every 50 ms until it ends, and prints per thread
kind the time on a CPU, the time runnable but waiting for a CPU (the run
queue: what other processes' load inflates) and the time asleep (locks,
condition waits, I/O), from each thread's schedstat:

    asleep = lifetime - on CPU - run-queue wait

A thread's lifetime runs from its start (/proc stat's starttime) to the last
poll that saw it, so a thread that ends between polls loses up to 50 ms.
Load inflates the run-queue figure; on-CPU time stays what the threads
asked for. Sleep on the process's own I/O or on an idle pool is what a
quiet machine would see too, but a wait on another thread (a lock) grows
with load, since the holder's work is itself slowed by the queue: read lock
waits as shares of the run, not as seconds.

Each poll also counts the process's threads in state R (running or
runnable); "R < cores" is the share of polls with fewer runnable threads
than cores, the part of the run in which a quiet machine would have an idle
core whatever the load (--cores, default the machine's).

Thread kinds: libvips' threads by their name ("libvips worker"), the main
thread by its id, "idle" any thread on a CPU under 1 % of its life; ONNX
Runtime's intra-op pool inherits the name of the thread that made it (a
Dispatch thread), so gdb snapshots of every stack, taken --snapshot
seconds of the run in, name it: a thread whose outermost frames are in libonnxruntime.
The other Dispatch threads are "workers" (Dispatch runs the photos on any of
its threads). A snapshot stops the process for a few seconds; that
interval is taken out of the lifetime of every thread alive across it.

Where threads sleep: each poll reads a sleeping thread's
/proc/PID/task/TID/syscall; a futex wait names the word waited on, and the
snapshots name the words they see (CenterFace's lock, libvips, ONNX Runtime:
the first frame past libc's). A thread's sleep is shared out over its
polls' causes; words no thread waited on at a snapshot stay unnamed. Last,
for the polls with a core to spare, how often a thread of each kind was
asleep on each cause: what the idle core waits for.

A poll's count of runnable threads is not inflated by load either: the mean
of min(R, cores) / cores over the polls estimates the share of the cores a
quiet machine would keep busy (0.864 for CenterFace at --jobs 2 on the
12 MP corpus, under load 10-18; the quiet bench measured 86 %).

    scripts/thread_waits.py [--snapshot 5,15,25] [--json OUT.json] -- \\
        BIN bench-out/corpus-real-26 -o /tmp/out --jobs 2 --quiet --json \\
        --detector centerface --model models/centerface-int8.onnx

With --by-thread, one line per thread as well.
"""
import argparse, json, os, re, subprocess, sys, time

TICK = os.sysconf("SC_CLK_TCK")
FUTEX = re.compile(r"futex(?:_word)?=(?:\w+@entry=)?(0x[0-9a-f]+)")


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def boot_time():
    for line in open("/proc/stat"):
        if line.startswith("btime"):
            return int(line.split()[1])
    return 0


def thread_start(stat):
    # Fields after the ")" of comm: state is field 3, starttime field 22.
    rest = stat.rsplit(")", 1)[1].split()
    return rest[0], int(rest[19]) / TICK


def poll(pid, threads, now):
    """One look at every thread: the number in state R, and (thread, what it waits on) for those asleep."""
    runnable, asleep = 0, []
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None, []
    status, stat = read(f"/proc/{pid}/status"), read(f"/proc/{pid}/stat")
    if status and stat:
        fields = stat.rsplit(")", 1)[1].split()
        whole = threads.setdefault("process", {})
        whole["minflt"] = int(fields[7])
        whole["cpu"] = (int(fields[11]) + int(fields[12])) / TICK
        whole["system"] = int(fields[12]) / TICK
        for line in status.splitlines():
            if line.startswith("VmHWM:"):
                whole["hwm_mib"] = int(line.split()[1]) / 1024
    for tid in tids:
        base = f"/proc/{pid}/task/{tid}"
        sched, stat = read(base + "/schedstat"), read(base + "/stat")
        if not sched or not stat:
            continue
        state, start = thread_start(stat)
        runnable += state == "R"
        entry = threads.setdefault(int(tid), {"comm": (read(base + "/comm") or "?").strip(), "start": start})
        on_cpu, queued, _ = (int(x) for x in sched.split())
        entry.update(on_cpu=on_cpu / 1e9, queued=queued / 1e9, last=now)
        if entry["on_cpu"] < 0.05:
            # Threads that have barely run (spare pool threads) wait on nothing worth naming.
            continue
        if state in "SD":
            # A thread asleep in futex (202) names the word it waits on.
            call = (read(base + "/syscall") or "").split()
            where = int(call[1], 16) if call[:1] == ["202"] else call[0] if call else "?"
            waits = entry.setdefault("waits", {})
            waits[where] = waits.get(where, 0) + 1
            asleep.append((int(tid), where))
    return runnable, asleep


def snapshot(pid):
    """Thread id -> kind, from one gdb backtrace of every thread."""
    out = subprocess.run(
        ["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "set pagination off", "-ex", "thread apply all bt"],
        capture_output=True, text=True).stdout
    kinds, labels, tid, frames = {}, {}, None, []

    def close():
        if tid is None:
            return
        text = "\n".join(frames)
        word = next((m.group(1) for f in frames for m in [FUTEX.search(f)] if m), None)
        if word:
            labels[int(word, 16)] = label(frames)
        outer = [f for f in frames if " in " in f or " at " in f][-4:]
        if outer and all("libonnxruntime" in f or "libstdc++" in f or "start_thread" in f or "clone" in f
                           for f in outer):
            kinds[tid] = "onnxruntime pool"
    for line in out.splitlines():
        if line.startswith("Thread ") and "(LWP " in line:
            close()
            tid, frames = int(line.split("(LWP ")[1].split(")")[0]), []
        elif line.startswith("#"):
            frames.append(line)
    close()
    return kinds, labels


def label(frames):
    """What a thread asleep in a futex waits for: its first frame past libc's."""
    for f in frames:
        if any(k in f for k in ("nptl", "futex", "pthread", "lll_", "condition_variable", "libc.so", "libstdc++")):
            continue
        if "Center" in f:
            return "CenterFace's lock"
        for lib in ("libonnxruntime", "libvips", "libglib", "libgomp", "libtbb"):
            if lib in f:
                return lib
        return f.split(" in ", 1)[-1].split(" (")[0][:60]
    return "?"


def kind_of(tid, entry, pid, kinds):
    if tid == pid:
        return "main"
    if entry["comm"].startswith("libvips"):
        return "libvips"
    if entry["on_cpu"] < 0.01 * max(entry["life"], 1e-9):
        return "idle"
    if kinds.get(tid) == "onnxruntime pool":
        return "onnxruntime pool"
    # Dispatch runs the workers' photos on any of its threads.
    return "workers" if "qos" in entry["comm"] else entry["comm"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--snapshot", default="", help="seconds in for each gdb snapshot, comma-separated (none: no snapshot)")
    parser.add_argument("--cores", type=int, default=os.cpu_count())
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--json", help="write the per-thread figures here")
    parser.add_argument("--by-thread", action="store_true")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command after --")
    btime = boot_time()
    started = time.time()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    # short: at each poll with a core to spare, what the working threads slept on.
    threads, counts, kinds, labels, paused, short = {}, [], {}, {}, [], []
    moments = sorted(float(x) for x in args.snapshot.split(",") if x)
    while process.poll() is None:
        now = time.time() - btime
        runnable, asleep = poll(process.pid, threads, now)
        if runnable is not None:
            counts.append(runnable)
            if runnable < args.cores:
                short.append(asleep)
        if moments and time.time() - started - sum(p[1] for p in paused) >= moments[0]:
            moments.pop(0)
            before = time.time()
            seen, named = snapshot(process.pid)
            kinds.update(seen)
            labels.update(named)
            paused.append((before - btime, time.time() - before))
        time.sleep(args.interval)
    wall = time.time() - started
    report(process.pid, threads, kinds, labels, counts, wall, paused, args)
    spare_core_waits(process.pid, threads, kinds, labels, short, len(counts))
    return process.returncode


def report(pid, threads, kinds, labels, counts, wall, paused, args):
    pauses, paused, rows = paused, sum(p[1] for p in paused), {}
    whole = threads.pop("process", {})
    for tid, e in sorted(threads.items()):
        # Only a thread alive across the snapshot was stopped by it.
        stopped = sum(length for at, length in pauses if e["start"] < at < e["last"])
        e["life"] = max(0.0, e["last"] - e["start"] - stopped)
        e.update(kind=kind_of(tid, e, pid, kinds), asleep=max(0.0, e["life"] - e["on_cpu"] - e["queued"]))
        row = rows.setdefault(e["kind"], [0, 0.0, 0.0, 0.0, 0.0])
        row[0] += 1
        for i, key in enumerate(("life", "on_cpu", "queued", "asleep"), 1):
            row[i] += e[key]
    print(f"wall {wall - paused:.2f} s ({len(pauses)} gdb snapshots, {paused:.2f} s, taken out), {len(counts)} polls, "
          f"R < {args.cores} in {100 * sum(c < args.cores for c in counts) / max(1, len(counts)):.0f} % of polls, "
          f"mean R {sum(counts) / max(1, len(counts)):.2f}, "
          f"busy (estimate) {sum(min(c, args.cores) for c in counts) / max(1, len(counts)) / args.cores:.3f}")
    print(f"process (at the last poll): CPU {whole.get('cpu', 0):.2f} s, system {whole.get('system', 0):.2f} s, "
          f"minor faults {whole.get('minflt', 0) / 1e6:.2f} M, peak RSS {whole.get('hwm_mib', 0):.0f} MiB")
    print(f"{'kind':<18} {'threads':>7} {'alive s':>8} {'on CPU s':>9} {'run queue s':>11} {'asleep s':>9}")
    for kind, (n, life, cpu, queued, asleep) in sorted(rows.items(), key=lambda r: -r[1][2]):
        print(f"{kind:<18} {n:>7} {life:>8.2f} {cpu:>9.2f} {queued:>11.2f} {asleep:>9.2f}")
    print("asleep, split by what the polls found each thread waiting on (futex words named by the snapshot):")
    for kind, split in sorted(sleep_causes(threads, labels).items()):
        print(f"  {kind:<18} " + ", ".join(f"{c} {t:.2f} s" for c, t in sorted(split.items(), key=lambda r: -r[1])))
    if args.by_thread:
        for tid, e in sorted(threads.items()):
            print(f"  {tid} {e['kind']:<18} {e['comm']:<16} alive {e['life']:.2f} cpu {e['on_cpu']:.2f} "
                  f"queue {e['queued']:.2f} asleep {e['asleep']:.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"wall": wall - paused, "process": whole, "labels": {hex(w): l for w, l in labels.items()}, "paused": paused, "polls": counts,
                       "threads": {str(t): e for t, e in threads.items()}}, f, indent=1)


def cause_of(where, labels):
    if isinstance(where, int):
        # A glibc condition variable's waiters sleep on one of two words 4 bytes apart.
        near = [w for w in labels if abs(w - where) <= 8]
        return labels[near[0]] if near else "futex, unnamed"
    return "futex, restarted after the snapshot" if where == "219" else f"syscall {where}"


def spare_core_waits(pid, threads, kinds, labels, short, polls):
    """At the polls with fewer runnable threads than cores: how often each
    kind of thread was asleep on each cause (share of all polls)."""
    tally = {}
    for asleep in short:
        pairs = {(threads[t]["kind"], cause_of(w, labels)) for t, w in asleep if t in threads}
        # The main thread waits for the run throughout; idle threads never work.
        for kind, cause in ((k, c) for k, c in pairs if k not in ("main", "idle")):
            tally[(kind, cause)] = tally.get((kind, cause), 0) + 1
    print(f"at the {len(short)} polls with a core to spare ({100 * len(short) / max(1, polls):.0f} % of all), "
          "the share of all polls at which a thread of each kind slept on each cause:")
    for (kind, cause), n in sorted(tally.items(), key=lambda r: -r[1])[:12]:
        print(f"  {kind:<18} {cause:<40} {100 * n / max(1, polls):5.1f} %")


def sleep_causes(threads, labels):
    """Each thread's sleep shared out over its polls' waits."""
    causes = {}
    for e in threads.values():
        waits = e.get("waits", {})
        total = sum(waits.values())
        if not total or e["kind"] in ("main", "idle"):
            continue
        split = causes.setdefault(e["kind"], {})
        for where, n in waits.items():
            cause = cause_of(where, labels)
            split[cause] = split.get(cause, 0.0) + e["asleep"] * n / total
    return causes


if __name__ == "__main__":
    sys.exit(main())
