import Foundation
import Testing
import FaceCropCore
import FaceCropVideo
import FaceCropFinish
import FaceCropKit


/// The alpha mask's geometry: pure, no pixels read.
struct ClipMaskTests {
    static let side = 64
    static let square = FrameBox(x: 20, y: 20, width: 24, height: 24)

    func mask(_ shape: ClipMaskShape, _ face: FrameBox = square) -> [UInt8] {
        var alpha: [UInt8] = []
        ClipMask.render(shape, face: face, side: Self.side, into: &alpha)
        return alpha
    }

    func at(_ alpha: [UInt8], _ x: Int, _ y: Int) -> UInt8 { alpha[y * Self.side + x] }

    @Test(arguments: [ClipMaskShape.oval, .rect])
    func theFaceIsOpaqueAndTheFarCornersTransparent(shape: ClipMaskShape) {
        let alpha = mask(shape)
        #expect(alpha.count == Self.side * Self.side)
        #expect(at(alpha, 32, 32) == 255)
        // The face box's own corner pixels are inside both shapes.
        for (x, y) in [(20, 20), (43, 20), (20, 43), (43, 43)] { #expect(at(alpha, x, y) == 255) }
        for (x, y) in [(0, 0), (63, 0), (0, 63), (63, 63)] { #expect(at(alpha, x, y) == 0) }
    }

    @Test(arguments: [ClipMaskShape.oval, .rect])
    func alphaFallsSteadilyAcrossASoftEdge(shape: ClipMaskShape) {
        let alpha = mask(shape)
        let row = (32..<Self.side).map { at(alpha, $0, 32) }
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 >= $1 })
        #expect(row.contains { $0 > 0 && $0 < 255 }, "a feathered edge, not a hard one")
        #expect(row.last == 0)
    }

    @Test func theOvalFollowsTheBoxProportions() {
        // A wide box: the oval reaches further sideways than up and down.
        let alpha = mask(.oval, FrameBox(x: 12, y: 22, width: 40, height: 20))
        #expect(at(alpha, 56, 32) == 255)  // 24.5 px right of centre, inside rx = 28.3
        #expect(at(alpha, 32, 49) == 0)  // 17.5 px below centre, past ry = 14.1 and the feather
        // The rect mask is the box: just outside it vertically is already soft or gone.
        let rect = mask(.rect, FrameBox(x: 12, y: 22, width: 40, height: 20))
        #expect(at(rect, 32, 45) == 0)
        #expect(at(rect, 56, 32) == 0)
    }

    @Test func noneIsOpaqueEverywhere() {
        #expect(mask(.none).allSatisfy { $0 == 255 })
    }

    @Test func theFaceBoxIsWhereTheCropPutTheFace() {
        // astronaut.jpg: 512 x 512, face [177, 66, 95, 95], margin 0.4: the
        // crop is a 171 px square centred on the face.
        let box = ClipMask.faceBox(
            bbox: PixelRect(x: 177, y: 66, width: 95, height: 95), photoWidth: 512, photoHeight: 512, margin: 0.4,
            side: 64)
        #expect(abs(box.width - 95.0 * 64 / 171) < 1e-9)
        #expect(abs(box.x + box.width / 2 - 32) < 0.5)
        #expect(abs(box.y + box.height / 2 - 32) < 0.5)
        // A face at the photo's edge: the crop is shifted, the face is not centred.
        let edge = ClipMask.faceBox(
            bbox: PixelRect(x: 0, y: 0, width: 100, height: 100), photoWidth: 512, photoHeight: 512, margin: 0.4,
            side: 64)
        #expect(edge.x == 0 && edge.y == 0)
    }
}

/// Clip options on the command line.
struct ClipOptionTests {
    func parse(_ extra: [String]) throws(FaceCropError) -> Options {
        try OptionTable.parse(["photos", "-o", "out"] + extra)
    }

    @Test func theCodecFollowsTheExtension() throws {
        #expect(try parse(["--clip", "a.mov"]).effectiveClipCodec == .prores)
        #expect(try parse(["--clip", "a.WEBM"]).effectiveClipCodec == .vp9)
        #expect(try parse(["--clip", "a.mov", "--clip-codec", "hevc"]).effectiveClipCodec == .hevc)
        #expect(try parse(["--clip-per", "source"]).effectiveClipCodec == .prores)
        #expect(try parse(["--clip", "a.mov", "--size", "255"]).effectiveClipSize == 254)
        #expect(try parse(["--clip", "a.mov", "--clip-size", "64"]).effectiveClipSize == 64)
    }

