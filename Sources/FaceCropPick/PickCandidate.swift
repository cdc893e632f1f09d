import Foundation
import FaceCropCore
import FaceCropOutput

/// One crop of the dataset that pick may choose: the manifest fields it
/// needs, typed. A quality field the dataset predates is nil.
package struct PickCandidate: Sendable {
    /// Its position among the dataset's crops (1-based, manifest order), as
    /// on the dataset's contact sheet: the last tie-break.
    package var number: Int
    package var source: String
    /// The photo's exact path bytes when its name is not UTF-8 (`source_bytes`).
    package var sourceBytes: [UInt8]?
    /// The input's label (`input`; "" with a single input).
    package var input: String
    package var face: Int
    package var crop: String
    package var person: String?
    package var box: PixelRect
    /// How the face lies in its photo (manifest `turned`): cut upright.
    package var turned = QuarterTurn.upright
    package var width: Int?
    package var height: Int?
    package var sha256: String?
    package var sharpness: Double
    package var phash: PerceptualHash?
    package var photoHash: PerceptualHash?
    /// `taken` as the manifest writes it (`YYYY-MM-DDTHH:MM:SS` and an offset).
    package var taken: String?
    package var pose: Pose?
    package var facePixels: Double?
    package var faceQuality: Double?
    package var qualityReason: String?
    package var embedding: Int?
    /// A video's crop: its track (nil for a photo).
    package var track: Int?
    package var isVideo: Bool
    /// A video's crop: the sample's time in seconds (`time`).
    package var time: Double? = nil

    package struct Pose: Sendable, Equatable {
        package var yaw: Double
        package var pitch: Double
        package var roll: Double

        package init(yaw: Double, pitch: Double, roll: Double) {
            (self.yaw, self.pitch, self.roll) = (yaw, pitch, roll)
        }
    }

    /// The capture year (`2019`), or nil when `taken` is not known.
    package var year: String? {
        guard let taken, taken.utf8.count >= 10 else { return nil }
        return String(taken.prefix(4))
    }

    /// The capture day (`2019-07-04`), or nil.
    package var day: String? { taken.map { String($0.prefix(10)) } }

    /// The face's size in photo pixels: `face_px` where the dataset has it,
    /// otherwise the box's longer side.
    package var size: Double { facePixels ?? Double(max(box.width, box.height)) }

    /// The photo this crop comes from, as one key (`input/source`).
    package var photoKey: String { input.isEmpty ? source : input + "/" + source }

    package init(number: Int, source: String, sourceBytes: [UInt8]? = nil, input: String, face: Int, crop: String,
        person: String? = nil, box: PixelRect, width: Int? = nil, height: Int? = nil, sha256: String? = nil,
        sharpness: Double, phash: PerceptualHash? = nil, photoHash: PerceptualHash? = nil, taken: String? = nil,
        pose: Pose? = nil, facePixels: Double? = nil, faceQuality: Double? = nil, qualityReason: String? = nil,
        embedding: Int? = nil, track: Int? = nil, isVideo: Bool) {
        (self.number, self.source, self.sourceBytes, self.input) = (number, source, sourceBytes, input)
        (self.face, self.crop, self.person, self.box, self.width) = (face, crop, person, box, width)
        (self.height, self.sha256, self.sharpness, self.phash) = (height, sha256, sharpness, phash)
        (self.photoHash, self.taken, self.pose, self.facePixels) = (photoHash, taken, pose, facePixels)
        (self.faceQuality, self.qualityReason, self.embedding) = (faceQuality, qualityReason, embedding)
        (self.track, self.isVideo) = (track, isVideo)
    }
}

