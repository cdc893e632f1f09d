"""Ticks a crop in report.html in headless Chromium, saves the rejections
file from the page, and regenerates the dataset with it (scripts/test-report).

Chromium is driven with the DevTools protocol over --remote-debugging-pipe
(JSON messages ended by NUL on file descriptors 3 and 4): the standard
library is enough, no WebDriver. The clicks are real mouse events at the
elements' places on the rendered page.

    python3 scripts/test_report.py FACECROP PHOTOS WORK
"""

import fcntl
import json
import os
import select
import subprocess
import sys
import time

TIMEOUT = 30


def fail(message):
    sys.exit(f"test-report: FAIL: {message}")


class Browser:
    """Headless Chromium with one page, spoken to over the DevTools pipe.
    Use it in a with block: the browser is closed on the way out, and its
    chromium.log goes to stderr when the block fails."""

    def __init__(self, work):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        command = [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
            f"--user-data-dir={work}/profile", "--window-size=1280,900", "about:blank",
        ]

        def hand_over():
            # In the child: Chromium reads descriptor 3 and writes 4. Copies above 4
            # first, so that putting one end on 3 cannot close the other sitting there.
            # (No shell: dash takes one-digit descriptors only.)
            read_end = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD_CLOEXEC, 5)
            write_end = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD_CLOEXEC, 5)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.log = f"{work}/chromium.log"
        # close_fds would close 3 and 4 after hand_over runs; Python's own
        # descriptors are close-on-exec anyway.
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(command, preexec_fn=hand_over, close_fds=False,
                                            stdout=subprocess.DEVNULL, stderr=log)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None
        try:
            targets = self.call("Target.getTargets")["targetInfos"]
            page = next(t for t in targets if t["type"] == "page")
            self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        except BaseException:
            self.close(failed=True)
            raise

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        self.close(failed=kind is not None)

    def read(self, deadline):
        while b"\0" not in self.buffer:
            ready, _, _ = select.select([self.from_chrome], [], [], max(0, deadline - time.monotonic()))
            if not ready:
                fail("Chromium did not answer in time")
            chunk = os.read(self.from_chrome, 65536)
            if not chunk:
                fail("Chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=True, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        try:
            os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            fail(f"Chromium closed the pipe before {method}")
        deadline = time.monotonic() + TIMEOUT
        while True:
            reply = self.read(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_for(self, method, check=lambda params: True):
        deadline = time.monotonic() + TIMEOUT
        while True:
            for event in self.events:
                if event.get("method") == method and check(event["params"]):
                    self.events.remove(event)
                    return event["params"]
            self.events.clear()
            event = self.read(deadline)
            if "method" in event:
                self.events.append(event)

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            fail(f"script error in the page: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector):
        """A mouse click at the middle of the element, scrolled into the middle of the view."""
        rect = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        if rect is None:
            fail(f"the page has no {selector}")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=rect[0], y=rect[1], button="left", clickCount=1)

    def close(self, failed=False):
        """Stops Chromium and closes our ends of the pipe, so that the next
        browser starts from the same descriptors; on failure, shows chromium.log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.close(self.to_chrome)
        os.close(self.from_chrome)
        if failed:
            with open(self.log, errors="replace") as log:
                print(f"--- {self.log} ---\n{log.read()}--- end of chromium.log ---", file=sys.stderr)


def facecrop(binary, *arguments, expect=(0,)):
    result = subprocess.run([binary, *arguments], capture_output=True, text=True)
    if result.returncode not in expect:
        fail(f"facecrop {' '.join(arguments)} exited {result.returncode}: {result.stderr}")
    return result


def manifest(dataset):
    with open(f"{dataset}/manifest.jsonl") as lines:
        return [json.loads(line) for line in lines]


def save_from_report(work, dataset, face):
    """Opens the report, ticks `face`'s crop, clicks Save; the downloaded file's text."""
    downloads = f"{work}/downloads"
    os.makedirs(downloads)
    with Browser(work) as browser:
        browser.call("Browser.setDownloadBehavior", session=False, behavior="allow", downloadPath=downloads,
                     eventsEnabled=True)
        browser.call("Page.enable")
        browser.call("Page.navigate", url=f"file://{os.path.abspath(dataset)}/report.html")
        browser.wait_for("Page.loadEventFired")
        # The box whose line names the face: its photo's hash and its box.
        entry = f"{face['sha256']} {','.join(map(str, face['bbox']))}"
        boxes = browser.evaluate("[...document.querySelectorAll('input.reject')].map(b => b.value)")
        chosen = [i for i, value in enumerate(boxes) if value.startswith(entry + " ")]
        if len(boxes) != sum(1 for f in manifest(dataset) if "crop" in f) or len(chosen) != 1:
            fail(f"the page has {len(boxes)} tick boxes, {len(chosen)} for {entry}")
        browser.click(f"figure.crop:nth-child({chosen[0] + 1}) input.reject")
        ticked = browser.evaluate("document.getElementById('ticked').textContent")
        if ticked != "1 crop ticked":
            fail(f"after one tick the page says '{ticked}'")
        browser.click("#save-rejections")
        done = browser.wait_for("Browser.downloadProgress", lambda p: p["state"] in ("completed", "canceled"))
        if done["state"] != "completed":
            fail("the download was canceled")
    names = os.listdir(downloads)
    if names != ["rejections.txt"]:
        fail(f"downloaded {names}, not rejections.txt")
    with open(f"{downloads}/rejections.txt") as saved:
        return saved.read()


def check_order(work, dataset):
    """Chooses each order of the crops in the page's menu: the figures must
    follow the manifest's face_quality (best first, worst first), then the
    manifest again. Returns the worst-first crop names."""
    crops = [f for f in manifest(dataset) if "crop" in f]
    numbered = list(enumerate(crops, start=1))
    expected = {
        "best": [n for n, _ in sorted(numbered, key=lambda p: (-p[1]["face_quality"], p[0]))],
        "worst": [n for n, _ in sorted(numbered, key=lambda p: (p[1]["face_quality"], p[0]))],
        "manifest": [n for n, _ in numbered],
    }
    os.makedirs(work + "/order")
    with Browser(work + "/order") as browser:
        browser.call("Page.enable")
        browser.call("Page.navigate", url=f"file://{os.path.abspath(dataset)}/report.html")
        browser.wait_for("Page.loadEventFired")
        for order in ("best", "worst", "manifest"):
            shown = browser.evaluate(
                "(() => { const s = document.getElementById('crop-order'); s.value = '" + order + "';"
                " s.dispatchEvent(new Event('change'));"
                " return [...document.querySelectorAll('.grid figure.crop')].map(f => Number(f.id.slice(5))); })()")
            if shown != expected[order]:
                fail(f"order '{order}' shows crops {shown}, not {expected[order]}")
    return [crops[n - 1]["crop"] for n in expected["worst"]]


def main():
    binary, photos, work = sys.argv[1:4]
    dataset = f"{work}/dataset"
    # A dataset with one rejection already: the page must keep it.
    facecrop(binary, photos, "-o", dataset, "-q")
    facecrop(binary, "reject", dataset, "#1", "-q")
    facecrop(binary, photos, "-o", dataset, "-q")
    with open(f"{dataset}/rejections.txt") as existing:
        before = existing.read()
    faces = manifest(dataset)
    cropped = [f for f in faces if "crop" in f]
    # The second face of a photo with two: its other face must stay.
    counts = {}
    for f in cropped:
        counts[f["sha256"]] = counts.get(f["sha256"], 0) + 1
    face = next(f for f in cropped if counts[f["sha256"]] > 1 and f["face"] == 1)

    saved = save_from_report(work, dataset, face)
    worst = check_order(work, dataset)

    # Exactly what `facecrop reject` writes for that crop, after the file as it was.
    expected = f"{work}/expected.txt"
    with open(expected, "w") as copy:
        copy.write(before)
    facecrop(binary, "reject", dataset, face["crop"], "--rejections", expected, "-q")
    with open(expected) as wanted:
        if saved != wanted.read():
            fail(f"the saved file differs from facecrop reject's:\n{saved}")

    # Regenerate into a fresh folder with the saved file.
    rejections = f"{work}/saved-rejections.txt"
    with open(rejections, "w") as out:
        out.write(saved)
    fresh = f"{work}/fresh"
    facecrop(binary, photos, "-o", fresh, "-q", "--rejections", rejections)
    facecrop(binary, photos, "-o", fresh, "-q", "--rejections", rejections, "--check")
    after = manifest(fresh)
    if len(after) != len(faces):
        fail(f"{len(after)} manifest lines after, {len(faces)} before")
    for old, new in zip(faces, after):
        if (old["source"], old.get("face")) == (face["source"], face["face"]):
            # A rejected face keeps the fields of its detection, not those of a crop.
            kept = {k: v for k, v in old.items() if k not in ("crop", "phash", "transform", "status")}
            if new.get("status") != "rejected" or "crop" in new or {k: new.get(k) for k in kept} != kept:
                fail(f"the ticked face's line is {new}")
            if os.path.exists(f"{fresh}/{old['crop']}"):
                fail(f"the ticked face's crop {old['crop']} was written")
            continue
        if new != old:
            fail(f"a face not ticked changed: {old} -> {new}")
        if "crop" in old:
            with open(f"{dataset}/{old['crop']}", "rb") as a, open(f"{fresh}/{old['crop']}", "rb") as b:
                if a.read() != b.read():
                    fail(f"crop {old['crop']} differs")
    print(f"test-report: ok: ticked {face['crop']} in report.html, saved rejections.txt "
          f"({len(saved.splitlines())} lines), the fresh run rejected it and kept the other "
          f"{len(cropped) - 1} crops byte for byte; --check passes; sorted by face quality, worst first: "
          f"{', '.join(worst)}", file=sys.stderr)


if __name__ == "__main__":
    main()
