import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// The files and settings a worker's detector is made from.
package struct DetectorConfig: Sendable {
    package var kind: DetectorKind = .cascade
    package var target: Target = .face
    /// The main cascade: `--cascade`, else alt2 (faces) or the target's cascade.
    package var cascadePath: String
    package var cascadeFolder: String
    package var modelPath: String?
    package var minNeighbors = 4
    /// Keep faces scoring at least this (`cascade`, `yunet`).
    package var minScore: Double
    package var needsPeople = false
    package var needsEyes = false
    /// Workers that detect at once (`--jobs`).
    package var workers = 1
    /// The longest side photos are detected at: `--detect-size`, else the
    /// largest the detector chooses (`DetectorFacts.detectSize`).
    package var largestDetectSide = Calibration.largestDetectSize
    /// `--people`: a face descriptor per crop.
    package var embeds = false
    /// The descriptor's and dlib's predictor's model files, when found (`PeopleModels.resolve`).
    package var peopleModels: PeopleModelPaths?
    /// dlib's 5-point predictor, for the pose of faces without landmarks
    /// (nil: not found; those faces get no pose).
    package var posePredictor: String?
    /// The face mesh's model, for the eye and face measures (nil: not found;
    /// faces get none).
    package var faceMesh: String?

    package static func defaultMinScore(_ kind: DetectorKind) -> Double { kind.facts.defaultMinScore }

    /// OpenCV's own threads, set once for the process before any worker
    /// starts: 1, so that the `--jobs` workers are the one level of
    /// parallelism. YuNet's and CenterFace's passes run on every core
    /// through ONNX Runtime's own threads instead (`OnnxRuntime.sessionOptions`).
    package var libraryThreads: Int { 1 }

    package static func cascadeName(for target: Target) -> String {
        switch target {
        case .face: "haarcascade_frontalface_alt2.xml"
        case .upperbody: "haarcascade_upperbody.xml"
        case .body: "haarcascade_fullbody.xml"
        case .catface: "haarcascade_frontalcatface_extended.xml"
        }
    }

    package init(kind: DetectorKind = .cascade, target: Target = .face, cascadePath: String, cascadeFolder: String,
        modelPath: String? = nil, minNeighbors: Int = 4, minScore: Double, needsPeople: Bool = false,
        needsEyes: Bool = false, workers: Int = 1, largestDetectSide: Int = Calibration.largestDetectSize,
        embeds: Bool = false, peopleModels: PeopleModelPaths? = nil, posePredictor: String? = nil) {
        (self.kind, self.target, self.cascadePath, self.cascadeFolder) = (kind, target, cascadePath, cascadeFolder)
        (self.modelPath, self.minNeighbors, self.minScore) = (modelPath, minNeighbors, minScore)
        (self.needsPeople, self.needsEyes, self.workers) = (needsPeople, needsEyes, workers)
        (self.largestDetectSide, self.embeds, self.peopleModels) = (largestDetectSide, embeds, peopleModels)
        self.posePredictor = posePredictor
    }
}