    @Test(arguments: [
        (["--clip-fps", "30"], "'--clip-fps' needs '--clip PATH' or '--clip-per source'"),
        (["--clip", "a.mp4"], "'--clip' needs a .mov or .webm name (or '--clip-codec'), not 'a.mp4'"),
        (["--clip", "a.mov", "--clip-codec", "vp9"], "'--clip-codec vp9' writes .webm files: name the clip '.webm', not 'a.mov'"),
        (["--clip", "a.mov", "--clip-per", "source"], "give either '--clip PATH' (one clip) or '--clip-per source' (a clip per photo), not both"),
        (["--clip", "a.mov", "--clip-size", "63"], "'--clip-size' must be even, not '63'"),
        (["--clip", "a.mov", "--clip-mask", "star"], "'--clip-mask' must be one of oval, rect, none, not 'star'"),
    ])
    func badClipOptionsAreUsageErrors(extra: [String], message: String) {
        #expect(throws: FaceCropError.usage(message)) { try parse(extra) }
    }

    /// The options marked clip-only in the table are refused without a clip
    /// and accepted with one.
    @Test(arguments: [
        ("--clip-codec", "prores"), ("--clip-fps", "30"), ("--clip-size", "64"), ("--clip-hold", "2"),
        ("--clip-mask", "rect"),
    ])
    func clipOnlyOptionsNeedAClip(name: String, value: String) throws {
        #expect(OptionTable.spec(named: name)?.clipOnly == true)
        #expect(throws: FaceCropError.usage("'\(name)' needs '--clip PATH' or '--clip-per source'")) { try parse([name, value]) }
        _ = try parse(["--clip-per", "source", name, value])
    }

    /// `--ffmpeg` also reads videos, so it is not clip-only.
    @Test func onlyTheseFiveAreClipOnly() {
        #expect(OptionTable.all.filter(\.clipOnly).count == 5)
        #expect(OptionTable.spec(named: "--ffmpeg")?.clipOnly == false)
    }
}

let hevcFFmpeg = ProcessInfo.processInfo.environment["FACECROP_TEST_HEVC_FFMPEG"]

/// Clips written by real ffmpeg binaries and decoded back.
@Suite(.serialized)
struct ClipTests {
    static let side = 64
    static let debianFFmpeg: String = (try? FFmpeg.locate(given: nil, environment: ProcessInfo.processInfo.environment).path)
        ?? "/usr/bin/ffmpeg"

    /// faces/: four photos, five faces.
    func makeLibrary(in work: URL) throws -> URL {
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try copyFixtures(["faces"], into: photos)
        return photos
    }

    /// Every frame of `clip`, decoded to RGBA by `ffmpeg`.
    func decodeFrames(_ clip: String, ffmpeg: String, decoder: [String] = []) throws -> [[UInt8]] {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let raw = folder.appendingPathComponent("frames.rgba").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments =
            ["-hide_banner", "-nostdin", "-loglevel", "error"] + decoder
            + ["-i", clip, "-f", "rawvideo", "-pix_fmt", "rgba", raw]
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        let size = Self.side * Self.side * 4
        #expect(bytes.count % size == 0)
        return stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
    }

    func alpha(_ frame: [UInt8], _ x: Int, _ y: Int) -> UInt8 { frame[(y * Self.side + x) * 4 + 3] }

    /// Where each crop's face sits in its frame, from the manifest.
    func faceCentres(_ output: URL) throws -> [(crop: String, x: Double, y: Double)] {
        try readManifest(output).filter { $0["status"] as? String == "ok" }.map { line in
            let face = ClipMask.faceBox(
                bbox: rect(line["bbox"])!, photoWidth: line["width"] as! Int, photoHeight: line["height"] as! Int,
                margin: 0.4, side: Self.side)
            return (line["crop"] as! String, face.x + face.width / 2, face.y + face.height / 2)
        }
    }

