import Foundation

/// manifest.jsonl: one JSON object per line, a line per crop and a line per
/// photo without crops, in source order (the contract in README.md). The
/// state file keeps each photo's lines too, so this is also where they are
/// read back into a record.
enum Manifest {
    static let fileName = "manifest.jsonl"

    /// The manifest lines of one record.
    static func lines(of record: PhotoRecord) -> [String] {
        var common: [(String, JSON)] = [("source", .string(FileName.display(record.source)))]
        var extra: [(String, JSON)] = []
        if FileName.hasEscapes(record.source) {
            extra.append(("source_bytes", .string(Data(FileName.bytes(record.source)).base64EncodedString())))
        }
        if !record.label.isEmpty { extra.append(("input", .string(record.label))) }
        if let width = record.width, let height = record.height {
            extra.append(("width", .int(width)))
            extra.append(("height", .int(height)))
        }
        if let sha256 = record.sha256 { extra.append(("sha256", .string(sha256))) }

        switch record.status {
        case .ok:
            common.append(("status", .string("ok")))
            return record.faces.map { face in JSON.object(common + fields(of: face) + extra).serialized() }
        case .noFace, .noPerson:
            common.append(("status", .string(record.status.rawValue)))
            return [JSON.object(common + extra).serialized()]
        case .error:
            common.append(("status", .string("error")))
            common.append(("error", .string(record.failure ?? "unknown error")))
            return [JSON.object(common + extra).serialized()]
        }
    }

    private static func fields(of face: FaceRecord) -> [(String, JSON)] {
        [
            ("face", .int(face.index)),
            ("bbox", .array([.int(face.box.x), .int(face.box.y), .int(face.box.width), .int(face.box.height)])),
            ("score", .double(face.score)),
            ("crop", .string(face.crop)),
            ("padded", .bool(face.padded)),
            ("target", .string(face.target.rawValue)),
            ("aligned", .bool(face.aligned)),
            ("angle", .double(face.angle)),
            ("sharpness", .double(face.sharpness)),
        ]
    }

    /// Reads a record's manifest lines back into it: the photo's size and
    /// failure from the first line, a face from each line of an `.ok`
    /// record. Returns false if a line is not one `lines(of:)` writes.
    static func read(_ lines: [String], into record: inout PhotoRecord) -> Bool {
        var faces: [FaceRecord] = []
        for (number, line) in lines.enumerated() {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                return false
            }
            if number == 0 {
                record.width = object["width"] as? Int
                record.height = object["height"] as? Int
                record.failure = object["error"] as? String
            }
            guard record.status == .ok else { continue }
            guard let face = face(from: object) else { return false }
            faces.append(face)
        }
        record.faces = faces
        return true
    }

    private static func face(from object: [String: Any]) -> FaceRecord? {
        guard let index = object["face"] as? Int, let box = object["bbox"] as? [Int], box.count == 4,
            let score = double(object["score"]), let crop = object["crop"] as? String,
            let padded = object["padded"] as? Bool
        else { return nil }
        return FaceRecord(
            index: index, box: PixelRect(x: box[0], y: box[1], width: box[2], height: box[3]), score: score,
            target: (object["target"] as? String).flatMap(Target.init(rawValue:)) ?? .face,
            aligned: object["aligned"] as? Bool ?? false, angle: double(object["angle"]) ?? 0,
            sharpness: double(object["sharpness"]) ?? 0, crop: crop, padded: padded)
    }

    private static func double(_ value: Any?) -> Double? {
        (value as? NSNumber)?.doubleValue
    }
}
