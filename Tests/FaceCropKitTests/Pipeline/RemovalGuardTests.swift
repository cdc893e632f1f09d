import Foundation
import Testing

import FaceCropCore
import FaceCropInputs
import FaceCropKit

/// Nothing lost when the library is half there: an empty input stops the
/// run before it changes a byte, an unreadable folder or photo keeps its
/// crops and lines, a photo really deleted still takes its crops with it.
/// The real binary on copies of Fixtures; the permission cases as `nobody`.
@Suite(.serialized)
struct RemovalGuardTests {
    func runAsNobody(_ arguments: [String]) throws -> RunResult {
        try runFaceCrop(arguments, through: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", facecropBinary])
    }

    func run(_ json: RunResult) throws -> [String: Any] {
        let summary = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        return summary["run"] as! [String: Any]
    }

    @Test func anEmptyInputStopsTheRunUnchangedUnlessRemovalsAreAllowed() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("lib")
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("faces"), to: photos)
        let output = work.appendingPathComponent("ds")
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let before = try fingerprint(output)
        #expect(before.keys.filter { $0.hasSuffix(".face0.jpg") || $0.hasSuffix(".face1.jpg") }.count == 5)

        // The mount point of a drive that is not plugged in.
        for name in try FileManager.default.contentsOfDirectory(atPath: photos.path) {
            try FileManager.default.removeItem(at: photos.appendingPathComponent(name))
        }
        let refused = try runFaceCrop([photos.path, "-o", output.path])
        #expect(refused.status == 75)
        #expect(refused.stdout == "")
        #expect(refused.stderr == """
            facecrop: error: this run would remove 5 of the dataset's 5 crops, those of the photos not found now \
            (more than half of them; all of those of the input '\(photos.path)', where no photo is found now). \
            Nothing was changed. By folder:
              '\(photos.path)': 5
            If a drive or share is not mounted, mount it and run again. If the photos are really gone, run again \
            with --allow-removals: their crops and manifest lines are then deleted, and cannot be brought back.