/// Every detection handle one worker needs: its `FaceFinder`, chosen once
/// here from the config, the HOG bodies of --person-only, the face
/// descriptor and dlib's landmark predictor (both shared by every worker).
///
/// Not thread-safe: owns OpenCV objects; lent to one task at a time by the
/// pipeline, which hands it to the next task only after the previous one has
/// finished with it. That hand-over is what makes the `@unchecked Sendable`
/// sound.
package final class Detector: @unchecked Sendable {
    package let config: DetectorConfig
    /// What `find` runs.
    private let finder: any FaceFinder
    /// `--person-only` (and `--target body`, whose finder it is).
    private let bodies: HOGBodies?
    /// `--people`: dlib's landmarks and face descriptor (one a process).
    package let embedder: Embedder?
    /// dlib's 5-point predictor for the quality record (`posePredictor`),
    /// loaded at its first use by a network detector's run.
    package let pose: PosePredictor?
    /// The face mesh for the quality record (`faceMesh`; one a process).
    package let faceMesh: FaceMesh?

    /// `sharing`: another worker's detector of the same `config`, whose
    /// YuNet or CenterFace network this one uses too (one per process, lent under
    /// its lock: `CenterFace`), whose face descriptor (thread-safe: `Embedder`)
    /// and whose dlib predictor (read-only: `Landmarker`).
    package init(_ config: DetectorConfig, sharing other: Detector? = nil) throws(FaceCropError) {
        self.config = config
        let bodies = config.needsPeople || config.target == .body ? try HOGBodies() : nil
        self.bodies = bodies
        finder = try Self.finder(for: config, bodies: bodies, sharing: other?.finder)
        if config.embeds {
            guard let models = config.peopleModels else { throw .peopleModelsUnavailable(PeopleModels.missingReason) }
            if let shared = other?.embedder {
                embedder = shared
            } else {
                embedder = try Embedder(model: models.descriptor) { () throws(FaceCropError) in
                    try Self.predictor(models.landmarks, loaded: [other?.pose?.ifLoaded])
                }
            }
        } else {
            embedder = nil
        }
        pose = try Self.pose(config, sharing: other?.pose, loaded: embedder?.predictor)
        if let shared = other?.faceMesh, shared.path == config.faceMesh {
            faceMesh = shared
        } else {
            faceMesh = try config.faceMesh.map { path throws(FaceCropError) in try FaceMesh(model: path) }
        }
    }

    /// dlib's predictor of the file at `path`: one already `loaded` from it,
    /// else loaded now. One a process instead of two a worker (the pose's and
    /// the descriptor's); measured: peak RSS with `--people --jobs 2`, 162 ->
    /// 129 MiB on Fixtures/people, 216-224 -> 184-187 MiB on the people dev
    /// set (docs/measurements.md, "One dlib predictor a process").
    private static func predictor(_ path: String, loaded: [Landmarker?]) throws(FaceCropError) -> Landmarker {
        if let same = loaded.lazy.compactMap({ $0 }).first(where: { $0.path == path }) { return same }
        return try Landmarker(path: path)
    }

    /// The pose predictor of `config`: another worker's of the same file,
    /// else one over the predictor already `loaded` from that file (the
    /// descriptor's), else a new one. Loaded now for the cascades, whose
    /// faces all need it (a file it cannot load stops the run here, exit
    /// 69); at its first use for a network's, whose faces have landmarks.
    private static func pose(_ config: DetectorConfig, sharing other: PosePredictor?, loaded: Landmarker?)
        throws(FaceCropError) -> PosePredictor?
    {
        guard let path = config.posePredictor else { return nil }
        if let other, other.path == path { return other }
        let pose = PosePredictor(path: path, already: loaded?.path == path ? loaded : nil)
        if config.kind.facts.model == nil { _ = try pose.load() }
        return pose
    }

    /// The finder for the config's target (and, for faces, its detector).
    private static func finder(for config: DetectorConfig, bodies: HOGBodies?, sharing other: (any FaceFinder)?)
        throws(FaceCropError) -> any FaceFinder
    {
        switch config.target {
        case .upperbody: return try SingleCascade(config)
        case .catface: return try CatFaceVote(config)
        case .body:
            if let bodies { return bodies }
            return try HOGBodies()
        case .face: return try config.kind.facts.finder(config, sharing: other)
        }
    }

    /// Whether `find` needs the photo's colour pixels.
    package var needsColour: Bool { finder.needsColour }

    /// The finder's landmarks measured again (`FaceFinder.remeasured`).
    package func remeasured(_ landmarks: FaceLandmarks, in picture: Picture, source: String) throws(FaceCropError) -> FaceLandmarks {
        try finder.remeasured(landmarks, in: picture, source: source)
    }

    /// Finds the target in `gray` (and `rgb`, the same pixels in colour, for
    /// the networks). `minSide`: smallest box side of interest, in `gray`'s pixels.
    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        try finder.find(in: gray, rgb: rgb, minSide: minSide, source: source)
    }

    /// The faces of `find`, turned ones too (`TurnedFaces`), by the
    /// detector's rule; `stored`: the photo has no EXIF orientation, so it
    /// may be stored turned and is searched on the turned canvases when the
    /// rule says so. Faces only (`--target face`).
    package func findTurned(in gray: GrayImage, rgb: RGBImage?, minSide: Int, stored: Bool, source: String)
        throws(FaceCropError) -> [Subject]
    {
        let first = try find(in: gray, rgb: rgb, minSide: minSide, source: source)
        guard config.target == .face, let rule = config.kind.facts.turnedRule else { return first }
        if rule == .largeOnCanvases || rule == .sureOnCanvases {
            let verdict: TurnedFaces.Verdict? = rule == .sureOnCanvases
                ? { face, canvas throws(FaceCropError) in try self.finder.verdict(of: face, in: canvas, source: source) ?? 1 }
                : nil
            let turned = try TurnedFaces.onCanvases(first: first, gray: gray, minSide: minSide, stored: stored, verdict: verdict) {
                canvas, side throws(FaceCropError) in
                try find(in: canvas, rgb: nil, minSide: side, source: source)
            }
            guard config.kind.facts.rolledRule != nil else { return turned }
            return try TurnedFaces.onRolledCanvases(first: turned, gray: gray, minSide: minSide) {
                canvas, side throws(FaceCropError) in
                try find(in: canvas, rgb: nil, minSide: side, source: source)
            }
        }
        let search = { (canvas: GrayImage, colour: RGBImage?, side: Int) throws(FaceCropError) -> [Subject] in
            try self.find(in: canvas, rgb: colour, minSide: side, source: source)
        }
        let found = try TurnedFaces.find(
            first: first, gray: gray, rgb: rgb, minSide: minSide, stored: stored, rule: rule, search: search)
        guard config.kind.facts.rolledRule != nil else { return found }
        let rolled = try TurnedFaces.withRolledCanvases(found, gray: gray, rgb: rgb, minSide: minSide, search: search)
        return try TurnedFaces.relevelled(rolled, gray: gray, rgb: rgb, minSide: minSide, search: search)
    }

    /// People found by the HOG detector, in `gray`'s pixels: on `gray` as
    /// it is, and on a shrunk copy extended past the frame, so that people cut
    /// at the waist or knees, or filling the photo, are found too (their boxes
    /// may reach outside `gray`).
    package func findPeople(in gray: GrayImage, source: String) throws(FaceCropError) -> [(box: PixelRect, score: Double)] {
        guard let bodies else { return [] }
        return try bodies.detect(gray, pastFrame: true, source: source)
    }

    /// Whether a person box lies wholly inside a `width` x `height` image:
    /// found by the HOG pass on the photo as it is, not only past its edges.
    package static func liesInside(_ box: PixelRect, width: Int, height: Int) -> Bool {
        box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height
    }

    /// Sharpness of a box of `gray` (variance of the Laplacian at 96 x 96).
    package static func sharpness(of box: PixelRect, in gray: GrayImage) -> Double {
        gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_Sharpness(
                $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, Int32(box.x), Int32(box.y),
                Int32(box.width), Int32(box.height))
        }
    }
}