extension PickCandidate {
    /// A candidate from a manifest line with a crop (`status: ok`); nil for
    /// any other line.
    package init?(_ line: ManifestLines.Line, number: Int) {
        let object = line.object
        guard line.isSample, let source = object["source"] as? String, let face = object["face"] as? Int,
            let bbox = object["bbox"] as? [Int], bbox.count == 4
        else { return nil }
        self.number = number
        self.source = source
        sourceBytes = (object["source_bytes"] as? String).flatMap { Data(base64Encoded: $0) }.map { Array($0) }
        input = object["input"] as? String ?? ""
        self.face = face
        crop = line.crop
        person = object["person"] as? String
        box = PixelRect(x: bbox[0], y: bbox[1], width: bbox[2], height: bbox[3])
        turned = (object["turned"] as? Int).flatMap(QuarterTurn.init(degrees:)) ?? .upright
        width = object["width"] as? Int
        height = object["height"] as? Int
        sha256 = object["sha256"] as? String
        sharpness = Self.number(object["sharpness"]) ?? 0
        phash = (object["phash"] as? String).flatMap(PerceptualHash.init(hex:))
        photoHash = (object["photo_phash"] as? String).flatMap(PerceptualHash.init(hex:))
        taken = object["taken"] as? String
        pose = Self.pose(object["pose"])
        facePixels = Self.number(object["face_px"])
        faceQuality = Self.number(object["face_quality"])
        qualityReason = object["quality_reason"] as? String
        embedding = object["embedding"] as? Int
        track = object["track"] as? Int
        isVideo = object["video"] as? Bool ?? false
        time = Self.number(object["time"])
    }

    package static func number(_ value: Any?) -> Double? {
        if let value = value as? Double { return value }
        return (value as? Int).map(Double.init)
    }

    package static func pose(_ value: Any?) -> Pose? {
        guard let object = value as? [String: Any], let yaw = number(object["yaw"]), let pitch = number(object["pitch"])
        else { return nil }
        return Pose(yaw: yaw, pitch: pitch, roll: number(object["roll"]) ?? 0)
    }
}

/// The crops of a dataset, read from its manifest: every candidate, and
/// whether the dataset was made with `--people` (a face line has `person`).
package struct PickDataset {
    package var folder: String
    package var candidates: [PickCandidate]
    package var grouped: Bool
    /// The faces the dataset itself left without a crop (`low_quality`,
    /// `too_small`, ...), each with its status as the reason.
    package var dropped: [PickLeftOut] = []

    package static func load(_ folder: String) throws(FaceCropError) -> PickDataset {
        let manifest = folder + "/" + Manifest.fileName
        var info = stat()
        guard stat(folder, &info) == 0 else { throw .inputMissing(folder, reason: systemError(errno)) }
        guard access(manifest, R_OK) == 0 else {
            throw .inputMissing(folder, reason: "no readable \(Manifest.fileName) (\(systemError(errno))): not a facecrop dataset")
        }
        var candidates: [PickCandidate] = []
        var grouped = false
        var number = 0
        var dropped: [PickLeftOut] = []
        for line in ManifestLines(path: manifest) {
            if line.object.keys.contains("person") { grouped = true }
            guard line.isSample else {
                if let face = droppedFace(line) { dropped.append(face) }
                continue
            }
            number += 1
            if let candidate = PickCandidate(line, number: number) { candidates.append(candidate) }
        }
        return PickDataset(folder: folder, candidates: candidates, grouped: grouped, dropped: dropped)
    }

    /// A face line without a crop: the face, and the dataset's status as the reason.
    static func droppedFace(_ line: ManifestLines.Line) -> PickLeftOut? {
        let object = line.object
        guard let source = object["source"] as? String, let face = object["face"] as? Int, !line.status.isEmpty else { return nil }
        let bbox = object["bbox"] as? [Int] ?? []
        let box = bbox.count == 4 ? PixelRect(x: bbox[0], y: bbox[1], width: bbox[2], height: bbox[3]) : PixelRect(x: 0, y: 0, width: 0, height: 0)
        let candidate = PickCandidate(
            number: 0, source: source, input: object["input"] as? String ?? "", face: face, crop: line.crop,
            person: object["person"] as? String, box: box, sharpness: 0, faceQuality: PickCandidate.number(object["face_quality"]),
            qualityReason: object["quality_reason"] as? String, track: object["track"] as? Int,
            isVideo: object["video"] as? Bool ?? false)
        let why = (object["quality_reason"] as? String).map { $0.isEmpty ? "" : ", weakest: \($0)" } ?? ""
        return PickLeftOut(candidate: candidate, reason: "left out by the dataset: status \(line.status)\(why)")
    }
}