            """)
        #expect(try fingerprint(output) == before)
        // --dry-run says so and changes nothing either.
        let dry = try runFaceCrop([photos.path, "-o", output.path, "--dry-run"])
        #expect(dry.status == 0)
        #expect(dry.stderr.hasPrefix("facecrop: note: a run would stop here (exit 75): this run would remove 5 of"))
        #expect(dry.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("removed: ") })
        #expect(try fingerprint(output) == before)

        let allowed = try runFaceCrop([photos.path, "-o", output.path, "--allow-removals"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stderr.contains(", 5 old crops removed in "))
        #expect(try fingerprint(output).keys.filter { $0.hasSuffix(".jpg") } == [])
        #expect(try readManifest(output).isEmpty)
    }

    @Test func oneDeletedPhotoOfTwentyTakesItsCropWithoutAnOption() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("lib")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let astronaut = try Data(contentsOf: fixtures.appendingPathComponent("faces/astronaut.jpg"))
        // 20 photos of one face each, with 20 content hashes.
        for index in 0..<20 {
            try (astronaut + Data("\(index)".utf8)).write(to: photos.appendingPathComponent(String(format: "p%02d.jpg", index)))
        }
        let output = work.appendingPathComponent("ds")
        let arguments = [photos.path, "-o", output.path, "-q", "--json"]
        #expect(try runFaceCrop(arguments).status == 0)
        #expect(try readManifest(output).filter { $0["crop"] != nil }.count == 20)

        try FileManager.default.removeItem(at: photos.appendingPathComponent("p07.jpg"))
        let rerun = try runFaceCrop(arguments)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try run(rerun)["removed_crops"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("p07.jpg.face0.jpg").path))
        #expect(try readManifest(output).count == 19)

        // 10 of the 19 left: more than half, refused.
        let before = try fingerprint(output)
        for index in 8..<18 { try FileManager.default.removeItem(at: photos.appendingPathComponent(String(format: "p%02d.jpg", index))) }
        let refused = try runFaceCrop(arguments)
        #expect(refused.status == 75)
        #expect(refused.stderr.hasPrefix("facecrop: error: this run would remove 10 of the dataset's 19 crops, those of the photos not found now (more than half of them)."))
        #expect(try fingerprint(output) == before)
    }

    /// A folder made unreadable (and a photo, changed and unreadable) keeps
    /// its crops and manifest lines; the run names the error and exits 1;
    /// with the permission back, the dataset is what it was.
    @Test func anUnreadableFolderOrPhotoKeepsItsCropsAndLines() throws {
        let work = try makeTemporaryFolder()
        let locked = work.appendingPathComponent("lib/locked")
        let photos = work.appendingPathComponent("lib")
        defer {
            chmod(locked.path, 0o755)
            try? FileManager.default.removeItem(at: work)
        }
        chmod(work.path, 0o755)
        try copyFixtures(["faces"], into: photos)
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("faces/two-people.jpg"), to: locked.appendingPathComponent("a.jpg"))
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("noface/coffee.jpg"), to: locked.appendingPathComponent("c.jpg"))
        let output = work.appendingPathComponent("ds")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        chmod(output.path, 0o777)
        let arguments = [photos.path, "-o", output.path, "-q"]
        #expect(try runAsNobody(arguments).status == 0)
        let before = try datasetBytes(output)
        let manifest = try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        #expect(before["locked/a.jpg.face1.jpg"] != nil)

        chmod(locked.path, 0o000)
        let folder = try runAsNobody(arguments)
        #expect(folder.status == 1)
        #expect(folder.stderr == "facecrop: error: 'locked': cannot read file: cannot read folder: Permission denied\n")
        var after = try datasetBytes(output)
        #expect(after.filter { $0.key.contains(".face") } == before.filter { $0.key.contains(".face") })
        let lines = try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        let error = "{\"source\": \"locked\", \"status\": \"error\", \"error\": \"cannot read file: cannot read folder: Permission denied\"}\n"
        #expect(lines.replacingOccurrences(of: error, with: "") == manifest)
        #expect(try runAsNobody(arguments + ["--check"]).stdout == "error: locked: cannot read folder: Permission denied\n")

        // A photo changed since the last run that cannot be read now.
        let photo = photos.appendingPathComponent("faces/astronaut.jpg").path
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_000_000)], ofItemAtPath: photo)
        chmod(photo, 0o000)
        let unreadable = try runAsNobody(arguments)
        #expect(unreadable.status == 1)
        #expect(unreadable.stderr.contains(
            "facecrop: error: 'faces/astronaut.jpg': cannot read file: Permission denied (its crops and manifest lines are kept as the last run wrote them; the next run tries it again)\n"))
        after = try datasetBytes(output)
        #expect(after.filter { $0.key.contains(".face") } == before.filter { $0.key.contains(".face") })
        #expect(try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8) == lines)

        // The permissions back: nothing is decoded again, and the dataset is what it was.
        chmod(locked.path, 0o755)
        chmod(photo, 0o644)
        let back = try runAsNobody(arguments + ["--json"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try run(back)["removed_crops"] as? Int == 0)
        #expect(try datasetBytes(output) == before)
        #expect(try runAsNobody(arguments + ["--check"]).status == 0)
    }
}

/// The plan's side of it, on made-up records: what an unreadable folder,
/// file or input keeps, and what the guard counts.
struct RemovalGuardUnitTests {
    let join = PlanJoinTests()

    func problem(_ label: String, _ source: String) -> WalkItem {
        .problem(FindProblem(inputIndex: 0, label: label, source: source, reason: "cannot read folder: Permission denied", unreadable: true))
    }

    @Test func recordsUnderAnUnreadableFolderOrFileAreKeptNotGone() {
        let walk = [join.photo("", 0, "a.jpg"), problem("", "b"), join.photo("", 0, "b.jpg"), join.photo("", 0, "c.jpg")]
        let state = ["a.jpg", "b.jpg", "b/x.jpg", "b/y/z.jpg", "bb/x.jpg", "c.jpg"].map { join.record("", 0, $0) }
        #expect(join.plan(walk, labels: [""], state: state) == [
            "kept a.jpg", "problem b", "kept b.jpg", "kept b/x.jpg", "kept b/y/z.jpg", "gone bb/x.jpg", "kept c.jpg",
        ])
        // A file: its record goes with the problem (kept if reading fails), not gone.
        #expect(join.plan([problem("", "a.jpg")], labels: [""], state: [join.record("", 0, "a.jpg")]) == ["problem a.jpg"])
        // An input that cannot be read at all: everything of it, and only of it.
        let inputs = [problem("a", "."), join.photo("b", 1, "1.jpg")]
        let two = [join.record("a", 0, "1.jpg"), join.record("a", 0, "x/2.jpg"), join.record("b", 1, "1.jpg"), join.record("b", 1, "2.jpg")]
        #expect(join.plan(inputs, labels: ["a", "b"], state: two) == ["problem .", "kept a/1.jpg", "kept a/x/2.jpg", "kept b/1.jpg", "gone b/2.jpg"])
        // --shard: a shard that does not own the folder's error line still keeps its photos.
        var shard = PlanJoin.Rules()
        shard.owns = { _, source in source != "b" }
        #expect(join.plan(walk, labels: [""], state: state, rules: shard) == [
            "kept a.jpg", "kept b.jpg", "kept b/x.jpg", "kept b/y/z.jpg", "gone bb/x.jpg", "kept c.jpg",
        ])
        // Made with other settings, a record cannot stand for the new ones: gone as before.
        var rules = PlanJoin.Rules()
        rules.stateCurrent = false
        #expect(join.plan([problem("", "b")], labels: [""], state: [join.record("", 0, "b/x.jpg")], rules: rules) == ["problem b", "gone? b/x.jpg"])
    }

    func tally(_ walk: [WalkItem], labels: [String], state: [PhotoRecord]) -> RemovalGuard.Tally {
        let stateLabels = state.reduce(into: [String]()) { if $0.last != $1.label { $0.append($1.label) } }
        var plan = PlanJoin(
            walk: AnyIterator(walk.makeIterator()), labels: labels, stateLabels: stateLabels,
            records: { label in AnyIterator(state.filter { $0.label == label }.makeIterator()) }, journal: [:],
            rules: PlanJoin.Rules())
        return RemovalGuard.tally(&plan, labels: labels)
    }

    @Test func theGuardCountsCropsAndEmptyInputs() {
        let big = (0..<10).map { join.record("b", 1, "\($0).jpg") }
        let state = [join.record("a", 0, "1.jpg", crops: ["a/1.jpg.face0.jpg", "a/1.jpg.face1.jpg"])] + big
        // Input a empty: 2 crops of 12 is not half, but all of an input.
        let empty = tally(big.map { join.photo("b", 1, $0.source) }, labels: ["a", "b"], state: state)
        #expect(empty == RemovalGuard.Tally(held: 12, removed: 2, folders: [.init(label: "a", path: ""): 2], emptyInputs: ["a"]))
        #expect(empty.refused)
        #expect(RemovalGuard.message(empty, inputs: ["/m/a/", "/m/b"]).hasPrefix(
            "this run would remove 2 of the dataset's 12 crops, those of the photos not found now (all of those of the input '/m/a/', where no photo is found now). Nothing was changed. By folder:\n  '/m/a': 2\n"))
        // Six of b's ten photos gone, a there: 6 of 12, not more than half.
        let walk = [join.photo("a", 0, "1.jpg")] + big.prefix(4).map { join.photo("b", 1, $0.source) }
        let half = tally(walk, labels: ["a", "b"], state: state)
        #expect(half.removed == 6 && half.held == 12 && half.emptyInputs == [] && !half.refused)
        // Seven: refused.
        #expect(tally(Array(walk.dropLast()), labels: ["a", "b"], state: state).refused)
    }

    /// A rerun on a folder inside the library the dataset was made from:
    /// stopped, with the folders as they are on disk, the folder the dataset
    /// was made from and the command that updates it.
    @Test func aRerunOnASubfolderNamesTheFolderTheDatasetWasMadeFrom() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        for (folder, photo) in [("Photos/phone/2023", "astronaut.jpg"), ("Photos/camera", "grace_hopper.jpg")] {
            let target = work.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("faces/" + photo), to: target.appendingPathComponent(photo))
        }
        #expect(try runFaceCrop(["Photos", "-o", "ds", "-q"], directory: work).status == 0)
        let before = try fingerprint(work.appendingPathComponent("ds"))
        let refused = try runFaceCrop(["Photos/phone/", "-o", "ds"], directory: work)
        #expect(refused.status == 75)
        #expect(refused.stderr == """
            facecrop: error: this run would remove 2 of the dataset's 2 crops, those of the photos not found now \
            (more than half of them). Nothing was changed. By folder:
              'Photos/camera': 1
              'Photos/phone/2023': 1
            The dataset was made from 'Photos', not from 'Photos/phone' inside it: its photos are named from 'Photos'. \
            To update it, run 'facecrop Photos -o ds' (with the options you made it with); for a dataset of 'Photos/phone' alone, give another -o.
            If a drive or share is not mounted, mount it and run again. If the photos are really gone, run again \
            with --allow-removals: their crops and manifest lines are then deleted, and cannot be brought back.

            """)
        #expect(try fingerprint(work.appendingPathComponent("ds")) == before)
        var tally = RemovalGuard.Tally(held: 3, removed: 3, folders: [.init(label: "", path: "b/c"): 3])
        #expect(RemovalGuard.madeFrom(tally, inputs: ["/m/a/b/c"]) == "/m/a")
        #expect(RemovalGuard.madeFrom(tally, inputs: ["/m/a/b"]) == "/m/a")
        #expect(RemovalGuard.madeFrom(tally, inputs: ["/m/a/c"]) == nil)
        #expect(RemovalGuard.madeFrom(tally, inputs: ["/m/b", "/m/c"]) == nil)
        tally.folders = [.init(label: "", path: "b"): 3]
        #expect(RemovalGuard.madeFrom(tally, inputs: ["b"]) == nil)
        #expect(RemovalGuard.madeFrom(tally, inputs: ["/m/a/b"]) == "/m/a")
    }
}
