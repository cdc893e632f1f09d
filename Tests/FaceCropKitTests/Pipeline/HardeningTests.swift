import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropInputs
import FaceCropOutput
import FaceCropKit


/// Hostile input, odd names, permissions, a full disk, signals: each is
/// reported per file, the run goes on where it can, nothing partial is left.
@Suite(.serialized)
struct HardeningTests {
    @Test func hostileFilesAreRefusedOrSurvived() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["hostile"], into: photos)
        let output = work.appendingPathComponent("out")
        let result = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(result.status == 1)
        let lines = Dictionary(grouping: try readManifest(output)) { $0["source"] as! String }
        for bomb in ["hostile/bomb-60000.png", "hostile/bomb-60000.jpg"] {
            #expect(lines[bomb]?.first?["error"] as? String == "refused: 60000 x 60000 pixels is over the limit of 200000000 pixels (--max-pixels)")
            #expect(result.stderr.contains("'\(bomb)': refused"))
        }
        let nine = try #require(lines["hostile/orientation-9.jpg"]?.first)
        #expect(nine["status"] as? String == "ok")
        #expect(intersectionOverUnion(rect(nine["bbox"])!, PixelRect(x: 113, y: 65, width: 96, height: 96)) > 0.7)
        // Taken as stored (sideways): its face is found turned, in the stored frame.
        #expect(lines["hostile/corrupt-exif.jpg"]?.first?["status"] as? String == "ok")
        #expect(lines["hostile/corrupt-exif.jpg"]?.first?["turned"] as? Int == 270)
        #expect(lines["hostile/corrupt-exif.jpg"]?.first?["width"] as? Int == 512)
    }

    @Test func maxPixelsIsAFlag() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let result = try runFaceCrop([fixtures.appendingPathComponent("faces").path, "-o", work.path, "--max-pixels", "310000", "-q"])
        #expect(result.status == 1)
        // 512x512 and 512x600 pass; 1536x1536 and 1024x512 are refused.
        let errors = try readManifest(work).filter { $0["status"] as? String == "error" }.map { $0["source"] as! String }
        #expect(errors == ["astronaut-large.jpg", "two-people.jpg"])
    }

    @Test func oddNamesGetSafeCropNamesAndExactManifestPaths() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("with space"), withIntermediateDirectories: true)
        let face = try Data(contentsOf: fixtures.appendingPathComponent("faces/astronaut.jpg"))
        let names: [[UInt8]] = [
            Array("with space/a b.jpg".utf8), Array("new\nline.jpg".utf8), Array("-rf.jpg".utf8),
            Array((String(repeating: "long", count: 60) + ".jpg").utf8), Array("quote\"back\\slash.jpg".utf8),
            Array("bad".utf8) + [0xFF, 0xFE] + Array(".jpg".utf8), Array("..jpg".utf8), Array("caf\u{e9}.JPG".utf8),
        ]
        for name in names {
            let path = Array(photos.path.utf8) + [UInt8(ascii: "/")] + name
            let fd = FileName.withCPath(path) { open($0, O_WRONLY | O_CREAT, 0o644) }
            #expect(fd >= 0)
            face.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        let output = work.appendingPathComponent("out")
        let result = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try readManifest(output)
        // "..jpg" starts with a dot: hidden, skipped. Every other name: one face.
        #expect(lines.count == names.count - 1)
        var exactNames: Set<[UInt8]> = []
        for line in lines {
            #expect(line["status"] as? String == "ok")
            let source = line["source"] as! String
            if let base64 = line["source_bytes"] as? String {
                exactNames.insert(Array(Data(base64Encoded: base64)!))
                #expect(source == "bad\u{FFFD}\u{FFFD}.jpg")
            } else {
                exactNames.insert(Array(source.utf8))
            }
            let crop = line["crop"] as! String
            for component in crop.split(separator: "/") {
                #expect(component.utf8.count <= 255)
                #expect(!component.hasPrefix("-") && !component.hasPrefix("."))
                #expect(!component.unicodeScalars.contains { $0.value < 0x20 })
            }
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(crop).path))
        }
        #expect(exactNames == Set(names.filter { $0 != Array("..jpg".utf8) }))
        // Nothing was written outside the output folder.
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path).sorted() == ["out", "photos"])
    }

    @Test func safeNamesKeepOrdinaryNamesAndNeverCollide() {
        #expect(PhotoFinder.safeName("IMG_1234.HEIC") == "IMG_1234.HEIC")
        #expect(PhotoFinder.safeName("a b (1).jpg") == "a b (1).jpg")
        #expect(PhotoFinder.safeName("a\nb.jpg") != PhotoFinder.safeName("a\rb.jpg"))
        #expect(PhotoFinder.safeName("a\nb.jpg").hasPrefix("a_b.jpg~"))
        #expect(PhotoFinder.safeName(String(repeating: "x", count: 300)).utf8.count == 129)
    }

    @Test func aPhotoThatVanishesIsAnErrorLine() throws {
        try Vips.start()
        let processor = PhotoProcessor(settings: CropSettings(Options()), outputRoot: "/nonexistent", temporaries: TemporaryFiles())
        let gone = Photo(inputIndex: 0, source: "gone.jpg", path: "/nonexistent/gone.jpg", outputPrefix: "gone.jpg")
        let record = processor.process(gone, previous: nil, with: try Detector(DetectorConfig.from(Options())))
        #expect(record.status == .error)
        #expect(Manifest.lines(of: record) == [#"{"source": "gone.jpg", "status": "error", "error": "cannot read file: No such file or directory"}"#])
    }

    @Test func symbolicLinkLoopsAreReportedNotFollowedForever() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces"], into: photos)
        try FileManager.default.createSymbolicLink(atPath: photos.appendingPathComponent("faces/again").path, withDestinationPath: "..")
        let result = try runFaceCrop([photos.path, "-o", work.appendingPathComponent("out").path, "--follow-links", "-q"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("'faces/again': cannot read file: symbolic link loop; skipped"))
        #expect(try readManifest(work.appendingPathComponent("out")).filter { $0["status"] as? String == "ok" }.count == 5)
    }

    /// Runs facecrop as an unprivileged user (root reads everything, so the
    /// permission cases need one).
    func runAsNobody(_ arguments: [String]) throws -> RunResult {
        try runFaceCrop(arguments, through: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", facecropBinary])
    }

    @Test func unreadableFilesAndFoldersAndAReadOnlyOutput() throws {
        let work = try makeTemporaryFolder()
        defer {
            chmod(work.appendingPathComponent("photos/locked").path, 0o755)
            try? FileManager.default.removeItem(at: work)
        }
        chmod(work.path, 0o755)
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces"], into: photos)
        try FileManager.default.createDirectory(at: photos.appendingPathComponent("locked"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent("noface/coffee.jpg"), to: photos.appendingPathComponent("locked/c.jpg"))
        chmod(photos.appendingPathComponent("locked").path, 0o000)
        chmod(photos.appendingPathComponent("faces/astronaut.jpg").path, 0o000)
        let output = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        chmod(output.path, 0o777)

        let result = try runAsNobody([photos.path, "-o", output.path, "-q"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("facecrop: error: 'faces/astronaut.jpg': cannot read file: Permission denied"))
        #expect(result.stderr.contains("facecrop: error: 'locked': cannot read file: cannot read folder: Permission denied"))
        #expect(try readManifest(output).filter { $0["status"] as? String == "ok" }.count == 4)

        let readOnly = work.appendingPathComponent("readonly")
        try FileManager.default.createDirectory(at: readOnly, withIntermediateDirectories: true)
        chmod(readOnly.path, 0o555)
        let refused = try runAsNobody([photos.appendingPathComponent("faces").path, "-o", readOnly.path])
        #expect(refused.status == 73)
        #expect(refused.stderr == "facecrop: error: cannot use output folder '\(readOnly.path)': Permission denied\n")
    }

    @Test func aFullDiskStopsCleanlyAndTheNextRunCompletes() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try copyFixtures(["faces", "rotated"], into: photos)
        let output = work.appendingPathComponent("out")
        // A 12 KB file-size limit: the first crop larger than that fails with EFBIG, as on a full disk.
        let full = try runFaceCrop(["--fsize=12000", facecropBinary, photos.path, "-o", output.path, "-q"], through: ["/usr/bin/prlimit"])
        #expect(full.status == 1)
        #expect(full.stderr.contains("output is full"))
        #expect(full.stderr.contains("Free some space and run again"))
        let leftovers = try fingerprint(output).keys.filter { $0.hasSuffix(".tmp") || $0.hasPrefix(".facecrop/tmp/") }
        #expect(leftovers.isEmpty)

        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let clean = work.appendingPathComponent("clean")
        #expect(try runFaceCrop([photos.path, "-o", clean.path, "-q"]).status == 0)
        #expect(try datasetBytes(output) == datasetBytes(clean))
    }

    @Test func sigtermExits143AndLeavesAConsistentManifest() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        for copy in 0..<3 { try copyFixtures(["faces", "rotated"], into: photos.appendingPathComponent("\(copy)")) }
        let output = work.appendingPathComponent("out")
        #expect(try interruptFaceCrop([photos.path, "-o", output.path, "-q"], once: output, after: 0.1, with: SIGTERM) == 143)
        let lines = try readManifest(output)  // parses: whole lines only
        #expect(!lines.isEmpty)
    }
}

/// Every file in Fixtures/ (hostile ones and saved fuzz findings included)
/// through the real binary in one run: no crash, one manifest line or more per
/// file, every problem named.
@Suite(.serialized)
struct EveryFixtureTests {
    @Test func theWholeFixturesFolderRunsWithoutACrash() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.copyItem(at: fixtures, to: photos)
        let output = work.appendingPathComponent("out")
        let result = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(result.status == 1)  // the broken files
        let found = try PhotoFinder(include: [], exclude: [], followLinks: false, output: nil).find([photos.path])
        let sources = Set(try readManifest(output).map { $0["source"] as! String })
        #expect(sources == Set(found.photos.map(\.source)))
        for line in try readManifest(output) where line["status"] as? String == "error" {
            #expect(result.stderr.contains("'\(line["source"] as! String)': \(line["error"] as! String)"))
        }
    }
}
