"""Names and corrects people on report-people.html in headless Chromium,
saves people.txt from the page, and regenerates the dataset with it
(scripts/test-people-report).

On the page, with real mouse clicks and key presses: the largest person is
named "alice", one of their faces is ticked "not this person", the next two
people are ticked "merge" and merged, and a face of no one (when there is
one) is named 'Carol "C" (李), #1', which people.txt writes in quotes; then "Save people.txt". The saved file must keep the
lines it was given and add exactly those statements. A fresh run with
--people-file on it must show alice without the ticked face, the two merged
people as one, Carol with her face, and a second fresh run must give the
same dataset byte for byte.

    python3 scripts/test_people_report.py FACECROP PHOTOS WORK
"""

import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_report import Browser, facecrop, manifest  # noqa: E402


# A name people.txt must quote (a comma, brackets, a quote, a '#', CJK), and how the page writes it.
CAROL = 'Carol "C" (李), #1'
CAROL_WRITTEN = '"Carol \\"C\\" (李), #1"'

def fail(message):
    sys.exit(f"test-people-report: FAIL: {message}")


def people(binary, dataset):
    return json.loads(facecrop(binary, "people", dataset, "--json").stdout)


def type_into(browser, selector, text):
    browser.click(selector)
    browser.call("Input.insertText", text=text)


def edit_page(work, dataset, listing):
    """Makes the four changes on the page and saves; the downloaded text and what was changed."""
    downloads = f"{work}/downloads"
    os.makedirs(downloads, exist_ok=True)
    changed = {}
    with Browser(work) as browser:
        browser.call("Browser.setDownloadBehavior", session=False, behavior="allow", downloadPath=downloads,
                     eventsEnabled=True)
        browser.call("Page.enable")
        browser.call("Page.navigate", url=f"file://{os.path.abspath(dataset)}/report-people.html")
        browser.wait_for("Page.loadEventFired")
        rows = browser.evaluate("[...document.querySelectorAll('section.person')].map(r => r.dataset.original)")
        if rows != [p["person"] for p in listing["people"]]:
            fail(f"the page's people {rows} are not facecrop people's {[p['person'] for p in listing['people']]}")
        shown = browser.evaluate("document.querySelectorAll('section.person figure.face').length")
        if shown != sum(min(60, p["faces"]) for p in listing["people"]):
            fail(f"the page shows {shown} faces of people")

        # A name the next run would refuse is refused here too.
        type_into(browser, "#person-row-1 input.name", "ignore")
        browser.click("#person-row-1 button.rename")
        if "is a word of the people file" not in browser.evaluate("document.getElementById('people-message').textContent"):
            fail("the page took 'ignore' as a name")
        browser.evaluate("document.querySelector('#person-row-1 input.name').value = ''")

        type_into(browser, "#person-row-1 input.name", "alice")
        browser.click("#person-row-1 button.rename")
        changed["alice"] = rows[0]
        if browser.evaluate("document.querySelector('#person-row-1 .label').textContent") != "alice":
            fail("the first person's label did not become alice")
        first = listing["people"][0]
        if first["faces"] >= 2:
            browser.click("#person-row-1 figure.face:last-of-type input.not")
            changed["not"] = browser.evaluate("document.querySelector('#person-row-1 figure.face:last-of-type').dataset.handle")
        if len(rows) >= 2:
            # The next two people, or with only two, alice and the other.
            pair = [2, 3] if len(rows) >= 3 else [1, 2]
            for number in pair:
                browser.click(f"#person-row-{number} input.merge")
            browser.click("#merge-people")
            changed["merged"] = [rows[number - 1] for number in pair]
            labels = browser.evaluate(f"{pair}.map(n => document.querySelector('#person-row-' + n + ' .label').textContent)")
            if labels[0] != labels[1]:
                fail(f"after the merge the two people are called {labels}")
        if listing["unassigned"]["faces"] > 0:
            type_into(browser, "#unassigned figure.face:first-of-type input.who", CAROL)
            browser.click("#unassigned h2")  # the box's change event fires when it loses focus
            changed["carol"] = browser.evaluate("document.querySelector('#unassigned figure.face').dataset.handle")
        changes = browser.evaluate("document.getElementById('changes').textContent")
        browser.click("#save-people")
        done = browser.wait_for("Browser.downloadProgress", lambda p: p["state"] in ("completed", "canceled"))
        if done["state"] != "completed":
            fail("the download was canceled")
    if os.listdir(downloads) != ["people.txt"]:
        fail(f"downloaded {os.listdir(downloads)}, not people.txt")
    with open(f"{downloads}/people.txt") as saved:
        return saved.read(), changed, changes


