import Foundation
import Testing
import FaceCropCore
import FaceCropInputs


struct PhotoFinderTests {
    /// Makes empty files (the finder never opens them).
    func touch(_ root: URL, _ paths: [String]) throws {
        for path in paths {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: url.path, contents: Data())
        }
    }

    func sources(_ found: PhotoFinder.Found) -> [String] { found.photos.map(\.source) }

    @Test func walksRecursivelyInByteOrderSkippingHiddenAndOtherFiles() throws {
        let root = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try touch(root, [
            "b.JPG", "a.jpeg", "A.png", "trip/x.heic", "trip/y.HEIF", "trip/z.avif", "a b/w.webp", "scan.tif",
            "scan2.TIFF", "notes.txt", "noext", ".hidden.jpg", ".cache/in-hidden.jpg", "trip/.DS_Store",
        ])
        let found = try PhotoFinder(include: [], exclude: [], followLinks: false, output: nil).find([root.path])
        #expect(sources(found) == [
            "A.png", "a b/w.webp", "a.jpeg", "b.JPG", "scan.tif", "scan2.TIFF", "trip/x.heic", "trip/y.HEIF", "trip/z.avif",
        ])
        #expect(found.problems.isEmpty)
        #expect(found.labels == [""])
    }

    @Test func includeAndExcludeGlobs() throws {
        let root = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try touch(root, ["keep/a.jpg", "keep/b.png", "skip/c.jpg", "d.jpg"])
        let finder = PhotoFinder(include: ["*.jpg"], exclude: ["skip"], followLinks: false, output: nil)
        #expect(sources(try finder.find([root.path])) == ["d.jpg", "keep/a.jpg"])
        let byPath = PhotoFinder(include: ["keep/*"], exclude: [], followLinks: false, output: nil)
        #expect(sources(try byPath.find([root.path])) == ["keep/a.jpg", "keep/b.png"])
    }

    @Test func symbolicLinksAreSkippedUnlessFollowedAndLoopsAreCaught() throws {
        let root = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try touch(root, ["real/a.jpg"])
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("link.jpg").path, withDestinationPath: "real/a.jpg")
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("real/loop").path, withDestinationPath: "..")
        let plain = try PhotoFinder(include: [], exclude: [], followLinks: false, output: nil).find([root.path])
        #expect(sources(plain) == ["real/a.jpg"])
        let followed = try PhotoFinder(include: [], exclude: [], followLinks: true, output: nil).find([root.path])
        #expect(sources(followed) == ["link.jpg", "real/a.jpg"])
        #expect(followed.problems.map(\.source) == ["real/loop"])
    }

    @Test func theOutputFolderInsideAnInputIsNeverWalked() throws {
        let root = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try touch(root, ["a.jpg", "out/a.jpg.face0.jpg"])
        let found = try PhotoFinder(include: [], exclude: [], followLinks: false, output: root.appendingPathComponent("out").path)
            .find([root.path])
        #expect(sources(found) == ["a.jpg"])
    }

    @Test func severalInputsGetTheirOwnLabels() throws {
        #expect(PhotoFinder.labels(for: ["/x/photos", "/y/photos/", "b.jpg"]) == ["photos", "photos-2", "b.jpg"])
        #expect(PhotoFinder.labels(for: ["only"]) == [""])
    }

    /// The walk goes one folder at a time; its order must be exactly the
    /// manifest's sort, also where a folder's name is a prefix of a file's
    /// ("a" / "a.jpg" / "a b.jpg": ' ' and '.' sort before '/'), for names
    /// that are not UTF-8, and across several inputs.
    @Test func theWalkIsInManifestOrder() throws {
        let root = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        try touch(root, [
            "one/a/x.jpg", "one/a.jpg", "one/a b.jpg", "one/a-1/y.jpg", "one/a0.jpg", "one/b/c/d.jpg", "one/b.c/e.jpg",
            "one/b/c.jpg", "one/\u{E9}.jpg", "one/e\u{301}.jpg", "one/Z.jpg", "one/a/a/a.jpg", "one/a/a.jpg",
            "two/x y/1.jpg", "two/x/1.jpg", "two/x.jpg",
        ])
        let odd: [UInt8] = Array(root.appendingPathComponent("one").path.utf8) + [UInt8(ascii: "/"), 0xFF, 0x61, 0x2E, 0x6A, 0x70, 0x67]
        #expect(FileName.withCPath(odd, { open($0, O_CREAT | O_WRONLY, 0o644) }) >= 0)
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent("one/b/loop").path, withDestinationPath: "..")
        let inputs = [root.appendingPathComponent("two").path, root.appendingPathComponent("one").path]
        let walked = Array(try PhotoFinder(include: [], exclude: [], followLinks: true, output: nil).walk(inputs))
        let keys = walked.map(\.key)
        let sorted = keys.sorted { PhotoFinder.precedes($0, $1) }
        #expect(keys.map { "\($0.0) \($0.1)" } == sorted.map { "\($0.0) \($0.1)" })
        #expect(walked.count == 18)
        #expect(keys.first! == (0, "x y/1.jpg") && keys[1] == (0, "x.jpg"))
        #expect(keys.contains { $0 == (1, "b/loop") })
    }

    @Test func aMissingInputStopsTheRun() {
        #expect(throws: FaceCropError.self) {
            try PhotoFinder(include: [], exclude: [], followLinks: false, output: nil).find(["/no/such/folder"])
        }
    }
}

/// The published FNV-1a test vectors: crop names and shards depend on them.
struct FNV1aTests {
    @Test(arguments: [
        ("", 0x811c_9dc5 as UInt32, 0xcbf2_9ce4_8422_2325 as UInt64),
        ("a", 0xe40c_292c, 0xaf63_dc4c_8601_ec8c),
        ("foobar", 0xbf9c_f968, 0x8594_4171_f739_67e8),
    ])
    func knownValues(text: String, hash32: UInt32, hash64: UInt64) {
        #expect(FNV1a.hash32(text.utf8) == hash32)
        #expect(FNV1a.hash64(text.utf8) == hash64)
    }
}
