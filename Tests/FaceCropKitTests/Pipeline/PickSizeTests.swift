import Foundation
import Testing
import FaceCropCore
import FaceCropImaging

/// `facecrop pick`'s crops at the photo's edge and their sizes, with the
/// real binary on photos and a video made at test time from Fixtures by
/// scripts/make-edge-photos (libvips and ffmpeg): hopper-narrow.jpg, a
/// 260-pixel strip around Grace Hopper's face, narrower than a 0.6
/// margin's square; astro-small.jpg, a small face; hopper.mp4, her
/// portrait as a 1 s video.
@Suite(.serialized)
struct PickSizeTests {
    /// The edge library, made once for the suite.
    static let made: URL = {
        let folder = try! makeTemporaryFolder()
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/make-edge-photos")
        process.arguments = [folder.path]
        try! process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "scripts/make-edge-photos failed")
        return folder
    }()

    /// A dataset (default settings, no --people) of `names` from the edge library.
    func dataset(_ names: [String]) throws -> (work: URL, photos: URL, dataset: URL) {
        let work = try makeTemporaryFolder()
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        for name in names {
            try FileManager.default.copyItem(at: Self.made.appendingPathComponent(name), to: photos.appendingPathComponent(name))
        }
        let dataset = work.appendingPathComponent("dataset")
        let run = try runFaceCrop([photos.path, "-o", dataset.path, "-q"])
        #expect(run.status == 0, "\(run.stderr)")
        return (work, photos, dataset)
    }

    func pick(_ dataset: URL, _ out: URL, _ options: [String]) throws -> [String: Any] {
        let run = try runFaceCrop(["pick", dataset.path, out.path, "--count", "10"] + options)
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("pick.json"))) as! [String: Any]
    }

    func entry(_ report: [String: Any], _ list: String, source: String) -> [String: Any]? {
        (report[list] as? [[String: Any]])?.first { $0["source"] as? String == source }
    }

    /// How many columns from the crop's left and right edges are copies of
    /// the next one in (mean difference under 0.25 of 255, over RGB): a
    /// border of edge pixels copied outwards.
    func copiedColumns(_ path: String, side: Int) throws -> Int {
        var rgb: [UInt8] = []
        try Vips.loadRGB(path, side: side, into: &rgb)
        func column(_ x: Int) -> [Double] { (0..<side).flatMap { y in (0..<3).map { Double(rgb[(y * side + x) * 3 + $0]) } } }
        func run(_ order: [Int]) -> Int {
            var count = 0
            while count + 1 < order.count {
                let (a, b) = (column(order[count]), column(order[count + 1]))
                guard zip(a, b).map({ abs($0 - $1) }).reduce(0, +) / Double(a.count) < 0.25 else { break }
                count += 1
            }
            return count
        }
        return run(Array(0..<side)) + run(Array((0..<side).reversed()))
    }

    /// The README's recipe's margin on a strip narrower than its square:
    /// by default the square is moved inside and shrunk to the strip (no
    /// copied border; the margin used and the enlargement recorded);
    /// `--pad edge` copies the edge pixels out, as asked. Every face is in
    /// pick.json; `--max-upscale` leaves out the small face, with the reason.
    @Test func cropsStayInsideThePhotoRecordTheirEnlargementAndLeaveOutTheEnlarged() throws {
        let (work, photos, dataset) = try dataset(["hopper-narrow.jpg", "astro-small.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let inside = work.appendingPathComponent("inside")
        let report = try pick(dataset, inside, ["--photos", photos.path, "--size", "400", "--margin", "0.6"])
        #expect(report["pad"] as? String == "inside")
        let hopper = try #require(entry(report, "picked", source: "hopper-narrow.jpg"))
        let astro = try #require(entry(report, "picked", source: "astro-small.jpg"))
        #expect(hopper["cut"] as? String == "photo")
        // The strip is 260 pixels wide: the square shrinks to it.
        #expect(hopper["enlargement"] as? Double == 1.5385)
        #expect((hopper["margin_used"] as? Double ?? 1) < 0.3)
        #expect(astro["margin_used"] as? Double == 0.6)
        let astroFactor = try #require(astro["enlargement"] as? Double)
        #expect(astroFactor > 1.6 && astroFactor < 2)
        let file = inside.appendingPathComponent(hopper["file"] as! String).path
        #expect(try copiedColumns(file, side: 400) == 0)
        let metadata = try String(contentsOf: inside.appendingPathComponent("metadata.jsonl"), encoding: .utf8)
        #expect(metadata.contains("\"enlargement\": 1.5385}"))
        #expect((report["left_out"] as? [Any])?.isEmpty == true)

        let edge = work.appendingPathComponent("edge")
        let padded = try pick(dataset, edge, ["--photos", photos.path, "--size", "400", "--margin", "0.6", "--pad", "edge"])
        let edgeHopper = try #require(entry(padded, "picked", source: "hopper-narrow.jpg"))
        #expect(edgeHopper["margin_used"] as? Double == 0.6)
        #expect(try copiedColumns(edge.appendingPathComponent(edgeHopper["file"] as! String).path, side: 400) > 40)

        let strict = work.appendingPathComponent("strict")
        let limited = try pick(dataset, strict, ["--photos", photos.path, "--size", "400", "--margin", "0.6", "--max-upscale", "1.6"])
        #expect(entry(limited, "picked", source: "hopper-narrow.jpg") != nil)
        let left = try #require(entry(limited, "left_out", source: "astro-small.jpg"))
        #expect((left["reason"] as? String)?.hasPrefix("enlarged 1.") == true)
        #expect((left["reason"] as? String)?.hasSuffix("over --max-upscale 1.60") == true)
        #expect(limited["picked_crops"] as? Int == 1 && limited["left_out_crops"] as? Int == 1)
    }

    /// A video's crop in a sized set is cut again from the frame at its
    /// time, at the set's size like the photo beside it; without the video
    /// it is left out with the reason, never copied at the dataset's size.
    /// Every face of the dataset is picked or listed.
    @Test func videoCropsAreCutAgainAtTheSetsSizeOrLeftOut() throws {
        let (work, photos, dataset) = try dataset(["hopper.mp4", "astro-small.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let faces = try readManifest(dataset).filter { $0["face"] is Int }.count
        let out = work.appendingPathComponent("pick")
        let report = try pick(dataset, out, ["--photos", photos.path, "--size", "320"])
        let video = try #require(entry(report, "picked", source: "hopper.mp4"))
        #expect(video["cut"] as? String == "photo")
        for item in report["picked"] as! [[String: Any]] {
            let bytes = try PhotoBytes(path: out.appendingPathComponent(item["file"] as! String).path, source: "crop")
            let header = try Picture.header(of: bytes, source: "crop")
            #expect(header.width == 320 && header.height == 320)
        }
        #expect((report["picked"] as! [Any]).count + (report["left_out"] as! [Any]).count == faces)

        let without = work.appendingPathComponent("without")
        let alone = try pick(dataset, without, ["--size", "320"])
        let left = try #require(entry(alone, "left_out", source: "hopper.mp4"))
        #expect(left["reason"] as? String == "not cut again (no --photos given), and the dataset's crop is 256 px, not 320: a set never mixes sizes")
        #expect((alone["picked"] as! [Any]).count + (alone["left_out"] as! [Any]).count == faces)
    }

    /// At the defaults no crop of a face touching the photo's edge (every
    /// photo and the video of the edge library) is padded or shows a band of
    /// copied edge pixels.
    @Test func noCropAtTheDefaultsHasAStreakedBand() throws {
        let names = ["hopper-left.jpg", "hopper-top.jpg", "hopper-narrow.jpg", "astro-corner.jpg", "astro-small.jpg", "pair-right.jpg", "hopper.mp4"]
        let (work, _, dataset) = try dataset(names)
        defer { try? FileManager.default.removeItem(at: work) }
        let faces = try readManifest(dataset).filter { $0["crop"] is String }
        #expect(faces.count >= names.count)
        for face in faces {
            #expect(face["padded"] as? Bool == false, "\(face)")
            #expect(try copiedColumns(dataset.appendingPathComponent(face["crop"] as! String).path, side: 256) == 0, "\(face)")
        }
    }

    /// The main run's default (`--pad inside`) keeps the strip's crop
    /// inside it (not padded, no copied border) and records the margin it
    /// got; an explicit `--pad edge` (the default before) still copies the
    /// edge pixels out and records no margin, and a dataset made with it is
    /// made again at the defaults, `--check` naming the fill. A dataset
    /// whose state lacks `margin_used` (made before it was recorded) is
    /// processed again, and `--check` says so.
    @Test func theMainRunKeepsCropsInsideByDefault() throws {
        let (work, photos, dataset) = try dataset(["hopper-narrow.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let inside = work.appendingPathComponent("inside")
        let arguments = [photos.path, "-o", inside.path, "-q", "--margin", "0.6"]
        let run = try runFaceCrop(arguments)
        #expect(run.status == 0, "\(run.stderr)")
        let face = try #require(try readManifest(inside).first { $0["face"] is Int })
        #expect(face["padded"] as? Bool == false)
        #expect(try copiedColumns(inside.appendingPathComponent(face["crop"] as! String).path, side: 256) == 0)
        // The square shrunk to the strip's shorter side: the margin that side gives the face's longer side.
        let box = try #require(face["bbox"] as? [Int])
        let side = min(try #require(face["width"] as? Int), try #require(face["height"] as? Int))
        let expected = ((Double(side) / Double(max(box[2], box[3])) - 1) / 2 * 10_000).rounded() / 10_000
        #expect(expected < 0.6)
        #expect(face["margin_used"] as? Double == expected, "\(face)")
        // The default dataset (margin 0.4) is not padded either.
        let plain = try #require(try readManifest(dataset).first { $0["face"] is Int })
        #expect(plain["padded"] as? Bool == false)
        #expect(try copiedColumns(dataset.appendingPathComponent(plain["crop"] as! String).path, side: 256) == 0)

        let edge = work.appendingPathComponent("edge")
        #expect(try runFaceCrop([photos.path, "-o", edge.path, "-q", "--margin", "0.6", "--pad", "edge"]).status == 0)
        let streaked = try #require(try readManifest(edge).first { $0["face"] is Int })
        #expect(streaked["padded"] as? Bool == true)
        #expect(streaked["margin_used"] == nil)
        #expect(try copiedColumns(edge.appendingPathComponent(streaked["crop"] as! String).path, side: 256) > 20)
        let again = try runFaceCrop([photos.path, "-o", edge.path, "--margin", "0.6", "--check"])
        #expect(again.status == 1)
        #expect(again.stdout.contains("settings changed: every photo would be processed again (pad: edge -> inside)"), "\(again.stdout)")

        let state = inside.appendingPathComponent(".facecrop/state.jsonl")
        // The state keeps each manifest line as a JSON string: its quotes escaped.
        let recorded = try String(contentsOf: state, encoding: .utf8)
        let member = "\\\"margin_used\\\": \(expected), "
        #expect(recorded.contains(member))
        try recorded.replacingOccurrences(of: member, with: "").write(to: state, atomically: true, encoding: .utf8)
        let check = try runFaceCrop(arguments + ["--check"])
        #expect(check.status == 1)
        #expect(check.stdout.contains("no margin_used recorded: hopper-narrow.jpg"), "\(check.stdout)")
        #expect(try runFaceCrop(arguments).status == 0)
        #expect(try readManifest(inside).first { $0["face"] is Int }?["margin_used"] as? Double == expected)
    }
}