    func readClips(_ output: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: output.appendingPathComponent("clips.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    /// Every file under `folder` whose name says it is a leftover temporary.
    func leftovers(_ folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)!
        return (enumerator.allObjects as! [String]).filter { $0.hasSuffix(".tmp") || $0.hasSuffix(".log") }
    }

    /// Writes a clip of faces/ with `hold` frames a crop and checks what a
    /// user would: frame count, transparent corners, an opaque face, the
    /// sidecar's frame numbers, no temporary left.
    func checkClip(codec: String, name: String, ffmpeg: String, decoder: [String] = [], insideOutput: Bool) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        let clip = (insideOutput ? output : work.appendingPathComponent("clips")).appendingPathComponent(name)
        let hold = 2
        let result = try runFaceCrop([
            photos.path, "-o", output.path, "-q", "--clip", clip.path, "--clip-codec", codec,
            "--clip-size", "\(Self.side)", "--clip-hold", "\(hold)", "--ffmpeg", ffmpeg,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")

        let faces = try faceCentres(output)
        #expect(faces.count == 5)
        let frames = try decodeFrames(clip.path, ffmpeg: ffmpeg, decoder: decoder)
        #expect(frames.count == faces.count * hold)
        for (index, frame) in frames.enumerated() {
            let face = faces[index / hold]
            for (x, y) in [(0, 0), (Self.side - 1, 0), (0, Self.side - 1), (Self.side - 1, Self.side - 1)] {
                #expect(alpha(frame, x, y) <= 8, "frame \(index) corner (\(x), \(y))")
            }
            for dy in -2...2 {
                for dx in -2...2 {
                    #expect(alpha(frame, Int(face.x) + dx, Int(face.y) + dy) >= 247, "frame \(index) face centre")
                }
            }
            let transparent = stride(from: 3, to: frame.count, by: 4).filter { frame[$0] <= 8 }.count
            let share = Double(transparent) / Double(Self.side * Self.side)
            #expect(share > 0.2 && share < 0.8, "frame \(index): \(share) transparent")
            // The face's pixels are the crop's, not a blank.
            let centre = (Int(face.y) * Self.side + Int(face.x)) * 4
            #expect(Int(frame[centre]) + Int(frame[centre + 1]) + Int(frame[centre + 2]) > 60)
        }

        let recorded = insideOutput ? name : clip.path
        let clips = try readClips(output)
        #expect(clips.map { $0["crop"] as! String } == faces.map(\.crop))
        #expect(clips.map { $0["frame"] as! Int } == Array(stride(from: 0, to: faces.count * hold, by: hold)))
        #expect(clips.allSatisfy { $0["clip"] as? String == recorded })
        #expect(leftovers(work) == [])
    }

    @Test func proResKeepsTheAlphaChannel() throws {
        try checkClip(codec: "prores", name: "faces.mov", ffmpeg: Self.debianFFmpeg, insideOutput: false)
    }

    @Test func vp9KeepsTheAlphaChannel() throws {
        try checkClip(
            codec: "vp9", name: "faces.webm", ffmpeg: Self.debianFFmpeg, decoder: ["-c:v", "libvpx-vp9"],
            insideOutput: true)
    }

    @Test(.enabled(if: hevcFFmpeg != nil, "FACECROP_TEST_HEVC_FFMPEG is not set (scripts/test sets it to imageio-ffmpeg's ffmpeg)"))
    func hevcKeepsTheAlphaChannel() throws {
        try checkClip(codec: "hevc", name: "faces.mov", ffmpeg: hevcFFmpeg!, insideOutput: true)
    }

    @Test func aClipPerSourcePhotoGoesNextToItsCropsAndIsPrunedWithIt() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        let arguments = [photos.path, "-o", output.path, "-q", "--clip-per", "source", "--clip-size", "\(Self.side)"]
        let result = try runFaceCrop(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let expected = [
            "faces/astronaut-large.jpg.clip.mov": 1, "faces/astronaut.jpg.clip.mov": 1,
            "faces/grace_hopper.jpg.clip.mov": 1, "faces/two-people.jpg.clip.mov": 2,
        ]
        for (name, count) in expected {
            let frames = try decodeFrames(output.appendingPathComponent(name).path, ffmpeg: Self.debianFFmpeg)
            #expect(frames.count == count, "\(name)")
            #expect(frames.allSatisfy { alpha($0, 0, 0) <= 8 && alpha($0, Self.side / 2, Self.side / 2) >= 247 })
        }
        let clips = try readClips(output)
        #expect(clips.count == 5)
        #expect(clips.filter { $0["clip"] as? String == "faces/two-people.jpg.clip.mov" }.map { $0["frame"] as! Int } == [0, 1])

        // The photo is gone: its crops and its clip go too.
        try FileManager.default.removeItem(at: photos.appendingPathComponent("faces/two-people.jpg"))
        #expect(try runFaceCrop(arguments).status == 0)
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("faces/two-people.jpg.clip.mov").path))
        #expect(try readClips(output).count == 3)
        #expect(leftovers(work) == [])
    }

