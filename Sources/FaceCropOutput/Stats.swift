import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect

/// stats.json: the counts and the effective settings (the same bytes for the
/// same photos and settings), plus a separate `timing` section that varies
/// from run to run.
package struct Stats {
    package static let fileName = "stats.json"

    package var settings: JSON
    package var settingsHash: String
    package var counts: RunCounts
    package var elapsed: Double
    package var jobs: Int
    package var interrupted: Bool
    package var removed: Int
    package var shard: Shard?
    /// When the run ended (seconds since 1970); it started `elapsed` before.
    /// Shards record both so that `merge` can give the wall time of them all.
    package var finishedAt = Date().timeIntervalSince1970
    /// Set by `merge`: the shards' runs, which the `run` section reports.
    package var shardRuns: ShardRuns?
    /// `--split`'s names, in order: crops per split are counted under `splits`.
    package var splitNames: [String] = []

    /// `people`: with `--people`, what made the descriptors (`PeopleStep.settingsValue`),
    /// so that a dataset grouped from other descriptors is processed again.
    package static func settingsJSON(
        _ settings: CropSettings, cascadePath: String, modelPath: String? = nil, posePredictor: String? = nil,
        faceMesh: [String]? = nil, people: String? = nil
    ) -> JSON {
        var curation: [(String, JSON)] = []
        let facts = settings.target == .face ? settings.detector.facts : nil
        // The network runtime, only where one other than OpenCV runs, so that
        // the hash of the other detectors' datasets stays and a dataset made
        // on cv::dnn is processed again.
        if let runtime = facts?.runtime { curation.append(("runtime", .string(runtime))) }
        if let dedup = settings.dedup { curation.append(("dedup", .int(dedup))) }
        if let split = settings.split { curation.append(("split", .string(split.description))) }
        if settings.video != .defaults { curation.append(("video", .string(settings.video.description))) }
        if settings.people, let people { curation.append(("people", .string(people))) }
        if let tiles = facts?.tileRule { curation.append(("crowd_tiles", .string(tiles))) }
        if settings.splitByPerson { curation.append(("split_by", .string("person"))) }
        if !settings.taggedFaces { curation.append(("tagged_faces", .string("no"))) }
        // Absent with --no-turned, so that those datasets keep the hash of runs made before it.
        if settings.turned, settings.target == .face {
            let rules = [facts?.turnedRule?.rawValue, facts?.rolledRule, "level60"].compactMap { $0 }
            curation.append(("turned", .string(rules.joined(separator: ","))))
        }
        if !settings.keepPerson.isEmpty { curation.append(("keep_person", .array(settings.keepPerson.map(JSON.string)))) }
        return .object([
            ("size", .int(settings.size)),
            ("margin", .double(settings.margin)),
            ("faces", .string(settings.faces.rawValue)),
            ("min_face", .int(settings.minFace)),
            ("pad", .string(settings.pad.rawValue)),
            ("format", .string(settings.format.rawValue)),
            ("quality", .int(settings.quality)),
            ("detect_size", settings.detectSize.map { .int($0) } ?? .string("auto")),
            ("min_neighbors", .int(settings.minNeighbors)),
            ("max_pixels", .int(settings.maxPixels)),
            ("cascade", .string((cascadePath as NSString).lastPathComponent)),
            ("cascade_sha256", .string(fileHash(cascadePath))),
            ("detector", .string(settings.detector.rawValue)),
            ("min_score", .double(settings.minScore)),
            ("target", .string(settings.target.rawValue)),
            ("person_only", .string(settings.personOnly ? "yes" : "no")),
            ("align", .string(settings.align.settingsValue)),
            ("min_sharpness", .double(settings.minSharpness)),
            ("model_sha256", .string(settings.detector.facts.model != nil ? modelPath.map(fileHash) ?? "" : "")),
            // The quality record: its filters, and dlib's 5-point predictor
            // that gives the pose of faces without landmarks ("": none found).
            ("min_face_quality", .double(settings.minFaceQuality)),
            ("max_yaw", .double(settings.maxYaw)),
            ("eyes", .string(settings.eyes.rawValue)),
            ("pose_sha256", .string(posePredictor.map(fileHash) ?? "")),
            // The face mesh's two networks, of the eye and face measures ("": none found).
            ("face_mesh_sha256", .string(faceMesh.map { $0.map(fileHash).joined(separator: " ") } ?? "")),
            // What face_quality means (`QualityScore.version`): a new meaning scores every face again.
            ("quality_score", .int(QualityScore.version)),
        ] + curation)
    }

    package static let settingsKeys = [
        "size", "margin", "faces", "min_face", "pad", "format", "quality", "detect_size", "min_neighbors", "max_pixels",
        "cascade", "cascade_sha256", "detector", "min_score", "target", "person_only", "align", "min_sharpness",
        "model_sha256", "min_face_quality", "max_yaw", "eyes", "pose_sha256", "face_mesh_sha256",
        "quality_score",
    ]

    /// Settings read back from a state file, in the order `settingsJSON` writes them.
    package static func settingsJSON(parsed: [String: Any]?) -> JSON? {
        guard let parsed else { return nil }
        var members: [(String, JSON)] = []
        for key in settingsKeys {
            switch parsed[key] {
            case let text as String: members.append((key, .string(text)))
            case let number as Int: members.append((key, .int(number)))
            case let number as Double: members.append((key, .double(number)))
            default: return nil
            }
        }
        // Present only when set (runs without them keep their settings hash).
        if let runtime = parsed["runtime"] as? String { members.append(("runtime", .string(runtime))) }
        if let dedup = parsed["dedup"] as? Int { members.append(("dedup", .int(dedup))) }
        if let split = parsed["split"] as? String { members.append(("split", .string(split))) }
        if let video = parsed["video"] as? String { members.append(("video", .string(video))) }
        if let people = parsed["people"] as? String { members.append(("people", .string(people))) }
        if let tiles = parsed["crowd_tiles"] as? String { members.append(("crowd_tiles", .string(tiles))) }
        if let splitBy = parsed["split_by"] as? String { members.append(("split_by", .string(splitBy))) }
        if let turned = parsed["turned"] as? String { members.append(("turned", .string(turned))) }
        if let keep = parsed["keep_person"] as? [String] { members.append(("keep_person", .array(keep.map(JSON.string)))) }
        return .object(members)
    }

    package static func hash(_ settings: JSON) -> String {
        let text = "facecrop \(Options.version)\n" + settings.serialized()
        return Array(text.utf8).withUnsafeBytes { Vips.sha256($0) }
    }

    private static func fileHash(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        return data.withUnsafeBytes { Vips.sha256($0) }
    }

    /// The part that depends only on the photos, the settings and the version.
    package var stableMembers: [(String, JSON)] {
        var members: [(String, JSON)] = [
            ("version", .string(Options.version)),
            ("settings", settings),
            ("settings_hash", .string(settingsHash)),
        ]
        if let shard { members.append(("shard", .string("\(shard.index)/\(shard.count)"))) }
        members += [
            ("photos", .int(counts.photos)),
            ("faces", .int(counts.faces)),
        ]
        // Curation's counts appear when there is something to count, so a
        // dataset without them keeps its bytes.
        if counts.rejected > 0 { members.append(("rejected", .int(counts.rejected))) }
        if counts.duplicate > 0 { members.append(("duplicate", .int(counts.duplicate))) }
        if counts.otherPerson > 0 { members.append(("other_person", .int(counts.otherPerson))) }
        if let recall = counts.taggedRecall {
            members.append(("tagged_faces", .int(counts.taggedFaces)))
            members.append(("tagged_faces_found", .int(counts.taggedFacesFound)))
            members.append(("tagged_faces_recall", .double(recall)))
        }
        if counts.foundByTag > 0 { members.append(("found_by_tag", .int(counts.foundByTag))) }
        if counts.lowQuality > 0 { members.append(("low_quality", .int(counts.lowQuality))) }
        // Photos kept as they were although not found (`--no-prune`) or not
        // readable now: absent when there are none, so a whole library keeps its bytes.
        if counts.missing > 0 { members.append(("missing", .int(counts.missing))) }
        if counts.unreadable > 0 { members.append(("unreadable", .int(counts.unreadable))) }
        // The library's own quartiles of face_quality: a floor to choose from.
        if counts.qualityTotal > 0 {
            // The value of rank round((n - 1) p) among the n scores, from their counts.
            let bins = counts.qualityCounts.sorted { $0.key < $1.key }
            func at(_ p: Double) -> JSON {
                let rank = Int((Double(counts.qualityTotal - 1) * p).rounded())
                var below = 0
                for (value, count) in bins {
                    below += count
                    if below > rank { return .double(Double(value) / 10_000) }
                }
                return .null
            }
            members.append(("face_quality", .object([("q1", at(0.25)), ("median", at(0.5)), ("q3", at(0.75))])))
        }
        if let people = counts.people {
            members.append(("people", .int(people)))
            members.append(("faces_grouped", .int(counts.grouped)))
        }
        if !splitNames.isEmpty {
            members.append(("splits", .object(splitNames.map { ($0, .int(counts.splits[$0] ?? 0)) })))
        }
        members += [            ("counts", .object([
                ("ok", .int(counts.ok)),
                ("no_face", .int(counts.noFace)),
                ("no_person", .int(counts.noPerson)),
                ("error", .int(counts.errors)),
            ])),
            ("complete", .bool(!interrupted)),
        ]
        return members
    }

    package var json: JSON {
        .object(stableMembers + [("run", .object(shardRuns.map(\.members) ?? runMembers))])
    }

    private var runMembers: [(String, JSON)] {
        [
            ("elapsed_s", Self.rounded(elapsed, 3)),
            ("photos_per_s", Self.rounded(elapsed > 0 ? Double(counts.photos) / elapsed : 0, 2)),
            ("jobs", .int(jobs)),
            ("processed", .int(counts.photos - counts.reused)),
            ("reused", .int(counts.reused)),
            ("removed_crops", .int(removed)),
            ("started", Self.rounded(finishedAt - elapsed, 3)),
            ("finished", Self.rounded(finishedAt, 3)),
        ]
    }

    package static func rounded(_ value: Double, _ digits: Int) -> JSON {
        let scale = pow(10, Double(digits))
        return .double((value * scale).rounded() / scale)
    }

    package func summaryLine(output: String) -> String {
        let rate = elapsed > 0 ? Double(counts.photos) / elapsed : 0
        var line = "facecrop: \(counts.photos) photos, \(counts.faces) faces"
        line += " (\(counts.ok) with faces, \(counts.noFace) without"
        line += counts.noPerson > 0 ? ", \(counts.noPerson) without a person" : ""
        line += ", \(counts.errors) failed)"
        if let recall = counts.taggedRecall {
            line += ", \(counts.taggedFacesFound) of \(counts.taggedFaces) tagged faces found (\(recall) %)"
        }
        if counts.foundByTag > 0 { line += ", \(counts.foundByTag) cropped from their tag" }
        if counts.lowQuality > 0 { line += ", \(counts.lowQuality) left out as low_quality" }
        if counts.missing > 0 { line += ", \(counts.missing) not found (kept, marked missing)" }
        if counts.reused > 0 || removed > 0 {
            line += ", \(counts.photos - counts.reused) processed, \(counts.reused) unchanged, \(removed) old crops removed"
        }
        line += String(format: " in %.1f s, %.1f photos/s", elapsed, rate)
        line += interrupted ? "; stopped early, the manifest covers the photos done" : ""
        return line + " -> '\(output)'"
    }

    package init(settings: JSON, settingsHash: String, counts: RunCounts, elapsed: Double, jobs: Int,
        interrupted: Bool, removed: Int, shard: Shard? = nil, finishedAt: Double = Date().timeIntervalSince1970,
        shardRuns: ShardRuns? = nil, splitNames: [String] = []) {
        (self.settings, self.settingsHash, self.counts, self.elapsed) = (settings, settingsHash, counts, elapsed)
        (self.jobs, self.interrupted, self.removed, self.shard) = (jobs, interrupted, removed, shard)
        (self.finishedAt, self.shardRuns, self.splitNames) = (finishedAt, shardRuns, splitNames)
    }
}
