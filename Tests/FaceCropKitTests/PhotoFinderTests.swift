import Foundation
import Testing

@testable import FaceCropKit

struct PhotoFinderTests {
    /// Makes empty files (the finder never opens them).
    func touch(_ root: URL, _ paths: [String]) throws {
        for path in paths {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            FileManager.default.createFile(atPath: url.path, contents: Data())
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

    @Test func aMissingInputStopsTheRun() {
        #expect(throws: FaceCropError.self) {
            try PhotoFinder(include: [], exclude: [], followLinks: false, output: nil).find(["/no/such/folder"])
        }
    }
}