    @Test func anFFmpegWithoutAlphaForTheCodecFailsBeforeAnyPhoto() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        // Debian 12's libx265 (x265 3.5) has no yuva420p: it would drop alpha.
        let result = try runFaceCrop([
            photos.path, "-o", output.path, "--clip", output.appendingPathComponent("c.mov").path, "--clip-codec", "hevc",
            "--ffmpeg", Self.debianFFmpeg,
        ])
        #expect(result.status == 69)
        #expect(result.stderr.contains("its libx265 cannot encode yuva420p, so it would drop the alpha channel"))
        #expect(!FileManager.default.fileExists(atPath: output.path), "no photo processed")
    }

    @Test func aMissingFFmpegIsNamed() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        let base = [photos.path, "-o", output.path, "--clip", work.appendingPathComponent("c.mov").path]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "FACECROP_FFMPEG")

        let given = try runFaceCrop(base + ["--ffmpeg", "/nonexistent/ffmpeg"], environment: environment)
        #expect(given.status == 69)
        #expect(given.stderr == "facecrop: error: cannot use ffmpeg '/nonexistent/ffmpeg' for clips: No such file or directory (from --ffmpeg) (install ffmpeg, or pass --ffmpeg PATH or set FACECROP_FFMPEG)\n")

        environment["FACECROP_FFMPEG"] = "/nonexistent/ffmpeg"
        let fromEnvironment = try runFaceCrop(base, environment: environment)
        #expect(fromEnvironment.status == 69)
        #expect(fromEnvironment.stderr.contains("(from FACECROP_FFMPEG)"))

        environment.removeValue(forKey: "FACECROP_FFMPEG")
        environment["PATH"] = work.path
        let onPath = try runFaceCrop(base, environment: environment)
        #expect(onPath.status == 69)
        #expect(onPath.stderr.contains("cannot use ffmpeg 'ffmpeg' for clips: not found on PATH"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    /// A wrapper around the real ffmpeg that misbehaves only when encoding.
    func wrapper(_ name: String, in folder: URL, _ body: String) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try ("#!/bin/sh\n" + body.replacingOccurrences(of: "FFMPEG", with: Self.debianFFmpeg) + "\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o755)
        return path
    }

    @Test(arguments: [
        ("early", "case \" $* \" in *\" rawvideo \"*) exec FFMPEG \"$@\" -bogus-option ;; esac\nexec FFMPEG \"$@\"",
         "ffmpeg stopped reading frames after"),
        ("crash", "case \" $* \" in *\" rawvideo \"*) head -c 20000 >/dev/null; echo 'simulated crash' >&2; exit 3 ;; esac\nexec FFMPEG \"$@\"",
         "exit status 3: simulated crash"),
        ("drops-alpha", "for a in \"$@\"; do shift; [ \"$a\" = yuva444p10le ] && a=yuv444p10le; set -- \"$@\" \"$a\"; done\nexec FFMPEG \"$@\"",
         "the clip lost its alpha channel: decoded alpha is 255 on average where 0 was written"),
    ])
    func aFailingFFmpegLeavesNoClip(name: String, script: String, message: String) throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = try makeLibrary(in: work)
        let output = work.appendingPathComponent("out")
        let clip = work.appendingPathComponent("clips/c.mov")
        let ffmpeg = try wrapper(name, in: work, script)
        let result = try runFaceCrop([
            photos.path, "-o", output.path, "-q", "--clip", clip.path, "--clip-size", "\(Self.side)", "--clip-hold", "2",
            "--ffmpeg", ffmpeg,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("facecrop: error: clip '\(clip.path)': "))
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: clip.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: clip.deletingLastPathComponent().path) == [])
        #expect(leftovers(work) == [])
        // The dataset itself is whole.
        #expect(try readManifest(output).count == 5)
    }
}
