import Foundation
import Testing
import FaceCropImaging
import FaceCropDetect


/// The real binary over real photos, checked the way a user would check it.
/// `.serialized`: each run already uses both cores.
@Suite(.serialized)
struct EndToEndTests {
    static let photoFolders = ["faces", "noface", "rotated", "formats"]

    @Test func everyFixtureGivesItsKnownFacesAtTheKnownPlaces() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(Self.photoFolders, into: photos)
        let output = work.appendingPathComponent("dataset")

        let result = try runFaceCrop([photos.path, "-o", output.path, "--quiet"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.isEmpty)

        let lines = try readManifest(output)
        var bySource: [String: [[String: Any]]] = [:]
        for line in lines { bySource[line["source"] as! String, default: []].append(line) }

        let expectedKeys = expectedAnswers.keys.filter { key in Self.photoFolders.contains { key.hasPrefix($0 + "/") } }
        #expect(Set(bySource.keys) == Set(expectedKeys))
        for key in expectedKeys {
            let answer = expectedAnswers[key]!
            let got = bySource[key] ?? []
            if answer.faces == 0 {
                #expect(got.count == 1 && got[0]["status"] as? String == "no_face", "\(key): \(got)")
                continue
            }
            #expect(got.count == answer.faces, "\(key) should have \(answer.faces) faces: \(got)")
            for line in got {
                #expect(line["status"] as? String == "ok")
                #expect(line["turned"] as? Int ?? 0 == answer.turned, "\(key) turned")
                #expect(line["width"] as? Int == answer.width && line["height"] as? Int == answer.height, "\(key) upright size")
                let box = try #require(rect(line["bbox"]))
                let best = answer.boxes.map { intersectionOverUnion($0, box) }.max() ?? 0
                #expect(best >= 0.7, "\(key): box \(box) is not where a face is (\(answer.boxes))")
            }
        }
        // Lines are sorted by source then face, the file ends with a newline.
        let keys = lines.map { ($0["source"] as! String, $0["face"] as? Int ?? 0) }
        #expect(keys.map(\.0) == keys.map(\.0).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        let text = try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
        #expect(text.hasSuffix("}\n"))
    }

