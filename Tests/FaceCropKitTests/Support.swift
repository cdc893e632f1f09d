import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropOutput
import FaceCropFinish


/// The package root, found from this file's path.
let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

let fixtures = packageRoot.appendingPathComponent("Fixtures")

/// The built `facecrop` binary (FACECROP_BIN overrides).
let facecropBinary: String = {
    if let path = ProcessInfo.processInfo.environment["FACECROP_BIN"] { return path }
    return packageRoot.appendingPathComponent(".build/debug/facecrop").path
}()

struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real binary as a user would. Its output goes to files, so no
/// pipe can fill up and block it.
func runFaceCrop(
    _ arguments: [String], through launcher: [String] = [], environment: [String: String]? = nil, directory: URL? = nil
) throws -> RunResult {
    let folder = try makeTemporaryFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let outURL = folder.appendingPathComponent("stdout")
    let errURL = folder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: launcher.first ?? facecropBinary)
    process.arguments = Array(launcher.dropFirst()) + arguments
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    if let environment { process.environment = environment }
    if let directory { process.currentDirectoryURL = directory }
    try process.run()
    process.waitUntilExit()
    try out.close()
    try err.close()
    return RunResult(
        status: process.terminationStatus,
        stdout: try String(contentsOf: outURL, encoding: .utf8),
        stderr: try String(contentsOf: errURL, encoding: .utf8))
}

/// Starts the real binary with stdin and stderr on /dev/null and stdout on
/// `stdout`; the caller waits for it.
func startFaceCrop(_ arguments: [String], stdout: FileHandle = FileHandle.nullDevice) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: facecropBinary)
    process.arguments = arguments
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    return process
}