def fingerprint(folder):
    """Every file's SHA-256, except the pages that name the folder they are in."""
    result = {}
    for root, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, folder)
            if relative.startswith(".facecrop") or relative.endswith(".html") or relative == "stats.json":
                continue
            with open(path, "rb") as f:
                result[relative] = hashlib.sha256(f.read()).hexdigest()
    return result


def main():
    binary, photos, work = sys.argv[1:4]
    dataset = f"{work}/dataset"
    before = "# people of the test, kept by the page\n"
    os.makedirs(dataset)
    with open(f"{dataset}/people.txt", "w") as f:
        f.write(before)
    facecrop(binary, photos, "-o", dataset, "-q", "--min-face", "24", "--people")
    listing = people(binary, dataset)
    if len(listing["people"]) < 1:
        fail(f"the grouping found no people in {photos}")
    saved, changed, changes = edit_page(work, dataset, listing)
    if not saved.startswith(before):
        fail(f"the saved file lost its first lines:\n{saved}")
    # The page's comments start with two spaces and '#'; a name may hold a '#' of its own.
    statements = [line.rsplit("  #", 1)[0].strip() for line in saved.splitlines()[1:]]
    handles = {p["person"]: p for p in listing["people"]}
    # A new name is given through the person's representative face (no statement names it yet).
    expected = {f"alice = {handles[changed['alice']]['representative']['handle']}"}
    if "not" in changed:
        expected.add(f"not alice: {changed['not']}")
    if "carol" in changed:
        expected.add(f"{CAROL_WRITTEN}: {changed['carol']}")
    if "merged" in changed:
        target, other = changed["merged"]
        target = "alice" if target == changed["alice"] else target
        expected.add(f"{target} = {handles[other]['representative']['handle']}")
    if set(statements) != expected or len(statements) != len(expected):
        fail(f"the page saved {statements}, expected {sorted(expected)} ({changes})")

    people_file = f"{work}/people.txt"
    with open(people_file, "w") as f:
        f.write(saved)
    fresh = f"{work}/fresh"
    facecrop(binary, photos, "-o", fresh, "-q", "--min-face", "24", "--people", "--people-file", people_file)
    after = people(binary, fresh)
    by_label = {p["person"]: p for p in after["people"]}
    alice = by_label.get("alice")
    old_first = handles[changed["alice"]]
    wanted = {c["handle"] for c in old_first["crops"]}
    if "merged" in changed and changed["merged"][0] == changed["alice"]:
        wanted |= {c["handle"] for c in handles[changed["merged"][1]]["crops"]}
    wanted -= {changed.get("not")}
    if alice is None or {c["handle"] for c in alice["crops"]} != wanted:
        fail(f"alice is {alice}, expected the faces {sorted(wanted)}")
    if "merged" in changed and changed["merged"][0] != changed["alice"]:
        target, other = changed["merged"]
        union = {c["handle"] for c in handles[target]["crops"] + handles[other]["crops"]}
        if {c["handle"] for c in by_label[target]["crops"]} != union or other in by_label:
            fail(f"{other} was not merged into {target}: {by_label.get(target)}")
    if "carol" in changed and [c["handle"] for c in by_label[CAROL]["crops"]] != [changed["carol"]]:
        fail(f"{CAROL} is {by_label.get(CAROL)}")
    if "not" in changed:
        line = next(f for f in manifest(fresh) if "crop" in f and f"{f['sha256']} {','.join(map(str, f['bbox']))}" == changed["not"])
        if line.get("person") == "alice":
            fail("the face ticked 'not this person' is still alice")

    again = f"{work}/again"
    facecrop(binary, photos, "-o", again, "-q", "--min-face", "24", "--people", "--people-file", people_file)
    if fingerprint(fresh) != fingerprint(again):
        fail("two fresh runs with the saved people.txt differ")
    facecrop(binary, photos, "-o", fresh, "-q", "--min-face", "24", "--people", "--people-file", people_file, "--check")
    print(f"test-people-report: ok: on report-people.html named {changed['alice']} alice"
          f"{', ticked one face not alice' if 'not' in changed else ''}"
          f"{', merged ' + ' and '.join(changed['merged']) if 'merged' in changed else ''}"
          f"{', named a face of no one ' + CAROL if 'carol' in changed else ''}; saved people.txt; two fresh runs with it "
          f"give those people, byte for byte alike; --check passes", file=sys.stderr)


if __name__ == "__main__":
    main()