    @Test func everyCropIsASquareThatShowsTheFace() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces", "rotated"], into: photos)
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path, "--size", "200"])
        #expect(result.status == 0)

        try Vips.start()
        let cascade = try Cascade(path: CascadeFolder.resolve(nil))
        let lines = try readManifest(output).filter { $0["status"] as? String == "ok" }
        #expect(lines.count == 14)
        for line in lines {
            let crop = output.appendingPathComponent(line["crop"] as! String)
            let bytes = try PhotoBytes(path: crop.path, source: crop.lastPathComponent)
            let header = try Picture.header(of: bytes, source: crop.lastPathComponent)
            #expect(header.width == 200 && header.height == 200)
            #expect(header.loader.hasPrefix("jpegload"))
            // Detect again on the crop: one face, near the middle, about
            // 1 / (1 + 2 * 0.4) of the side.
            let picture = try Picture.load(bytes, header: header, minScale: 1, fittingIn: 200, 200, source: "crop")
            let gray = try picture.grayPixels(source: "crop")
            var parameters = Cascade.Parameters()
            parameters.minNeighbors = 3
            let found = try cascade.detect(in: gray, parameters, source: "crop")
            #expect(found.count == 1, "\(line["crop"]!): \(found)")
            if let face = found.first {
                let centre = (Double(face.box.x) + Double(face.box.width) / 2, Double(face.box.y) + Double(face.box.height) / 2)
                #expect(abs(centre.0 - 100) < 25 && abs(centre.1 - 100) < 25, "\(line["crop"]!) face at \(face.box)")
                #expect(face.box.width > 70 && face.box.width < 160)
            }
        }
    }

    @Test func brokenFilesAreReportedAndTheRunGoesOn() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["broken", "faces"], into: photos)
        let output = work.appendingPathComponent("dataset")
        let result = try runFaceCrop([photos.path, "-o", output.path])
        #expect(result.status == 1)

        let lines = try readManifest(output)
        let errors = Dictionary(uniqueKeysWithValues: lines.filter { $0["status"] as? String == "error" }.map {
            ($0["source"] as! String, $0["error"] as! String)
        })
        #expect(errors == [
            "broken/bad-crc.png": "could not decode: vipspng: libpng read error",
            "broken/corrupt-idat.png": "could not decode: vipspng: libpng read error",
            "broken/empty.jpg": "not a readable image: empty file (0 bytes)",
            "broken/garbage.heic": "not a readable image: VipsForeignLoad: buffer is not in a known format",
            "broken/notes.jpg": "not a readable image: VipsForeignLoad: buffer is not in a known format",
            "broken/truncated.jpg": "could not decode: VipsJpeg: Premature end of input file",
            "broken/truncated.png": "could not decode: vipspng: libpng read error",
        ])
        // The good photos were all processed.
        #expect(lines.filter { $0["status"] as? String == "ok" }.count == 5)
        for (source, reason) in errors {
            #expect(result.stderr.contains("facecrop: error: '\(source)': \(reason)"))
        }
        #expect(result.stderr.contains("7 failed"))
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect((stats["counts"] as! [String: Int]) == ["ok": 4, "no_face": 0, "no_person": 0, "error": 7])
        #expect(stats["faces"] as? Int == 5)
    }

    @Test func sameBytesWhateverTheNumberOfJobs() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces", "formats", "broken"], into: photos)
        let one = work.appendingPathComponent("one")
        let two = work.appendingPathComponent("two")
        _ = try runFaceCrop([photos.path, "-o", one.path, "--jobs", "1", "-q"])
        _ = try runFaceCrop([photos.path, "-o", two.path, "--jobs", "4", "-q"])
        var first = try fingerprintWithStableReport(one)
        var second = try fingerprintWithStableReport(two)
        #expect(first["report.html"] != nil && first["contact-sheet.png"] != nil)
        #expect(first.removeValue(forKey: "stats.json") != nil)
        #expect(second.removeValue(forKey: "stats.json") != nil)
        #expect(first.count > 10)
        #expect(first == second)
    }

    @Test func inputsAreNeverChanged() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces", "broken", "rotated"], into: photos)
        let before = try fingerprint(photos)
        _ = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("out").path, "-q"])
        #expect(try fingerprint(photos) == before)
    }

    @Test func photosWithTheSameStemKeepTheirOwnCrops() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for (from, to) in [("faces/astronaut.jpg", "a.jpg"), ("formats/astronaut.heic", "a.heic"), ("faces/grace_hopper.jpg", "a.png.jpg")] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(from), to: photos.appendingPathComponent(to))
        }
        let output = work.appendingPathComponent("out")
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let crops = try readManifest(output).compactMap { $0["crop"] as? String }
        #expect(crops == ["a.heic.face0.jpg", "a.jpg.face0.jpg", "a.png.jpg.face0.jpg"])
        for crop in crops { #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path)) }
    }

    @Test func outputInsideTheInputIsNotReadBack() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        try copyFixtures(["faces"], into: work)
        let output = work.appendingPathComponent("faces/dataset")
        #expect(try runFaceCrop([work.appendingPathComponent("faces").path, "-o", output.path, "-q"]).status == 0)
        let again = try runFaceCrop([work.appendingPathComponent("faces").path, "-o", output.path, "-q"])
        #expect(again.status == 0)
        #expect(try readManifest(output).allSatisfy { !($0["source"] as! String).hasPrefix("dataset") })
    }

    @Test func largestFacePngOutputAndPadding() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces"], into: photos)
        let output = work.appendingPathComponent("out")
        let result = try runFaceCrop([
            photos.path, "-o", output.path, "--faces", "largest", "--format", "png", "--margin", "3", "--pad", "black",
            "--size", "64", "-q",
        ])
        #expect(result.status == 0)
        let lines = try readManifest(output)
        #expect(lines.count == 4)  // one per photo, two-people.jpg included
        let twoPeople = try #require(lines.first { $0["source"] as? String == "faces/two-people.jpg" })
        #expect(rect(twoPeople["bbox"])!.width > 150)  // the larger of the two
        // margin 3 makes a 7x square, larger than these photos: padded.
        #expect(lines.allSatisfy { $0["padded"] as? Bool == true })
        let crop = output.appendingPathComponent(twoPeople["crop"] as! String)
        #expect(crop.pathExtension == "png")
        let header = try Picture.header(of: PhotoBytes(path: crop.path, source: "crop"), source: "crop")
        #expect(header.width == 64 && header.height == 64)
    }

    /// `facecrop-bench floor` (scripts/bench) takes its own detect-only path:
    /// it must find the faces a real run crops, and write nothing.
    @Test func floorFindsTheFacesARunCrops() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(Self.photoFolders, into: photos)
        let bench = URL(fileURLWithPath: facecropBinary).deletingLastPathComponent().appendingPathComponent("facecrop-bench")
        let floor = try runFaceCrop(["floor", photos.path, "--jobs", "2"], through: [bench.path])
        #expect(floor.status == 0, "stderr: \(floor.stderr)")
        let measured = try #require(try JSONSerialization.jsonObject(with: Data(floor.stdout.utf8)) as? [String: Any])
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path).allSatisfy { !$0.hasPrefix(".") })
        let output = work.appendingPathComponent("dataset")
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let lines = try readManifest(output)
        #expect(measured["photos"] as? Int == Set(lines.map { $0["source"] as! String }).count)
        #expect(measured["faces"] as? Int == lines.filter { $0["status"] as? String == "ok" }.count)
        #expect(measured["errors"] as? Int == 0)
    }
}
