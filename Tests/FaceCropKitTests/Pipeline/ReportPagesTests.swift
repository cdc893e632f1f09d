import Foundation
import Testing
import FaceCropCore
import FaceCropFinish

/// The report's left-out faces: each row shows the face cut from its photo
/// (linked relative to the dataset), and the summary line counts them.
@Suite(.serialized)
struct ReportPagesTests {
    @Test func facesBelowTheQualityFloorHaveThumbnailsAndAreCounted() throws {
        let (work, photos) = try fixturePhotos(["faces/astronaut.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        // Blurred copies (libvips), whose faces score below 1: a floor of 1
        // leaves every one of them out.
        for (name, sigma) in [("soft.jpg", "3"), ("softer.jpg", "5")] {
            _ = try runTool("/usr/bin/vips", ["gaussblur", fixtures.appendingPathComponent("faces/two-people.jpg").path,
                                              photos.appendingPathComponent(name).path, sigma])
        }
        try FileManager.default.removeItem(at: photos.appendingPathComponent("astronaut.jpg"))
        let out = work.appendingPathComponent("out")
        let run = try runFaceCrop([photos.path, "-o", out.path, "--min-face-quality", "1", "--no-contact-sheet"])
        #expect(run.status == 0, "\(run.stderr)")
        let left = try readManifest(out).filter { $0["status"] as? String == "low_quality" }
        #expect(left.count >= 2)
        #expect(run.stderr.contains(", \(left.count) left out as low_quality"), "\(run.stderr)")
        let report = try String(contentsOf: out.appendingPathComponent("report.html"), encoding: .utf8)
        let section = try #require(report.components(separatedBy: "<section id=\"low-quality\">").dropFirst().first)
        let rows = section.components(separatedBy: "</section>")[0].components(separatedBy: "<td class=\"thumb\"><a href=\"").dropFirst()
        #expect(rows.count == left.count)
        for row in rows {
            let href = String(row.prefix { $0 != "\"" })
            #expect(href.hasPrefix("../photos/"))
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent(href).standardizedFileURL.path), "\(href)")
        }
        #expect(LeftOutThumbnails.relative("/a/b/c.jpg", from: "/a/out/set") == "../../b/c.jpg")
    }
}
