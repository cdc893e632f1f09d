import Foundation
import Testing
import FaceCropCore


/// Face tags in XMP with the real binary, Exiv2 and exiftool: Fixtures'
/// portraits are tagged at test time by exiftool (Debian's
/// libimage-exiftool-perl), embedded and as sidecars, in both schemas
/// (Fixtures/SOURCES.md).
@Suite(.serialized)
struct FaceTagTests {
    /// exiftool with `arguments`; its output.
    @discardableResult
    static func exiftool(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/exiftool")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "exiftool \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    /// exiftool's MWG region argument: `regions` as (name, centre x, centre y, w, h).
    static func mwg(_ regions: [(String?, Double, Double, Double, Double)], applied: (Int, Int)? = nil) -> String {
        let list = regions.map { name, x, y, w, h in
            "{Area={X=\(x),Y=\(y),W=\(w),H=\(h),Unit=normalized},\(name.map { "Name=\(escape($0))," } ?? "")Type=Face}"
        }
        let dimensions = applied.map { "AppliedToDimensions={W=\($0.0),H=\($0.1),Unit=pixel}," } ?? ""
        return "-XMP-mwg-rs:RegionInfo={\(dimensions)RegionList=[\(list.joined(separator: ","))]}"
    }

    /// exiftool's Microsoft region argument: (name, left, top, w, h).
    static func mp(_ regions: [(String, Double, Double, Double, Double)]) -> String {
        let list = regions.map { name, x, y, w, h in
            "{PersonDisplayName=\(escape(name)),Rectangle=\(x)|, \(y)|, \(w)|, \(h)}"
        }
        return "-XMP-MP:RegionInfoMP={Regions=[\(list.joined(separator: ","))]}"
    }

    /// exiftool's structure values escape ',' '|' '{' '}' '[' ']' '=' with '|'.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            if ",|{}[]=".contains(character) { out.append("|") }
            out.append(character)
        }
        return out
    }

    /// Tags `fixture` into `target` (an image, embedded) or writes a sidecar (a `.xmp` path).
    static func tag(_ fixture: String, _ target: URL, _ argument: String) throws {
        try exiftool(["-q", "-o", target.path, argument, fixtures.appendingPathComponent(fixture).path])
    }

    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> RunResult {
        let result = try runFaceCrop(arguments, environment: environment)
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return result
    }

    // two-people.jpg (1024 x 512): Grace Hopper's face at about [177, 67, 94, 94], Eileen Collins' at [646, 93, 182, 182].
    static let hopper = ("Smith, John", 0.21875, 0.22266, 0.0918, 0.1836)
    static let collins = (0.7197, 0.3594, 0.1777, 0.3555)
    /// Where there is no face: a tag the detector misses.
    static let missed = ("Anna (Mom)", 0.45, 0.75, 0.1, 0.2)

    /// A face only its tag found is aligned like a detected one: dlib's
    /// predictor places its eyes (a haar pass that needs 100 windows finds
    /// no face here).
    @Test func aFaceOnlyItsTagFoundIsAligned() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let h = Self.hopper
        try Self.tag("faces/two-people.jpg", photos.appendingPathComponent("tagged.jpg"), Self.mwg([(h.0, h.1, h.2, h.3, h.4)]))
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--detector", "haar", "--min-neighbors", "100", "--align", "level"])
        let lines = try readManifest(output).filter { $0["found_by"] as? String == "tag" }
        #expect(lines.count == 1)
        let line = try #require(lines.first)
        #expect(line["tag_name"] as? String == "Smith, John")
        #expect((line["landmarks"] as? [String: Any])?.isEmpty == false)
        // Hopper's head is nearly level: the crop is turned by a few degrees at most.
        #expect(abs((line["angle"] as? NSNumber)?.doubleValue ?? 99) < 10)
        #expect(line["aligned"] as? Bool == true)
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--detector", "haar", "--min-neighbors", "100", "--align", "level", "--check"]).status == 0)
    }

    @Test func bothSchemasEmbeddedAndSidecarNameTheirFaces() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let h = Self.hopper
        let c = Self.collins
        // MWG embedded, with an unnamed ("Unknown") tag and a missed one.
        try Self.tag(
            "faces/two-people.jpg", photos.appendingPathComponent("mwg-embedded.jpg"),
            Self.mwg([(h.0, h.1, h.2, h.3, h.4), ("Unknown", c.0, c.1, c.2, c.3), (Self.missed.0, 0.45, 0.75, 0.1, 0.2)]))
        // Microsoft embedded (top-left rectangles).
        try Self.tag(
            "faces/two-people.jpg", photos.appendingPathComponent("mp-embedded.jpg"),
            Self.mp([("李小龙", h.1 - h.3 / 2, h.2 - h.4 / 2, h.3, h.4), ("Dr. Who: Jr", c.0 - c.2 / 2, c.1 - c.3 / 2, c.2, c.3)]))
        // Sidecars: IMG.jpg.xmp (MWG) and IMG.xmp (Microsoft).
        for name in ["mwg-sidecar.jpg", "mp-sidecar.jpg"] {
            try FileManager.default.copyItem(
                at: fixtures.appendingPathComponent("faces/two-people.jpg"), to: photos.appendingPathComponent(name))
        }
        try Self.exiftool(["-q", "-o", photos.appendingPathComponent("mwg-sidecar.jpg.xmp").path, Self.mwg([(h.0, h.1, h.2, h.3, h.4)])])
        try Self.exiftool(["-q", "-o", photos.appendingPathComponent("mp-sidecar.xmp").path, Self.mp([("Anna (Mom)", h.1 - h.3 / 2, h.2 - h.4 / 2, h.3, h.4)])])
        let before = try fingerprint(photos)

        let output = work.appendingPathComponent("out")
        let result = try run([photos.path, "-o", output.path])
        let lines = linesBySource(try readManifest(output))
        func names(_ source: String) -> [String] {
            lines[source, default: []].compactMap { $0["tag_name"] as? String }.sorted()
        }
        #expect(names("mwg-embedded.jpg") == ["Anna (Mom)", "Smith, John"])
        #expect(names("mp-embedded.jpg") == ["Dr. Who: Jr", "李小龙"])
        #expect(names("mwg-sidecar.jpg") == ["Smith, John"])
        #expect(names("mp-sidecar.jpg") == ["Anna (Mom)"])
        // The name is on Hopper's face (left), in `names` on every line.
        let hopperLine = lines["mwg-embedded.jpg", default: []].first { $0["tag_name"] as? String == "Smith, John" }
        #expect((rect(hopperLine?["bbox"])?.x ?? 0) < 300)
        #expect((hopperLine?["names"] as? [String]) == ["Anna (Mom)", "Smith, John"])
        // The unnamed tag marks its face, with no name.
        let unnamed = lines["mwg-embedded.jpg", default: []].filter { $0["tagged"] as? Bool == true && $0["tag_name"] == nil }
        #expect(unnamed.count == 1)
        // The missed tag has its own crop, found by the tag.
        let missed = lines["mwg-embedded.jpg", default: []].filter { $0["found_by"] as? String == "tag" }
        #expect(missed.count == 1)
        #expect(missed.first?["tag_name"] as? String == "Anna (Mom)")
        if let crop = missed.first?["crop"] as? String {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
        }
        // The yardstick: 3 + 2 + 1 + 1 tags, of which the detector found all
        // but the one where there is no face.
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["tagged_faces"] as? Int == 7)
        #expect(stats["tagged_faces_found"] as? Int == 6)
        #expect(result.stderr.contains("6 of 7 tagged faces found (85.7 %)"))
        let report = try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8)
        #expect(report.contains("data-stat=\"tagged_faces_found\">6<"))
        #expect(try fingerprint(photos) == before)

        // --no-tagged-faces: no crop from the tag; the names and the yardstick stay.
        let plain = work.appendingPathComponent("plain")
        _ = try run([photos.path, "-o", plain.path, "-q", "--no-tagged-faces"])
        let plainLines = try readManifest(plain)
        #expect(!plainLines.contains { $0["found_by"] != nil })
        #expect(plainLines.filter { $0["tag_name"] as? String == "Smith, John" }.count == 2)

        // Written back: exiftool reads the names and areas of the crops' boxes.
        let exported = work.appendingPathComponent("xmp")
        _ = try run(["export", "xmp", output.path, exported.path, "-q"])
        let sidecar = exported.appendingPathComponent("mwg-embedded.jpg.xmp")
        let json = try Self.exiftool(["-j", "-struct", "-RegionInfo", sidecar.path])
        let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [[String: Any]]
        let info = parsed.first?["RegionInfo"] as? [String: Any]
        let regions = info?["RegionList"] as? [[String: Any]] ?? []
        #expect(Set(regions.compactMap { $0["Name"] as? String }) == ["Smith, John", "Anna (Mom)"])
        for region in regions {
            let line = lines["mwg-embedded.jpg", default: []].first { $0["tag_name"] as? String == region["Name"] as? String }
            guard let box = rect(line?["bbox"]), let area = region["Area"] as? [String: Any] else {
                Issue.record("no box for \(region)")
                continue
            }
            let value = { (key: String) in (area[key] as? NSNumber)?.doubleValue ?? -1 }
            #expect(abs(value("X") - (Double(box.x) + Double(box.width) / 2) / 1024) < 0.01)
            #expect(abs(value("Y") - (Double(box.y) + Double(box.height) / 2) / 512) < 0.01)
            #expect(abs(value("W") - Double(box.width) / 1024) < 0.01)
            #expect(abs(value("H") - Double(box.height) / 512) < 0.01)
        }
        // The photos are never written, nor written beside.
        #expect(try fingerprint(photos) == before)
        let beside = try runFaceCrop(["export", "xmp", output.path, photos.path])
        #expect(beside.status != 0)
        #expect(try fingerprint(photos) == before)
    }

    @Test func aSidecarOutranksEmbeddedRegionsAndResizedExportsScale() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let h = Self.hopper
        // Embedded says "Embedded"; the sidecar says "Sidecar": the sidecar wins.
        try Self.tag("faces/two-people.jpg", photos.appendingPathComponent("both.jpg"), Self.mwg([("Embedded", h.1, h.2, h.3, h.4)]))
        try Self.exiftool(["-q", "-o", photos.appendingPathComponent("both.jpg.xmp").path, Self.mwg([("Sidecar", h.1, h.2, h.3, h.4)])])
        // Tagged on a 2048 x 1024 original, exported at 1024 x 512: the normalised area still fits.
        try Self.tag(
            "faces/two-people.jpg", photos.appendingPathComponent("resized.jpg"),
            Self.mwg([("Resized", h.1, h.2, h.3, h.4)], applied: (2048, 1024)))
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q"])
        let lines = linesBySource(try readManifest(output))
        #expect(lines["both.jpg", default: []].compactMap { $0["tag_name"] as? String } == ["Sidecar"])
        let resized = lines["resized.jpg", default: []].first { $0["tag_name"] != nil }
        #expect(resized?["tag_name"] as? String == "Resized")
        #expect(resized?["found_by"] == nil)
    }

    /// astronaut-orient-6.jpg: stored 512 x 384, shown turned 90 degrees
    /// clockwise (384 x 512), the face at about [113, 66, 96, 96] upright.
    @Test func aRotatedPhotosRegionsAreTurnedWithIt() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // Upright x 0.294...0.544, y 0.129...0.316 are, in the stored pixels
        // (u = y, v = 1 - x), u 0.129...0.316, v 0.456...0.706.
        try Self.tag(
            "rotated/astronaut-orient-6.jpg", photos.appendingPathComponent("stored.jpg"),
            Self.mwg([("Stored", 0.22266, 0.58073, 0.1875, 0.25)], applied: (512, 384)))
        // Written on the photo as shown: AppliedToDimensions has the upright shape.
        try Self.tag(
            "rotated/astronaut-orient-6.jpg", photos.appendingPathComponent("shown.jpg"),
            Self.mwg([("Shown", 0.41927, 0.22266, 0.25, 0.1875)], applied: (384, 512)))
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q"])
        let lines = linesBySource(try readManifest(output))
        for (source, name) in [("stored.jpg", "Stored"), ("shown.jpg", "Shown")] {
            let named = lines[source, default: []].filter { $0["tag_name"] as? String == name }
            #expect(named.count == 1, "\(source)")
            #expect(named.first?["found_by"] == nil, "\(source): the tag missed the face")
            if let box = rect(named.first?["bbox"]) {
                #expect(intersectionOverUnion(box, PixelRect(x: 113, y: 66, width: 96, height: 96)) > 0.5)
            }
        }
    }

    @Test func badXMPIsAWarningAndThePhotoIsStillProcessed() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        let sidecars: [String: String] = [
            "notxml": "this is not XML\n",
            "malformed": "<x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>",
            "laughs": """
                <?xml version="1.0"?>
                <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
                <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
                <x:xmpmeta xmlns:x='adobe:ns:meta/'>&lol3;</x:xmpmeta>
                """,
        ]
        for (name, text) in sidecars {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent("faces/astronaut.jpg"), to: photos.appendingPathComponent(name + ".jpg"))
            try text.write(to: photos.appendingPathComponent(name + ".jpg.xmp"), atomically: true, encoding: .utf8)
        }
        try Self.tag("faces/astronaut.jpg", photos.appendingPathComponent("outside.jpg"), Self.mwg([("Out", 1.4, 0.5, 0.2, 0.2)]))
        try Self.tag("faces/astronaut.jpg", photos.appendingPathComponent("zero.jpg"), Self.mwg([("Zero", 0.5, 0.5, 0, 0.2)]))
        try Self.tag("faces/astronaut.jpg", photos.appendingPathComponent("negative.jpg"), Self.mp([("Neg", 0.2, 0.2, -0.1, 0.2)]))
        let before = try fingerprint(photos)
        let first = try run([photos.path, "-o", work.appendingPathComponent("a").path, "-q"])
        let second = try run([photos.path, "-o", work.appendingPathComponent("b").path, "-q"])
        let expected = [
            "facecrop: warning: laughs.jpg.xmp: XMP with a DOCTYPE or an entity declaration; its face tags are skipped",
            "facecrop: warning: malformed.jpg.xmp: not well-formed XMP; its face tags are skipped",
            "facecrop: warning: negative.jpg: MP region 1: zero or negative size; skipped",
            "facecrop: warning: notxml.jpg.xmp: not well-formed XMP; its face tags are skipped",
            "facecrop: warning: outside.jpg: mwg-rs region 1: lies outside the photo; skipped",
            "facecrop: warning: zero.jpg: mwg-rs region 1: zero or negative size; skipped",
        ]
        #expect(first.stderr.split(separator: "\n").map(String.init) == expected)
        #expect(second.stderr == first.stderr)
        let lines = try readManifest(work.appendingPathComponent("a"))
        #expect(lines.count == 6)
        #expect(lines.allSatisfy { $0["status"] as? String == "ok" && $0["tagged"] == nil })
        #expect(try fingerprint(photos) == before)
    }

    /// A name people.txt writes in quotes.
    static let quoted = "李小龙, \"Dr. Who\": Jr # 2"

    /// A tag names its face's group under --people (astronaut.jpg and
    /// astronaut-large.jpg are one person, only the first tagged); a
    /// people.txt statement about the group outranks the tag. Any name
    /// names (here CJK, a comma, quotes, ':' and '#'), and `export xmp`
    /// writes it back; a name that cannot name a person (too long) is said
    /// once, with the file that gave it.
    @Test func tagsNameGroupsBelowThePeopleFile() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // astronaut.jpg (512 x 512): the face at about [177, 66, 95, 95];
        // grace_hopper.jpg (512 x 600): at about [150, 100, 232, 232].
        try Self.tag("faces/astronaut.jpg", photos.appendingPathComponent("astronaut.jpg"), Self.mwg([("Eileen Collins", 0.4385, 0.2217, 0.1855, 0.1855)]))
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("faces/astronaut-large.jpg"), to: photos.appendingPathComponent("astronaut-large.jpg"))
        let long = String(repeating: "x", count: 65)
        for (photo, name) in [("hopper-1.jpg", Self.quoted), ("hopper-2.jpg", long)] {
            try Self.tag("faces/grace_hopper.jpg", photos.appendingPathComponent(photo), Self.mwg([(name, 0.5195, 0.36, 0.4531, 0.3867)]))
        }
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = packageRoot.appendingPathComponent("models").path
        let output = work.appendingPathComponent("out")
        func persons() throws -> [String: String?] {
            var result: [String: String?] = [:]
            for line in try readManifest(output) where line["crop"] != nil { result[line["source"] as! String] = line["person"] as? String }
            return result
        }
        let first = try run([photos.path, "-o", output.path, "-q", "--people"], environment: environment)
        var named = try persons()
        #expect(named["astronaut.jpg"] == "Eileen Collins")
        #expect(named["astronaut-large.jpg"] == "Eileen Collins")
        #expect(named["hopper-1.jpg"] == Self.quoted)
        #expect(named["hopper-2.jpg"] == Self.quoted)
        let warning = "facecrop: warning: hopper-2.jpg: the name '\(long)' is longer than 64 characters"
        #expect(first.stderr.components(separatedBy: "the name '\(long)'").count == 2, "\(first.stderr)")
        #expect(first.stderr.contains(warning), "\(first.stderr)")
        #expect(first.stderr.contains("it stays in the manifest's names but names no person"))
        // Written back: exiftool reads the person's name from both photos.
        let exported = work.appendingPathComponent("xmp")
        _ = try run(["export", "xmp", output.path, exported.path, "-q"])
        for photo in ["hopper-1.jpg", "hopper-2.jpg"] {
            let json = try Self.exiftool(["-j", "-struct", "-RegionInfo", exported.appendingPathComponent(photo + ".xmp").path])
            let parsed = try JSONSerialization.jsonObject(with: Data(json.utf8)) as! [[String: Any]]
            let regions = (parsed.first?["RegionInfo"] as? [String: Any])?["RegionList"] as? [[String: Any]] ?? []
            #expect(regions.compactMap { $0["Name"] as? String } == [Self.quoted], "\(photo)")
        }
        let large = try readManifest(output).first { $0["source"] as? String == "astronaut-large.jpg" }!
        let box = (large["bbox"] as! [Int]).map(String.init).joined(separator: ",")
        try "Commander = \(large["sha256"] as! String) \(box)\n".write(
            to: output.appendingPathComponent("people.txt"), atomically: true, encoding: .utf8)
        _ = try run([photos.path, "-o", output.path, "-q", "--people"], environment: environment)
        named = try persons()
        #expect(named["astronaut.jpg"] == "Commander")
        #expect(named["astronaut-large.jpg"] == "Commander")
    }

    /// XMP embedded in a PNG (iTXt) and a TIFF (tag 700), as libvips hands it over with the header.
    @Test func embeddedInPNGAndTIFF() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        // astronaut-rgba.png (320 x 320): the face at about [78, 64, 100, 100]; astronaut.tif as astronaut.jpg.
        try Self.tag("formats/astronaut-rgba.png", photos.appendingPathComponent("a.png"), Self.mwg([("Png", 0.4, 0.35625, 0.3125, 0.3125)]))
        try Self.tag("formats/astronaut.tif", photos.appendingPathComponent("a.tif"), Self.mp([("Tiff", 0.3457, 0.1289, 0.1855, 0.1855)]))
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q"])
        let lines = linesBySource(try readManifest(output))
        for (source, name) in [("a.png", "Png"), ("a.tif", "Tiff")] {
            let named = lines[source, default: []].filter { $0["tag_name"] as? String == name }
            #expect(named.count == 1, "\(source)")
            #expect(named.first?["found_by"] == nil, "\(source)")
        }
    }

    /// A person said a face is there: a 32 px tagged face gets its crop at
    /// the default --min-face 48, found by its tag, and stats count it.
    /// two-people.jpg at 0.34: Hopper's face 32 px, Collins' 62 px.
    @Test func aTaggedFaceUnderMinFaceGetsItsCrop() throws {
        let (work, photos) = try fixturePhotos([])
        defer { try? FileManager.default.removeItem(at: work) }
        let photo = photos.appendingPathComponent("small.jpg")
        _ = try runTool("/usr/bin/vips", ["resize", fixtures.appendingPathComponent("faces/two-people.jpg").path, photo.path, "0.34"])
        let h = Self.hopper
        try Self.exiftool(["-q", "-o", photos.appendingPathComponent("small.jpg.xmp").path, Self.mwg([("Siobhán", h.1, h.2, h.3, h.4)])])
        let output = work.appendingPathComponent("out")
        let result = try run([photos.path, "-o", output.path, "--no-report", "--no-contact-sheet"])
        let lines = try readManifest(output)
        let tagged = try #require(lines.first { $0["tag_name"] as? String == "Siobhán" })
        #expect(tagged["found_by"] as? String == "tag")
        #expect((29..<48).contains(max(rect(tagged["bbox"])?.width ?? 0, rect(tagged["bbox"])?.height ?? 0)))
        let crop = try #require(tagged["crop"] as? String)
        #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        #expect(stats["found_by_tag"] as? Int == 1)
        #expect(result.stderr.contains(", 1 cropped from their tag"), "\(result.stderr)")
        // As a dataset made when such a tag got no crop: --check names the photo and why.
        let state = output.appendingPathComponent(".facecrop/state.jsonl")
        let entries = try String(contentsOf: state, encoding: .utf8).split(separator: "\n").map { line -> String in
            // The entry as written up to its lines (the state's readers expect its form), without the tag's line and crop.
            guard line.contains(crop), let start = line.range(of: "\"lines\": "),
                let lines = (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["lines"] as? [String]
            else { return String(line) }
            let kept = try JSONSerialization.data(withJSONObject: lines.filter { !$0.contains("\"found_by\": \"tag\"") })
            let head = line[..<start.upperBound].replacingOccurrences(of: ",\"\(crop)\"", with: "")
            return head.replacingOccurrences(of: "\"\(crop)\",", with: "") + String(decoding: kept, as: UTF8.self) + "}"
        }
        try (entries.joined(separator: "\n") + "\n").write(to: state, atomically: true, encoding: .utf8)
        let check = try runFaceCrop([photos.path, "-o", output.path, "--check", "--no-report", "--no-contact-sheet"])
        #expect(check.stdout == "tagged face without a crop: small.jpg\n")
        _ = try run([photos.path, "-o", output.path, "-q", "--no-report", "--no-contact-sheet"])
        #expect(try runFaceCrop([photos.path, "-o", output.path, "--check", "--no-report", "--no-contact-sheet"]).status == 0)
        let plain = work.appendingPathComponent("plain")  // --no-tagged-faces: the detector's faces only.
        _ = try run([photos.path, "-o", plain.path, "-q", "--no-tagged-faces"])
        #expect(!(try readManifest(plain)).contains { $0["tag_name"] as? String == "Siobhán" })
    }
}