/// Runs the binary once per entry, all at once, each with its index in
/// JOB_COMPLETION_INDEX (as a Kubernetes Indexed Job's pods get it, for
/// `--shard auto/N`); returns their exit statuses in order.
func runAtOnce(_ runs: [(arguments: [String], index: Int)]) throws -> [Int32] {
    var processes: [Process] = []
    for run in runs {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: facecropBinary)
        process.arguments = run.arguments
        process.environment = ["JOB_COMPLETION_INDEX": "\(run.index)"]
        try process.run()
        processes.append(process)
    }
    return processes.map { process in
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Starts the real binary and, after `seconds` (counted, with `once`, from
/// the first photo finished in that output folder), sends it `signal`;
/// returns its exit status (for a signal it did not handle: 128 + the
/// signal). With `again`, a second signal follows the first after that
/// many seconds.
func interruptFaceCrop(
    _ arguments: [String], once output: URL? = nil, after seconds: Double, with signal: Int32, again: Double? = nil
) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: facecropBinary)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    try process.run()
    if let output {
        // However loaded the machine: not before a photo is finished (its
        // record is in the run's journal), then `seconds` more.
        let journal = output.appendingPathComponent(".facecrop/journal.jsonl").path
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline {
            if let text = try? String(contentsOfFile: journal, encoding: .utf8), text.contains("\"mtime_ns\"") { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }
    Thread.sleep(forTimeInterval: seconds)
    kill(process.processIdentifier, signal)
    if let again {
        Thread.sleep(forTimeInterval: again)
        kill(process.processIdentifier, signal)
    }
    process.waitUntilExit()
    return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
}

/// A fresh temporary folder, removed by the caller's `defer`.
func makeTemporaryFolder() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("facecrop-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Copies fixture folders (e.g. "faces") into `folder`; tests never write into Fixtures/.
func copyFixtures(_ names: [String], into folder: URL) throws {
    for name in names {
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: folder.appendingPathComponent(name))
    }
}

/// Copies fixture files (paths under Fixtures/) flat into `<work>/photos`, a new folder.
func fixturePhotos(_ names: [String]) throws -> (work: URL, photos: URL) {
    let work = try makeTemporaryFolder()
    let photos = work.appendingPathComponent("photos")
    try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
    for name in names {
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent(name),
            to: photos.appendingPathComponent((name as NSString).lastPathComponent))
    }
    return (work, photos)
}

/// Manifest lines grouped by their `source`.
func linesBySource(_ lines: [[String: Any]]) -> [String: [[String: Any]]] {
    var result: [String: [[String: Any]]] = [:]
    for line in lines { result[line["source"] as! String, default: []].append(line) }
    return result
}

/// manifest.jsonl as parsed JSON objects, in file order.
func readManifest(_ output: URL) throws -> [[String: Any]] {
    let text = try String(contentsOf: output.appendingPathComponent("manifest.jsonl"), encoding: .utf8)
    return try text.split(separator: "\n").map {
        try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
    }
}

struct Expected {
    var faces: Int
    var boxes: [PixelRect]
    var width: Int
    var height: Int
    /// How the face lies turned in the stored photo (0: upright).
    var turned = 0
}

/// Fixtures/expected.json: the known answers for every fixture photo.
let expectedAnswers: [String: Expected] = {
    let data = try! Data(contentsOf: fixtures.appendingPathComponent("expected.json"))
    let object = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    var answers: [String: Expected] = [:]
    for (key, value) in object {
        guard let entry = value as? [String: Any], let faces = entry["faces"] as? Int else { continue }
        let boxes = (entry["boxes"] as? [[Int]] ?? []).map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
        answers[key] = Expected(
            faces: faces, boxes: boxes, width: entry["width"] as? Int ?? 0, height: entry["height"] as? Int ?? 0,
            turned: entry["turned"] as? Int ?? 0)
    }
    return answers
}()

func intersectionOverUnion(_ a: PixelRect, _ b: PixelRect) -> Double {
    let x0 = max(a.x, b.x)
    let y0 = max(a.y, b.y)
    let x1 = min(a.x + a.width, b.x + b.width)
    let y1 = min(a.y + a.height, b.y + b.height)
    let inter = max(0, x1 - x0) * max(0, y1 - y0)
    let union = a.area + b.area - inter
    return union > 0 ? Double(inter) / Double(union) : 0
}

func rect(_ value: Any?) -> PixelRect? {
    guard let numbers = value as? [Int], numbers.count == 4 else { return nil }
    return PixelRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
}

/// SHA-256 of every file under `folder`, by relative path.
func fingerprint(_ folder: URL) throws -> [String: String] {
    var result: [String: String] = [:]
    let enumerator = FileManager.default.enumerator(atPath: folder.path)!
    while let relative = enumerator.nextObject() as? String {
        let path = folder.appendingPathComponent(relative).path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        result[relative] = data.withUnsafeBytes { Vips.sha256($0) }
    }
    return result
}

/// report.html (and its other pages) without what varies from run to run or
/// folder to folder: the header naming the output folder and the rows with
/// the run's time, speed, jobs and what it processed, kept or removed, and
/// the left-out faces' thumbnails (links to the photos from where the dataset is).
func stableReport(_ page: URL) throws -> String {
    let varying = ["<header>", "data-stat=\"elapsed_s\"", "data-stat=\"photos_per_s\"", "data-stat=\"jobs\"",
        "data-stat=\"processed\"", "data-stat=\"reused\"", "data-stat=\"removed_crops\""]
    let text = try String(contentsOf: page, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        .filter { line in !varying.contains { line.contains($0) } }
        .joined(separator: "\n")
    return text.replacingOccurrences(
        of: "<td class=\"thumb\"><a [^<]*<img [^>]*></a></td>", with: "<td class=\"thumb\"></td>", options: .regularExpression)
}

/// `fingerprint` with each report page replaced by its stable text.
func fingerprintWithStableReport(_ folder: URL) throws -> [String: String] {
    var bytes = try fingerprint(folder)
    for key in bytes.keys where key.hasPrefix("report") && key.hasSuffix(".html") {
        bytes[key] = try stableReport(folder.appendingPathComponent(key))
    }
    return bytes
}

/// Everything a user would compare between two datasets: crops, manifest,
/// metadata.jsonl, the dataset card, contact sheets, the report's stable text and stats.json
/// without its `run` section.
func datasetBytes(_ output: URL) throws -> [String: String] {
    var bytes = try fingerprintWithStableReport(output).filter { !$0.key.hasPrefix(".facecrop/") }
    // A finished dataset has its Hugging Face metadata, compared with the rest.
    #expect(bytes[HFMetadata.fileName] != nil || bytes[Manifest.fileName] == nil)
    #expect(bytes[DatasetCard.fileName] != nil || bytes[Manifest.fileName] == nil)
    if bytes.removeValue(forKey: "stats.json") != nil {
        var stable = try JSONSerialization.jsonObject(with: Data(contentsOf: output.appendingPathComponent("stats.json"))) as! [String: Any]
        stable.removeValue(forKey: "run")
        let data = try JSONSerialization.data(withJSONObject: stable, options: [.sortedKeys])
        bytes["stats.json (stable)"] = String(decoding: data, as: UTF8.self)
    }
    return bytes
}

/// A JPEG's bytes with an EXIF block holding DateTimeOriginal (`taken`, as
/// EXIF writes it: "2019:07:14 10:31:07") and OffsetTimeOriginal inserted
/// after the start marker (Fixtures' JPEGs have no EXIF): a little-endian
/// TIFF header, IFD0 with only the Exif IFD pointer (0x8769), the Exif IFD
/// with 0x9003 and 0x9011.
func withCaptureTime(_ photo: Data, taken: String, offset: String) -> Data {
    func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
    let date = Array(taken.utf8) + [0]
    let zone = Array(offset.utf8) + [0]
    let exifIFD = 8 + 2 + 12 + 4
    let data = exifIFD + 2 + 24 + 4
    var tiff: [UInt8] = Array("II".utf8) + u16(42) + u32(8)
    tiff += u16(1) + u16(0x8769) + u16(4) + u32(1) + u32(exifIFD) + u32(0)
    tiff += u16(2) + u16(0x9003) + u16(2) + u32(date.count) + u32(data)
    tiff += u16(0x9011) + u16(2) + u32(zone.count) + u32(data + date.count) + u32(0)
    tiff += date + zone
    let payload = Array("Exif".utf8) + [0, 0] + tiff
    let segment: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    #expect(photo.prefix(2) == Data([0xFF, 0xD8]))
    return photo.prefix(2) + Data(segment) + photo.dropFirst(2)
}

/// `arguments` run through libvips' `vips` command (photos made at test time).
func vips(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
    process.arguments = arguments
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "vips \(arguments)")
}
