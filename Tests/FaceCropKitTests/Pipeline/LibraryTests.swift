import Foundation
import Testing
import FaceCropCore
import FaceCropInputs


/// Photo libraries as people keep them (docs/libraries.md), each built at
/// test time from Fixtures' real photos in the layout its makers document,
/// and run through the real binary.
@Suite(.serialized)
struct LibraryTests {
    /// `fixture` with DateTimeOriginal and OffsetTimeOriginal (see `withCaptureTime`).
    func jpeg(_ fixture: String, taken: String, offset: String) throws -> Data {
        try withCaptureTime(Data(contentsOf: fixtures.appendingPathComponent(fixture)), taken: taken, offset: offset)
    }

    /// Crops carry nothing of their photo's metadata, in every format:
    /// the capture time (and so a GPS block beside it) is not in a crop's
    /// bytes. libvips 8.14's webpsave keeps EXIF whatever "strip" says; the
    /// shim removes it first (a WebP crop keeps only the few tags libvips
    /// makes itself: orientation 1 and the resolution).
    @Test(arguments: ["jpg", "png", "webp"])
    func cropsCarryNoneOfThePhotosMetadata(format: String) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let taken = "2019:07:14 10:31:07"
        try write(["photos/dated.jpg": try jpeg("faces/grace_hopper.jpg", taken: taken, offset: "+02:00")], under: work)
        let output = work.appendingPathComponent("out")
        let run = try runFaceCrop([work.appendingPathComponent("photos").path, "-o", output.path, "-q", "--format", format])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try photos(output)["dated.jpg"]?.taken != nil)
        let crops = try readManifest(output).compactMap { $0["crop"] as? String }
        #expect(!crops.isEmpty)
        for crop in crops {
            let bytes = try Data(contentsOf: output.appendingPathComponent(crop))
            #expect(bytes.range(of: Data(taken.utf8)) == nil, "\(crop)")
            #expect(bytes.range(of: Data("+02:00".utf8)) == nil, "\(crop)")
        }
    }

    /// The same as a HEIC, through libvips (which keeps the EXIF block).
    func heic(_ jpeg: Data, in work: URL) throws -> Data {
        let from = work.appendingPathComponent("exif.jpg")
        let to = work.appendingPathComponent("exif.heic")
        try jpeg.write(to: from)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["copy", from.path, to.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        defer {
            try? FileManager.default.removeItem(at: from)
            try? FileManager.default.removeItem(at: to)
        }
        return try Data(contentsOf: to)
    }

    func write(_ files: [String: Data], under root: URL) throws {
        for (path, data) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    func fixture(_ name: String) throws -> Data { try Data(contentsOf: fixtures.appendingPathComponent(name)) }

    /// Manifest lines by source: (status, crops, taken, names).
    func photos(_ output: URL) throws -> [String: (status: String, crops: Int, taken: String?, names: [String])] {
        var found: [String: (status: String, crops: Int, taken: String?, names: [String])] = [:]
        for line in try readManifest(output) {
            let source = line["source"] as! String
            var entry = found[source] ?? (line["status"] as! String, 0, line["taken"] as? String, line["names"] as? [String] ?? [])
            if line["crop"] != nil { entry.crops += 1 }
            found[source] = entry
        }
        return found
    }

    /// An Apple Photos library (Photos 5+), as osxphotos documents it:
    /// `database/Photos.sqlite`, `originals/X/UUID.ext`, derivatives and
    /// thumbnails under `resources/derivatives/`, edits under
    /// `resources/renders/X/UUID_1_201_a.jpeg`. The third photo has a
    /// derivative only (its original in iCloud: "Optimize Mac Storage").
    @Test func anApplePhotosLibraryGivesItsOriginalsOrItsEdits() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let bundle = work.appendingPathComponent("Pictures/Photos Library.photoslibrary")
        let one = "A1B2C3D4-0000-4000-8000-000000000001"
        let two = "B1B2C3D4-0000-4000-8000-000000000002"
        let three = "C1B2C3D4-0000-4000-8000-000000000003"
        let small = try fixture("faces/astronaut.jpg")
        try write(
            [
                "database/Photos.sqlite": Data("SQLite format 3\0".utf8),
                "originals/A/\(one).jpeg": try jpeg("faces/astronaut.jpg", taken: "2021:03:14 09:26:53", offset: "-05:00"),
                "originals/B/\(two).jpeg": try fixture("faces/grace_hopper.jpg"),
                "resources/derivatives/A/\(one)_1_105_c.jpeg": small,
                "resources/derivatives/B/\(two)_1_105_c.jpeg": small,
                // The third photo's largest derivative (two faces) and a smaller one.
                "resources/derivatives/C/\(three)_1_105_c.jpeg": try fixture("faces/two-people.jpg"),
                "resources/derivatives/C/\(three)_1_102_o.jpeg": try fixture("noface/camera.jpg"),
                "resources/derivatives/masters/C/\(three)_4_5005_c.jpeg": small,
                "resources/derivatives/masters/A/\(one)_4_5005_c.jpeg": small,
                // The edit of the first photo: another photo, two faces, so its crops tell.
                "resources/renders/A/\(one)_1_201_a.jpeg": try fixture("faces/two-people.jpg"),
                "resources/renders/A/\(one)_1_201_a.plist": Data("<plist/>".utf8),
            ], under: bundle)

        let output = work.appendingPathComponent("out")
        let run = try runFaceCrop([work.appendingPathComponent("Pictures").path, "-o", output.path, "-q"])
        #expect(run.status == 1)  // the missing original is one error line
        var found = try photos(output)
        #expect(found.count == 3)
        #expect(found["Photos Library.photoslibrary/originals/A/\(one).jpeg"]?.crops == 1)
        #expect(found["Photos Library.photoslibrary/originals/A/\(one).jpeg"]?.taken == "2021-03-14T09:26:53-05:00")
        #expect(found["Photos Library.photoslibrary/originals/B/\(two).jpeg"]?.crops == 1)
        #expect(found["Photos Library.photoslibrary/originals/B/\(two).jpeg"]?.taken == nil)
        let missing = try readManifest(output).first { ($0["source"] as! String).hasSuffix("/originals") }
        #expect(missing?["error"] as? String == "cannot read file: 1 of 3 photos of this Apple Photos library have no original here (kept in iCloud with \"Optimize Mac Storage\"); download the originals in Photos to include them, or use --library-derivatives")

        let edits = work.appendingPathComponent("edits")
        _ = try runFaceCrop([bundle.path, "-o", edits.path, "-q", "--library-edits"])
        found = try photos(edits)
        #expect(found.keys.sorted() == ["originals", "originals/B/\(two).jpeg", "resources/renders/A/\(one)_1_201_a.jpeg"])
        #expect(found["resources/renders/A/\(one)_1_201_a.jpeg"]?.crops == 2)

        let derived = work.appendingPathComponent("derived")
        #expect(try runFaceCrop([bundle.path, "-o", derived.path, "-q", "--library-derivatives"]).status == 0)
        found = try photos(derived)
        #expect(found.keys.sorted() == ["originals/A/\(one).jpeg", "originals/B/\(two).jpeg", "resources/derivatives/C/\(three)_1_105_c.jpeg"])
        #expect(found["resources/derivatives/C/\(three)_1_105_c.jpeg"]?.crops == 2)
    }

    /// An iPhone import: the HEIC original, its edit IMG_E….JPG, the edit's
    /// instructions (.AAE), and a photo without EXIF.
    @Test func anIPhoneImportSkipsEditsAndAAE() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("phone")
        let dcim = photos.appendingPathComponent("DCIM/100APPLE")
        let original = try heic(try jpeg("faces/astronaut.jpg", taken: "2023:08:01 17:45:10", offset: "+09:00"), in: work)
        try write(
            [
                "IMG_1234.HEIC": original,
                "IMG_E1234.JPG": try fixture("faces/two-people.jpg"),
                "IMG_1234.AAE": Data("<?xml version=\"1.0\"?><plist/>".utf8),
                "IMG_1235.JPG": try fixture("faces/grace_hopper.jpg"),
            ], under: dcim)
        let output = work.appendingPathComponent("out")
        let run = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(run.status == 0)
        var found = try self.photos(output)
        #expect(found.keys.sorted() == ["DCIM/100APPLE/IMG_1234.HEIC", "DCIM/100APPLE/IMG_1235.JPG"])
        #expect(found["DCIM/100APPLE/IMG_1234.HEIC"]?.crops == 1)
        #expect(found["DCIM/100APPLE/IMG_1234.HEIC"]?.taken == "2023-08-01T17:45:10+09:00")
        #expect(found["DCIM/100APPLE/IMG_1235.JPG"]?.crops == 1)

        let edits = work.appendingPathComponent("edits")
        #expect(try runFaceCrop([photos.path, "-o", edits.path, "-q", "--library-edits"]).status == 0)
        found = try self.photos(edits)
        #expect(found.keys.sorted() == ["DCIM/100APPLE/IMG_1235.JPG", "DCIM/100APPLE/IMG_E1234.JPG"])
        #expect(found["DCIM/100APPLE/IMG_E1234.JPG"]?.crops == 2)
    }

    /// A Google Photos Takeout folder with a sidecar of each naming kind
    /// the community's references describe, people's names, and edited copies.
    @Test func aGoogleTakeoutPairsSidecarsNamesAndTimes() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let year = work.appendingPathComponent("Takeout/Google Photos/Photos from 2019")
        func sidecar(_ title: String, _ seconds: Int, _ people: [String]) -> Data {
            let names = people.map { "{\"name\": \"\($0)\"}" }.joined(separator: ", ")
            return Data("""
                {"title": "\(title)", "photoTakenTime": {"timestamp": "\(seconds)", "formatted": "x"}, "people": [\(names)]}
                """.utf8)
        }
        let long = "PXL_20190706_101010123.PORTRAIT-01.COVER_long.jpg"  // 49 characters
        let longSidecar = String((long + ".supplemental-metadata").prefix(46)) + ".json"
        let astronaut = try fixture("faces/astronaut.jpg")
        try write(
            [
                "IMG_20190704_123005.jpg": astronaut,
                "IMG_20190704_123005.jpg.supplemental-metadata.json": sidecar("IMG_20190704_123005.jpg", 1_562_236_205, ["Alice", "Bob"]),
                "IMG_20190704_123005-edited.jpg": try fixture("faces/two-people.jpg"),
                "grace.jpg": try fixture("faces/grace_hopper.jpg"),
                "grace.jpg.json": sidecar("grace.jpg", 1_562_400_000, ["Grace Hopper"]),
                "grace-bearbeitet.jpg": astronaut,
                "short.jpg": astronaut,
                "short.jpg.suppl.json": sidecar("short.jpg", 1_562_500_000, []),
                long: astronaut,
                longSidecar: sidecar(long, 1_562_600_000, ["Carol"]),
                "IMG.jpg": astronaut,
                "IMG.jpg.json": sidecar("IMG.jpg", 1_562_700_000, ["Dan"]),
                "IMG(1).jpg": try jpeg("faces/astronaut.jpg", taken: "2019:07:10 08:00:00", offset: ""),
                "IMG.jpg(1).json": sidecar("IMG(1).jpg", 1_562_800_000, ["Erin"]),
                "metadata.json": Data("{\"title\": \"Photos from 2019\"}".utf8),
            ], under: year)
        let output = work.appendingPathComponent("out")
        #expect(try runFaceCrop([work.appendingPathComponent("Takeout").path, "-o", output.path, "-q"]).status == 0)
        let found = try photos(output)
        let folder = "Google Photos/Photos from 2019/"
        #expect(found.keys.sorted() == ["IMG(1).jpg", "IMG.jpg", "IMG_20190704_123005.jpg", long, "grace.jpg", "short.jpg"].map { folder + $0 }.sorted())
        #expect(found.values.allSatisfy { $0.crops == 1 })
        #expect(found[folder + "IMG_20190704_123005.jpg"]?.taken == "2019-07-04T10:30:05Z")
        #expect(found[folder + "IMG_20190704_123005.jpg"]?.names == ["Alice", "Bob"])
        #expect(found[folder + "grace.jpg"]?.names == ["Grace Hopper"])
        #expect(found[folder + "short.jpg"]?.taken == "2019-07-07T11:46:40Z")
        #expect(found[folder + "short.jpg"]?.names == [])
        #expect(found[folder + long]?.names == ["Carol"])
        #expect(found[folder + "IMG.jpg"]?.names == ["Dan"])
        // EXIF first, then the sidecar; the numbered copy's own sidecar.
        #expect(found[folder + "IMG(1).jpg"]?.taken == "2019-07-10T08:00:00")
        #expect(found[folder + "IMG(1).jpg"]?.names == ["Erin"])
        let metadata = try String(contentsOf: output.appendingPathComponent("metadata.jsonl"), encoding: .utf8)
        #expect(metadata.contains("\"names\": [\"Alice\", \"Bob\"]"))
        #expect(metadata.contains("\"taken\": \"2019-07-04T10:30:05Z\""))

        // --since / --until on the capture time (the clock reading, both ends
        // included), on a rerun: the photos outside go, with their crops.
        let ranged = try runFaceCrop([
            work.appendingPathComponent("Takeout").path, "-o", output.path, "--since", "2019-07-07", "--until", "2019-07-09T23:59",
        ])
        #expect(ranged.status == 0)
        #expect(ranged.stderr.contains("facecrop: 3 photos left out by --since/--until"))
        #expect(try photos(output).keys.sorted() == ["IMG.jpg", long, "short.jpg"].map { folder + $0 }.sorted())
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent(folder + "grace.jpg.face0.jpg").path))
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(folder + "short.jpg.face0.jpg").path))
        // Up to date with the same dates (the photos left out are not new);
        // a wider range would take one back.
        let range = ["--since", "2019-07-07", "--until", "2019-07-09T23:59"]
        let check = try runFaceCrop([work.appendingPathComponent("Takeout").path, "-o", output.path, "--check"] + range)
        #expect(check.status == 0 && check.stdout == "")
        let wider = try runFaceCrop([work.appendingPathComponent("Takeout").path, "-o", output.path, "--check", "--since", "2019-07-06", "--until", "2019-07-09"])
        #expect(wider.status == 1 && wider.stdout == "new: \(folder)grace.jpg\n")
    }

    @Test(arguments: [
        ("2019:07:04 12:30:05 (2019:07:04 12:30:05, ASCII, 20 components, 20 bytes)", "+02:00 (+02:00, ASCII, 7 components, 7 bytes)", "2019-07-04T12:30:05+02:00"),
        ("2019:07:04 12:30:05", "", "2019-07-04T12:30:05"),
        ("2019:07:04 12:30:05", "-0530", "2019-07-04T12:30:05-05:30"),
        ("0000:00:00 00:00:00", "", nil),
        ("    :  :     :  :  ", "", nil),
        ("2019:13:04 12:30:05", "", nil),
    ] as [(String, String, String?)])
    func exifTimesBecomeTaken(date: String, offset: String, taken: String?) {
        #expect(CaptureTime(exifDate: date, offset: offset)?.description == taken)
    }

    @Test(arguments: [
        ("2024-05-01", false, "2024-05-01T00:00:00"), ("2024-05-01", true, "2024-05-01T23:59:59"),
        ("2024-05-01T08:30", true, "2024-05-01T08:30:59"), ("2024-05-01 08:30:15", false, "2024-05-01T08:30:15"),
        ("2024-5-1", false, nil), ("yesterday", false, nil), ("2024-02-30x", false, nil),
    ] as [(String, Bool, String?)])
    func dateBounds(text: String, end: Bool, bound: String?) {
        #expect(DateRange.bound(text, end: end) == bound)
    }

    @Test func aBadDateIsAUsageError() throws {
        let run = try runFaceCrop([fixtures.path, "-o", "/nonexistent/out", "--since", "May 2024"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("Error: '--since' wants a date like 2024-05-01 or 2024-05-01T08:30, not 'May 2024'\n"))
    }

    @Test func takeoutSidecarNames() {
        let jsons: Set<String> = [
            "a.jpg.json", "b.jpg.supplemental-metadata.json", "c.jpg.supplemental-metad.json", "d.jpg..json",
            "e.jpg(2).json", "f.jpg.supplemental-metadata(1).json", "g.json",
        ]
        let photos = ["a.jpg", "b.jpg", "c.jpg", "d.jpg", "e(2).jpg", "f(1).jpg", "g.jpg", "a-edited.jpg", "h.jpg"]
        #expect(Libraries.sidecars(photos: photos, jsons: jsons) == [
            "a.jpg": "a.jpg.json", "b.jpg": "b.jpg.supplemental-metadata.json", "c.jpg": "c.jpg.supplemental-metad.json",
            "d.jpg": "d.jpg..json", "e(2).jpg": "e.jpg(2).json", "f(1).jpg": "f.jpg.supplemental-metadata(1).json",
            "g.jpg": "g.json", "a-edited.jpg": "a.jpg.json",
        ])
    }
}
