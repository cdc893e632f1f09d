import Foundation

/// stats.json: the counts and the effective settings (the same bytes for the
/// same photos and settings), plus a separate `timing` section that varies
/// from run to run.
struct Stats {
    static let fileName = "stats.json"

    var settings: CropSettings
    var cascadePath: String
    var counts: RunCounts
    var elapsed: Double
    var jobs: Int
    var interrupted: Bool

    var settingsJSON: JSON {
        .object([
            ("size", .int(settings.size)),
            ("margin", .double(settings.margin)),
            ("faces", .string(settings.faces.rawValue)),
            ("min_face", .int(settings.minFace)),
            ("pad", .string(settings.pad.rawValue)),
            ("format", .string(settings.format.rawValue)),
            ("quality", .int(settings.quality)),
            ("detect_size", .int(settings.detectSize)),
            ("min_neighbors", .int(settings.minNeighbors)),
            ("max_pixels", .int(settings.maxPixels)),
            ("cascade", .string((cascadePath as NSString).lastPathComponent)),
        ])
    }

    var json: JSON {
        let settings = settingsJSON
        let hash = Array(settings.serialized().utf8).withUnsafeBytes { Vips.sha256($0) }
        return .object([
            ("version", .string(OptionTable.version)),
            ("settings", settings),
            ("settings_hash", .string(hash)),
            ("photos", .int(counts.photos)),
            ("faces", .int(counts.faces)),
            ("counts", .object([
                ("ok", .int(counts.ok)),
                ("no_face", .int(counts.noFace)),
                ("error", .int(counts.errors)),
            ])),
            ("complete", .bool(!interrupted)),
            ("timing", .object([
                ("elapsed_s", .double((elapsed * 1000).rounded() / 1000)),
                ("photos_per_s", .double(elapsed > 0 ? (Double(counts.photos) / elapsed * 100).rounded() / 100 : 0)),
                ("jobs", .int(jobs)),
            ])),
        ])
    }

    func summaryLine(output: String) -> String {
        let rate = elapsed > 0 ? Double(counts.photos) / elapsed : 0
        var line = "facecrop: \(counts.photos) photos, \(counts.faces) faces"
        line += " (\(counts.ok) with faces, \(counts.noFace) without, \(counts.errors) failed)"
        line += String(format: " in %.1f s, %.1f photos/s", elapsed, rate)
        line += interrupted ? "; interrupted, manifest covers the photos done" : ""
        return line + " -> '\(output)'"
    }
}
