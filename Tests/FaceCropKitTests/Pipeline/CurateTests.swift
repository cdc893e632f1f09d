import Foundation
import Testing
import FaceCropCore
import FaceCropOutput
import FaceCropCurate


/// Curation with the real binary: rejections that survive regeneration,
/// near-duplicates, splits.
@Suite(.serialized)
struct CurateTests {
    func run(_ arguments: [String]) throws -> RunResult {
        let result = try runFaceCrop(arguments)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    func line(_ lines: [[String: Any]], source: String, face: Int) -> [String: Any]? {
        lines.first { $0["source"] as? String == source && $0["face"] as? Int == face }
    }

    /// Fixtures/faces copied into a new folder and cropped into `out` there.
    func datasetOfFaces() throws -> (work: URL, photos: URL, output: URL) {
        let work = try makeTemporaryFolder()
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try copyFixtures(["faces"], into: photos)
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q"])
        return (work, photos, output)
    }

    @Test func aDeletedCropStaysRejectedAndACIRegenerationReproducesTheDataset() throws {
        let (work, photos, output) = try datasetOfFaces()
        defer { try? FileManager.default.removeItem(at: work) }
        let crop = "faces/two-people.jpg.face1.jpg"
        let plain = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(!plain.contains("<section id=\"rejected\">") && !plain.contains("<section id=\"duplicates\">"))
        let before = try #require(line(try readManifest(output), source: "faces/two-people.jpg", face: 1))
        try FileManager.default.removeItem(at: output.appendingPathComponent(crop))

        // --check sees the missing crop; the next run records it and says so.
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--check"]).stdout.contains("crop missing: faces/two-people.jpg"))
        let rerun = try run([photos.path, "-o", output.path])
        #expect(rerun.stderr.contains("recorded 1 deleted crop as a rejection in '\(output.path)/rejections.txt'"))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
        let rejections = try String(contentsOf: output.appendingPathComponent("rejections.txt"), encoding: .utf8)
        let box = (before["bbox"] as! [Int]).map(String.init).joined(separator: ",")
        #expect(rejections.contains("\(before["sha256"] as! String) \(box)  # faces/two-people.jpg face 1"))
        let lines = try readManifest(output)
        let rejected = try #require(line(lines, source: "faces/two-people.jpg", face: 1))
        #expect(rejected["status"] as? String == "rejected")
        #expect(rejected["crop"] == nil)
        #expect(line(lines, source: "faces/two-people.jpg", face: 0)?["status"] as? String == "ok")
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["rejected"] as? Int == 1)
        let report = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(report.contains("<h2>Rejected faces (1)</h2>"))
        #expect(report.contains("<td class=\"path\">faces/two-people.jpg</td><td class=\"n\">1</td>"))
        #expect(!report.contains("src=\"\(crop)\""))
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--check"]).status == 0)
        // Never back: neither on a rerun nor with every photo processed again.
        _ = try run([photos.path, "-o", output.path, "-q", "--overwrite", "--jobs", "3"])
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))

        // CI: a fresh folder, the photos and the rejections file from the repository.
        let repository = work.appendingPathComponent("rejections.txt")
        try FileManager.default.copyItem(at: output.appendingPathComponent("rejections.txt"), to: repository)
        let fresh = work.appendingPathComponent("ci")
        _ = try run([photos.path, "-o", fresh.path, "-q", "--rejections", repository.path])
        var curated = try datasetBytes(output)
        curated.removeValue(forKey: "rejections.txt")
        #expect(try datasetBytes(fresh) == curated)
        #expect(try runFaceCrop([photos.path, "-o", fresh.path, "--check", "--rejections", repository.path]).status == 0)
        #expect(try String(contentsOf: repository, encoding: .utf8) == rejections)
    }

    @Test func deletionsAreRegeneratedWhenAskedAndRejectAddsEntries() throws {
        let (work, photos, output) = try datasetOfFaces()
        defer { try? FileManager.default.removeItem(at: work) }
        let crop = output.appendingPathComponent("faces/grace_hopper.jpg.face0.jpg")
        try FileManager.default.removeItem(at: crop)
        _ = try run([photos.path, "-o", output.path, "-q", "--no-record-deletions"])
        #expect(FileManager.default.fileExists(atPath: crop.path))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("rejections.txt").path))

        // A person's file, with notes, gains entries at its end.
        let file = work.appendingPathComponent("curation.txt")
        try "# faces that are not faces\n\n".write(to: file, atomically: true, encoding: .utf8)
        let reject = try run(["reject", output.path, crop.path, "#1", "--rejections", file.path])
        #expect(reject.stderr.contains("added 2 rejections to '\(file.path)'"))
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.hasPrefix("# faces that are not faces\n\n"))
        #expect(text.split(separator: "\n").count == 3)
        #expect(text.contains("# faces/grace_hopper.jpg face 0"))
        #expect(text.contains("# faces/astronaut-large.jpg face 0"))
        // The same again adds nothing; an unknown crop is an error naming it.
        #expect(try run(["reject", output.path, "faces/grace_hopper.jpg.face0.jpg", "--rejections", file.path]).stderr
            .contains("added 0 rejections"))
        let unknown = try runFaceCrop(["reject", output.path, "nope.jpg", "--rejections", file.path])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("'nope.jpg' is not a crop or a crop number of '\(output.path)'"))
        // A bare number is the crop number; one past the end, or none at all
        // (an unquoted #1 is a shell comment), is a usage error saying so.
        #expect(try run(["reject", output.path, "1", "--rejections", file.path]).stderr.contains("added 0 rejections"))
        let past = try runFaceCrop(["reject", output.path, "99", "--rejections", file.path])
        #expect(past.status == 64)
        #expect(past.stderr.hasPrefix("Error: there is no crop 99 in '\(output.path)', whose crops are numbered 1 to 5\n"))
        let none = try runFaceCrop(["reject", output.path])
        #expect(none.status == 64)
        let needs = "Error: reject needs a dataset folder and at least one crop: a crop file or its number (60 or '#60'; "
            + "an unquoted #60 starts a shell comment, so the shell drops it)\nUsage: facecrop reject <dataset> <crop-file | number>..."
        #expect(none.stderr.hasPrefix(needs))

        #expect(try runFaceCrop([photos.path, "-o", output.path, "--check", "--rejections", file.path]).stdout
            == "rejected: faces/astronaut-large.jpg\nrejected: faces/grace_hopper.jpg\n")
        _ = try run([photos.path, "-o", output.path, "-q", "--rejections", file.path])
        #expect(!FileManager.default.fileExists(atPath: crop.path))
        #expect(try readManifest(output).filter { $0["status"] as? String == "rejected" }.count == 2)
        // Taking an entry out brings the crop back.
        let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.contains("grace_hopper") }
        try kept.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        _ = try run([photos.path, "-o", output.path, "-q", "--rejections", file.path])
        #expect(FileManager.default.fileExists(atPath: crop.path))
    }

    @Test func aBadRejectionsFileIsNamedWithItsLine() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("r.txt")
        try "# ok\nnot-a-hash 1,2,3,4\n".write(to: file, atomically: true, encoding: .utf8)
        let result = try runFaceCrop([fixtures.appendingPathComponent("faces").path, "-o", work.appendingPathComponent("o").path, "--rejections", file.path])
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("Error: '\(file.path)' line 2: 'not-a-hash' is not a SHA-256 (64 hex digits)\n"))
    }

    /// Real copies: re-encoded at another quality, resized, cropped by a few
    /// percent (made with libvips' command line), and EXIF-rotated copies
    /// (Fixtures/rotated: pixels stored turned, the EXIF orientation turning them back).
    func nearDuplicateLibrary(in work: URL) throws -> URL {
        let photos = work.appendingPathComponent("photos")
        let copies = photos.appendingPathComponent("copies")
        try FileManager.default.createDirectory(at: copies, withIntermediateDirectories: true)
        try copyFixtures(["faces", "rotated"], into: photos)
        for name in ["grace_hopper", "astronaut"] {
            let original = fixtures.appendingPathComponent("faces/\(name).jpg").path
            try vips(["copy", original, copies.appendingPathComponent("\(name)-q55.jpg").path + "[Q=55]"])
            try vips(["resize", original, copies.appendingPathComponent("\(name)-half.jpg").path, "0.5"])
            try vips(["crop", original, copies.appendingPathComponent("\(name)-crop.jpg").path, "15", "20", "480", "475"])
        }
        return photos
    }

    /// Which picture a face shows, from Fixtures/SOURCES.md: two-people.jpg
    /// is a composite of the astronaut (right) and Grace Hopper (left).
    func picture(_ line: [String: Any]) -> String {
        let source = line["source"] as! String
        if source.contains("grace_hopper") || (source.contains("two-people") && line["face"] as? Int == 0) { return "hopper" }
        if source.contains("astronaut") || source.contains("two-people") { return "astronaut" }
        return source
    }

    @Test func nearDuplicatesGroupAndDistinctPhotosDoNot() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try nearDuplicateLibrary(in: work)
        try copyFixtures(["people", "formats"], into: photos)
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--dedup"])
        let faces = try readManifest(output).filter { $0["face"] != nil }
        // The real crops' hashes, grouped through the index as comparing
        // every pair groups them (at the default, the manifest's statuses;
        // at other thresholds, the keepers of both).
        let store = StateStore(output: output.path, shard: nil)
        let (index, places, _) = DedupStep.index(store)
        let pairwise = Dedup.pairwiseKeepers(index, threshold: Dedup.defaultThreshold)
        #expect(pairwise.count { $0 != nil } >= 20)  // the copies of the rotated, format and libvips sets
        let records = Array(store.records)
        let statuses = places.map { place in records[place.record].faces.first { $0.index == place.face }?.status }
        #expect(statuses == pairwise.map { ($0 == nil ? .ok : .duplicate) as FaceStatus? })
        for threshold in [0, 1, 6, 12, 20, 32] {
            #expect(Dedup.keepers(index, threshold: threshold) == Dedup.pairwiseKeepers(index, threshold: threshold), "at \(threshold)")
        }
        let byCrop = Dictionary(uniqueKeysWithValues: faces.compactMap { f in (f["crop"] as? String).map { ($0, f) } })
        var kept: [String: [String]] = [:]
        for face in faces {
            #expect((face["phash"] as? String)?.count == 16)
            switch face["status"] as? String {
            case "ok":
                kept[picture(face), default: []].append(face["crop"] as! String)
            case "duplicate":
                #expect(face["crop"] == nil)
                let keeper = try #require(byCrop[face["duplicate_of"] as? String ?? ""])
                #expect(picture(keeper) == picture(face), "\(face["source"]!) grouped with \(keeper["source"]!)")
                #expect(keeper["sharpness"] as! Double >= face["sharpness"] as! Double)
            default:
                Issue.record("unexpected line \(face)")
            }
        }
        // One crop of each picture: every copy grouped; distinct photos (the
        // astronaut, Grace Hopper, the basketball player) each keep theirs.
        // (Which people/ faces the detector finds depends on it; each is its own picture.)
        #expect(kept.filter { $0.key != "astronaut" }.allSatisfy { $0.value.count == 1 })
        #expect(kept["hopper"]?.count == 1)
        // The half-size copy's 47 x 59 px face gives a crop 14 bits from its
        // nearest copy, over 12: it is grouped as a face at the same place in
        // a photo whose own hash matches (DedupFace.matches).
        #expect(kept["astronaut"]?.count == 1)
        let half = try #require(faces.first { ($0["source"] as! String).hasSuffix("astronaut-half.jpg") })
        #expect(half["status"] as? String == "duplicate")
        #expect((half["photo_phash"] as? String)?.count == 16)
        for crop in faces.compactMap({ $0["duplicate_of"] as? String }) {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
        }
        let report = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        let duplicates = faces.filter { $0["status"] as? String == "duplicate" }.count
        #expect(report.contains("<h2>Near-duplicate faces (\(duplicates))</h2>"))
        #expect(try FileManager.default.subpathsOfDirectory(atPath: output.path).filter { $0.hasSuffix(".face0.jpg") || $0.hasSuffix(".face1.jpg") }.count == kept.values.map(\.count).reduce(0, +))

        // The same groups whatever --jobs is, with shards and merge.
        let jobs = work.appendingPathComponent("jobs")
        _ = try run([photos.path, "-o", jobs.path, "-q", "--dedup", "--jobs", "4"])
        #expect(try datasetBytes(jobs) == datasetBytes(output))
        let shards = work.appendingPathComponent("shards")
        for k in 0..<3 { _ = try run([photos.path, "-o", shards.path, "-q", "--dedup", "--shard", "\(k)/3"]) }
        let merged = work.appendingPathComponent("merged")
        _ = try run(["merge", merged.path, shards.path, "-q"])
        #expect(try datasetBytes(merged) == datasetBytes(output))
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--dedup", "--check"]).status == 0)
    }

    /// A generated corpus of 1,000 photos: one small gray JPEG made by
    /// libvips, each copy with its number appended after the image's end
    /// (the same picture, a different content hash).
    @Test func splitProportionsOnAThousandGeneratedPhotos() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let blank = work.appendingPathComponent("blank.v").path
        try vips(["black", blank, "48", "32", "--bands", "3"])
        let tiny = work.appendingPathComponent("tiny.jpg")
        try vips(["linear", blank, tiny.path, "1", "90"])
        let bytes = try Data(contentsOf: tiny)
        for index in 0..<1000 {
            try (bytes + Data("\(index)".utf8)).write(to: photos.appendingPathComponent("\(index).jpg"))
        }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--split", "train=80,val=10,test=10"])
        let lines = try readManifest(output)
        #expect(lines.count == 1000)
        #expect(Set(lines.compactMap { $0["sha256"] as? String }).count == 1000)
        var counts: [String: Int] = [:]
        for line in lines { counts[line["split"] as? String ?? "none", default: 0] += 1 }
        for (name, weight) in [("train", 80), ("val", 10), ("test", 10)] {
            let share = Double(counts[name] ?? 0) / 10
            #expect(abs(share - Double(weight)) <= 5, "\(name): \(share) % of the photos for a weight of \(weight) %")
        }
        #expect(counts["none"] == nil)
    }

    @Test func splitsKeepPhotosAndGroupsOnOneSide() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try nearDuplicateLibrary(in: work)
        try copyFixtures(["people", "noface"], into: photos)
        let output = work.appendingPathComponent("out")
        let spec = "train=50,val=25,test=25"
        _ = try run([photos.path, "-o", output.path, "-q", "--dedup", "--split", spec])
        let lines = try readManifest(output)
        var splitOfPhoto: [String: String] = [:]
        var splitOfCrop: [String: String] = [:]
        var counts: [String: Int] = [:]
        for line in lines {
            let split = try #require(line["split"] as? String)
            #expect(["train", "val", "test"].contains(split))
            let source = line["source"] as! String
            #expect(splitOfPhoto.updateValue(split, forKey: source) ?? split == split, "\(source) on two sides")
            if let crop = line["crop"] as? String {
                #expect(crop.hasPrefix(split + "/"))
                #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
                splitOfCrop[crop] = split
                counts[split, default: 0] += 1
            }
        }
        for (name, count) in counts where count > 0 {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent("\(name)/metadata.jsonl").path))
        }
        let spec2 = try SplitSpec.parse(spec).get()
        for line in lines where line["face"] == nil {
            #expect(line["split"] as? String == spec2.split(forSHA256: line["sha256"] as? String ?? ""))
        }
        for line in lines where line["status"] as? String == "duplicate" {
            #expect(splitOfCrop[line["duplicate_of"] as! String] == line["split"] as? String)
        }
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        let splits = try #require(stats["splits"] as? [String: Int])
        #expect(Set(splits.keys) == ["train", "val", "test"])
        #expect(splits.filter { $0.value > 0 } == counts)
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--dedup", "--split", spec, "--check"]).status == 0)
    }
}
