// Detect/: finding faces (and bodies and cat faces) in a grayscale image: the detectors over
// CFaceDetect, their calibration from the development set, where their models are found,
// --person-only's rule and YuNet's landmark order. A new detector goes here. It may use Imaging/
// and Model/; Photo/ and Video/ call it.

import CFaceDetect
import Foundation

/// Which face detector runs.
public enum DetectorKind: String, Sendable, CaseIterable {
    /// Several Debian cascades with verification (the default).
    case cascade
    /// One cascade alone (`--cascade`, default alt2): the stock detector.
    case haar
    /// A YuNet ONNX model (`--model`) through OpenCV's DNN module.
    case yunet
    /// The CenterFace ONNX model (`--model`, else found by `ModelLocator`)
    /// through OpenCV's DNN module.
    case centerface

    /// Whether it is a network with an ONNX model (`--model`).
    var usesModel: Bool { self == .yunet || self == .centerface }
}

/// What is cropped.
public enum Target: String, Sendable, CaseIterable {
    case face, upperbody, body, catface
}

/// Something found in a photo, in pixels of the image searched.
struct Subject: Sendable, Equatable {
    var box: PixelRect
    /// 0...1 for `cascade` and `yunet`; the level weight for `haar` and the
    /// other targets.
    var score: Double
    /// The eye centres (left in the image first), when they were found.
    var eyes: EyePair?
    /// Five landmarks found together (YuNet, CenterFace).
    var five: FaceLandmarks? = nil

    /// The five landmarks: YuNet's, or from the eyes the cascades found
    /// (whose box centres are in pixel-edge coordinates) with nose and
    /// mouth estimated.
    var landmarks: FaceLandmarks? {
        five ?? eyes.map { LandmarkEstimate.fromEyes(Point2D($0.x1 - 0.5, $0.y1 - 0.5), Point2D($0.x2 - 0.5, $0.y2 - 0.5)) }
    }
}

struct EyePair: Sendable, Equatable {
    var x1: Double, y1: Double, x2: Double, y2: Double

    /// Degrees the eye line is turned clockwise from level (image y grows down).
    var angle: Double { atan2(y2 - y1, x2 - x1) * 180 / .pi }

}

/// The files and settings a worker's detector is made from.
struct DetectorConfig: Sendable {
    var kind: DetectorKind = .cascade
    var target: Target = .face
    /// The main cascade: `--cascade`, else alt2 (faces) or the target's cascade.
    var cascadePath: String
    var cascadeFolder: String
    var modelPath: String?
    var minNeighbors = 4
    /// Keep faces scoring at least this (`cascade`, `yunet`).
    var minScore: Double
    var needsPeople = false
    var needsEyes = false
    /// Workers that detect at once (`--jobs`): sizes the CenterFace pool.
    var workers = 1
    /// `--people`: a face descriptor per crop.
    var embeds = false
    /// dlib's two model files, when found (`PeopleModels.resolve`).
    var peopleModels: PeopleModelPaths?
    /// dlib's 5-point predictor, for the pose of faces without landmarks
    /// (nil: not found; those faces get no pose).
    var posePredictor: String?

    static func defaultMinScore(_ kind: DetectorKind) -> Double { Calibration.defaultMinScore(kind) }

    static func cascadeName(for target: Target) -> String {
        switch target {
        case .face: "haarcascade_frontalface_alt2.xml"
        case .upperbody: "haarcascade_upperbody.xml"
        case .body: "haarcascade_fullbody.xml"
        case .catface: "haarcascade_frontalcatface_extended.xml"
        }
    }
}

/// Every detection handle one worker needs: cascades, the HOG people
/// detector, the YuNet network.
///
/// Not thread-safe: owns OpenCV objects; lent to one task at a time by the
/// pipeline, which hands it to the next task only after the previous one has
/// finished with it. That hand-over is what makes the `@unchecked Sendable`
/// sound.
final class Detector: @unchecked Sendable {
    let config: DetectorConfig
    private let primary: Cascade?
    private let confirm: Cascade?
    private let eye: Cascade?
    private let eyeglasses: Cascade?
    private let people: People?
    /// `--target catface`: Debian's three cat face cascades, voting.
    private let catFaces: CascadeVote?
    /// `--target catface`: alt2 and the default frontal cascade, to reject
    /// cat-face boxes that are human faces.
    private let humanFace: Cascade?
    private let yunet: YuNet?
    private let centerFace: CenterFace?
    /// A second YuNet network for `remeasured`, made on first use. OpenCV's
    /// DNN re-plans a network whenever its input size changes; one network
    /// kept at the remeasure's canvas and one at the detection size spare
    /// both that (it was most of the remeasure's cost).
    private var remeasureNet: YuNet?
    /// `--people`: dlib's landmarks and face descriptor.
    let embedder: Embedder?
    /// dlib's 5-point predictor for the quality record (`posePredictor`).
    let landmarker: Landmarker?

    /// `sharing`: another worker's detector of the same `config`, whose
    /// CenterFace network pool this one uses too (one pool per process).
    init(_ config: DetectorConfig, sharing other: Detector? = nil) throws(FaceCropError) {
        self.config = config
        func load(_ name: String) throws(FaceCropError) -> Cascade {
            try Cascade(path: (config.cascadeFolder as NSString).appendingPathComponent(name))
        }
        let faces = config.target == .face
        primary = config.kind.usesModel && faces ? nil : try Cascade(path: config.cascadePath)
        let ensemble = faces && config.kind == .cascade
        let cats = config.target == .catface
        confirm = ensemble || cats ? try load("haarcascade_frontalface_default.xml") : nil
        humanFace = cats ? try load(DetectorConfig.cascadeName(for: .face)) : nil
        let eyes = cats || faces && !config.kind.usesModel && (ensemble || config.needsEyes)
        eye = eyes ? try load("haarcascade_eye.xml") : nil
        eyeglasses = eyes ? try load("haarcascade_eye_tree_eyeglasses.xml") : nil
        people = config.needsPeople || config.target == .body ? try People() : nil
        if config.target == .catface, let primary {
            let lbp = ((config.cascadeFolder as NSString).deletingLastPathComponent as NSString)
                .appendingPathComponent("lbpcascades/lbpcascade_frontalcatface.xml")
            catFaces = CascadeVote(
                cascades: [primary, try load("haarcascade_frontalcatface.xml"), try Cascade(path: lbp)],
                minNeighbors: config.minNeighbors, minVotes: 3, workSide: 400)
        } else {
            catFaces = nil
        }
        if config.kind.usesModel && faces {
            guard let path = config.modelPath else {
                throw .modelUnavailable("", reason: ModelLocator.missingReason(config.kind))
            }
            yunet = config.kind == .yunet ? try YuNet(path: path) : nil
            if config.kind == .centerface, let shared = other?.centerFace {
                centerFace = shared
            } else if config.kind == .centerface {
                centerFace = try CenterFace(path: path, maxNets: CenterFace.maxNets(workers: config.workers))
            } else {
                centerFace = nil
            }
        } else {
            yunet = nil
            centerFace = nil
        }
        if config.embeds {
            guard let models = config.peopleModels else { throw .peopleModelsUnavailable(PeopleModels.missingReason) }
            embedder = try Embedder(recognition: models.recognition, landmarks: models.landmarks)
        } else {
            embedder = nil
        }
        landmarker = try config.posePredictor.map { path throws(FaceCropError) in try Landmarker(path: path) }
    }

    /// Whether `find` needs the photo's colour pixels.
    var needsColour: Bool { yunet != nil || centerFace != nil }

    /// YuNet's `landmarks` (in `picture`'s pixels) measured again on the
    /// face cut upright at ArcFace's scale (`Alignment.remeasured`).
    func remeasured(_ landmarks: FaceLandmarks, in picture: Picture, source: String) throws(FaceCropError) -> FaceLandmarks {
        guard yunet != nil, let path = config.modelPath else { return landmarks }
        let net: YuNet
        if let made = remeasureNet {
            net = made
        } else {
            net = try YuNet(path: path)
            remeasureNet = net
        }
        return try Alignment.remeasured(landmarks, in: picture, source: source) { rgb throws(FaceCropError) in
            try net.detect(rgb, minScore: 0.5, source: source).compactMap(\.five)
        }
    }

    /// Finds the target in `gray` (and `rgb`, the same pixels in colour, for
    /// YuNet). `minSide`: smallest box side of interest, in `gray`'s pixels.
    func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        switch config.target {
        case .face:
            var found: [Subject]
            switch config.kind {
            case .cascade: found = try ensemble(gray, minSide: minSide, source: source)
            case .haar: found = try single(gray, minSide: minSide, source: source)
            case .yunet, .centerface:
                found = try network(rgb ?? RGBImage(width: 0, height: 0, pixels: []), minSide: minSide, source: source)
            }
            // Every detector's box onto one convention (brow to chin, ear to ear).
            let correction = Calibration.boxCorrection(config.kind)
            for index in found.indices {
                found[index].box = correction.apply(found[index].box, width: gray.width, height: gray.height)
            }
            return found
        case .body:
            // HOG finds standing people far more reliably than the full-body cascade.
            return try (people?.detect(gray, source: source) ?? []).map { Subject(box: $0.box, score: $0.score, eyes: nil) }
                .filter { max($0.box.width, $0.box.height) >= minSide }
        case .upperbody:
            return try single(gray, minSide: minSide, source: source)
        case .catface:
            return try catFaceVote(gray, minSide: minSide, source: source)
        }
    }

    /// Cat faces: the extended and plain Haar cat face cascades and the LBP
    /// one, each on the photo and its mirror image (six passes), searched at
    /// 400 px on the long side, where fur is smooth enough for the cascades.
    /// A box needs three passes; its score is the share of passes that found
    /// it.
    private func catFaceVote(_ gray: GrayImage, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        guard let catFaces else { return [] }
        var found: [Subject] = []
        for box in try catFaces.detect(in: gray, minSide: minSide, source: source) {
            if try isHumanFace(box.box, in: gray, source: source) { continue }
            found.append(Subject(box: box.box, score: (Double(box.votes) / Double(catFaces.passes) * 10_000).rounded() / 10_000, eyes: nil))
        }
        return found
    }

    /// Whether the cascade ensemble, searching only around `box`, finds a
    /// human face there that it would keep (`Calibration.ensembleScore` at
    /// the default --min-score) and that overlaps the box by IoU 0.3 or more.
    func isHumanFace(_ box: PixelRect, in gray: GrayImage, source: String) throws(FaceCropError) -> Bool {
        guard let humanFace, let cut = GrayCut(gray, around: box) else { return false }
        let candidates = try runEnsemble(
            cut.image, frontal: humanFace, confirm: confirm, minSide: box.width / 2, maxSide: box.width * 3 / 2,
            frontalNeighbors: 2, source: source)
        return candidates.contains { c in
            let face = PixelRect(x: Int(c.x) + cut.x, y: Int(c.y) + cut.y, width: Int(c.width), height: Int(c.height))
            return Calibration.ensembleScore(c) >= Calibration.defaultMinScore(.cascade) && face.iou(box) >= 0.3
        }
    }

    private func single(_ gray: GrayImage, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        guard let primary else { return [] }
        var parameters = Cascade.Parameters()
        parameters.minNeighbors = config.minNeighbors
        parameters.minSide = minSide
        var found = try primary.detect(in: gray, parameters, source: source).map {
            Subject(box: $0.box, score: $0.score, eyes: nil)
        }
        if eye != nil, config.needsEyes, config.target == .face {
            // Eyes only to level the crop (--align): nothing is dropped.
            for index in found.indices {
                found[index].eyes = try eyes(in: gray, frontal: primary, box: found[index].box, source: source)
            }
        }
        return found
    }

    /// Eyes inside one box, through the ensemble call searching only there.
    private func eyes(in gray: GrayImage, frontal: Cascade, box: PixelRect, source: String)
        throws(FaceCropError) -> EyePair?
    {
        // Cut the box (with a margin) and let the ensemble search just there.
        guard let cut = GrayCut(gray, around: box) else { return nil }
        let (x0, y0) = (cut.x, cut.y)
        let candidates = try runEnsemble(
            cut.image, frontal: frontal, confirm: nil, minSide: box.width * 8 / 10, maxSide: box.width * 12 / 10,
            frontalNeighbors: 1, source: source)
        guard let best = candidates.first(where: { $0.eyes == 2 }) else { return nil }
        return EyePair(
            x1: best.eye1_x + Double(x0), y1: best.eye1_y + Double(y0), x2: best.eye2_x + Double(x0),
            y2: best.eye2_y + Double(y0))
    }

    private func runEnsemble(
        _ gray: GrayImage, frontal: Cascade, confirm: Cascade?, minSide: Int, maxSide: Int, frontalNeighbors: Int,
        source: String
    ) throws(FaceCropError) -> [CFaceDetect_Candidate] {
        var params = CFaceDetect_EnsembleParams(
            scale_factor: 1.1, min_side: Int32(clamping: max(minSide, frontal.windowSide)),
            max_side: Int32(clamping: maxSide), upscale: 1, frontal_min_neighbors: Int32(frontalNeighbors),
            profile_min_neighbors: 4, rotation: 0)
        var out: UnsafeMutablePointer<CFaceDetect_Candidate>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = gray.pixels.withUnsafeBufferPointer { pixels in
            CFaceDetect_Ensemble(
                frontal.handle, nil, confirm?.handle, eye?.handle, eyeglasses?.handle, pixels.baseAddress,
                Int32(gray.width), Int32(gray.height), gray.width, &params, &out, &count, &message)
        }
        return try takeCArray(status, out, count: count, message: message, source: source)
    }

    /// The cascade ensemble: one cheap full-image pass of alt2 (two raw
    /// windows are enough for a candidate), then evidence gathered inside each
    /// candidate only (the default frontal cascade, eyes), scored by
    /// `Calibration.ensembleScore`. Neither enlarging small photos (1.5x) nor
    /// the profile cascade's full scans paid for their time on the dev set.
    private func ensemble(_ gray: GrayImage, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        guard let primary else { return [] }
        let candidates = try runEnsemble(
            gray, frontal: primary, confirm: confirm, minSide: minSide, maxSide: 0,
            frontalNeighbors: Calibration.ensembleMinFrontalHits(config.minScore), source: source)
        return candidates.map { c in
            Subject(
                box: PixelRect(x: Int(c.x), y: Int(c.y), width: Int(c.width), height: Int(c.height)),
                score: Calibration.ensembleScore(c),
                eyes: c.eyes == 2 ? EyePair(x1: c.eye1_x, y1: c.eye1_y, x2: c.eye2_x, y2: c.eye2_y) : nil)
        }
        .filter { $0.score >= config.minScore }
    }

    private func network(_ rgb: RGBImage, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let found: [Subject]
        if let yunet {
            found = try yunet.detect(rgb, minScore: Float(config.minScore), source: source)
        } else if let centerFace {
            found = try centerFace.detect(rgb, minScore: Float(config.minScore), source: source)
        } else {
            return []
        }
        return found.filter { max($0.box.width, $0.box.height) >= minSide }
    }

    /// People found by the HOG detector, in `gray`'s pixels: on `gray` as
    /// it is, and on a shrunk copy extended past the frame, so that people cut
    /// at the waist or knees, or filling the photo, are found too (their boxes
    /// may reach outside `gray`).
    func findPeople(in gray: GrayImage, source: String) throws(FaceCropError) -> [(box: PixelRect, score: Double)] {
        guard let people else { return [] }
        return try people.detect(gray, pastFrame: true, source: source)
    }

    /// Whether a person box lies wholly inside a `width` x `height` image:
    /// found by the HOG pass on the photo as it is, not only past its edges.
    static func liesInside(_ box: PixelRect, width: Int, height: Int) -> Bool {
        box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height
    }

    /// Sharpness of a box of `gray` (variance of the Laplacian at 96 x 96).
    static func sharpness(of box: PixelRect, in gray: GrayImage) -> Double {
        gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_Sharpness(
                $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, Int32(box.x), Int32(box.y),
                Int32(box.width), Int32(box.height))
        }
    }
}

/// OpenCV's HOG people detector. Not thread-safe: owned by one `Detector`.
final class People {
    private let handle: OpaquePointer

    init() throws(FaceCropError) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        guard CFaceDetect_PeopleNew(&handle, &message) == 0, let handle else {
            throw .libraryFailed("cannot set up the HOG people detector: \(takeMessage(message, fallback: "failed", free: CFaceDetect_Free))")
        }
        self.handle = handle
    }

    deinit { CFaceDetect_PeopleClose(handle) }

    /// `pastFrame`: also find people cut by the frame (see CFaceDetect_PeopleDetect);
    /// their boxes may reach outside `gray`.
    func detect(_ gray: GrayImage, pastFrame: Bool = false, source: String) throws(FaceCropError)
        -> [(box: PixelRect, score: Double)]
    {
        var boxes: UnsafeMutablePointer<CFaceDetect_Box>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = gray.pixels.withUnsafeBufferPointer {
            CFaceDetect_PeopleDetect(
                handle, $0.baseAddress, Int32(gray.width), Int32(gray.height), gray.width, 0, pastFrame ? 1 : 0, &boxes, &count,
                &message)
        }
        return try takeCArray(
            status, boxes, count: count, message: message, source: source, failure: "people detection failed"
        ).map {
            (PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)), $0.score)
        }
    }
}

/// A YuNet face detection network. Not thread-safe: owned by one `Detector`.
final class YuNet {
    private let handle: OpaquePointer

    init(path: String) throws(FaceCropError) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        guard CFaceDetect_YuNetNew(path, &handle, &message) == 0, let handle else {
            throw .modelUnavailable(path, reason: takeMessage(message, fallback: "could not load", free: CFaceDetect_Free))
        }
        self.handle = handle
    }

    deinit { CFaceDetect_YuNetClose(handle) }

    func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        guard rgb.width > 0, rgb.height > 0 else { return [] }
        var faces: UnsafeMutablePointer<CFaceDetect_YuNetFace>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.pixels.withUnsafeBufferPointer {
            CFaceDetect_YuNetDetect(
                handle, $0.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, minScore, 0.3, &faces,
                &count, &message)
        }
        let found = try takeCArray(status, faces, count: count, message: message, source: source, failure: "YuNet failed")
        return found.compactMap { face in
            guard let box = PixelRect(clipping: face, width: rgb.width, height: rgb.height) else { return nil }
            let l = face.landmarks
            // Landmarks 0 and 1 are the person's right and left eye: in the
            // image, left first.
            let (a, b) = (Double(l.0), Double(l.2)) < (Double(l.2), Double(l.0)) ? ((l.0, l.1), (l.2, l.3)) : ((l.2, l.3), (l.0, l.1))
            return Subject(
                box: box,
                score: (Double(face.score) * 10_000).rounded() / 10_000,
                eyes: EyePair(x1: Double(a.0), y1: Double(a.1), x2: Double(b.0), y2: Double(b.1)),
                five: FaceLandmarks(yunet: face))
        }
    }
}

/// A CenterFace face detection network pool: one cv::dnn network per canvas
/// size in use (at most `maxNets(workers:)` in all), because OpenCV 4.6 gives
/// wrong results when one network is run at a second input size
/// (CFaceDetect_CenterFaceNew).
///
/// Thread-safe: the shim locks its pool and lends each network to one pass
/// at a time, so every worker's `Detector` shares one (which is what makes
/// the `@unchecked Sendable` sound).
final class CenterFace: @unchecked Sendable {
    /// Networks alive at once for `workers` workers: one each at the
    /// detection size, and one more for the 320 px large-face pass. OpenCV
    /// 4.6 keeps ~170 MB of layer buffers per 1024 x 768 network; a pool per
    /// worker of 4 networks was 950 MiB at --jobs 2 (docs/centerface.md).
    static func maxNets(workers: Int) -> Int { max(1, workers) + 1 }

    private let handle: OpaquePointer

    init(path: String, maxNets: Int) throws(FaceCropError) {
        var handle: OpaquePointer?
        var message: UnsafeMutablePointer<CChar>?
        guard CFaceDetect_CenterFaceNew(path, Int32(maxNets), &handle, &message) == 0, let handle else {
            throw .modelUnavailable(path, reason: takeMessage(message, fallback: "could not load", free: CFaceDetect_Free))
        }
        self.handle = handle
    }

    deinit { CFaceDetect_CenterFaceClose(handle) }

    /// Networks (canvas sizes) held now.
    var netCount: Int { Int(CFaceDetect_CenterFaceNetCount(handle)) }

    /// The canvas a `width` x `height` image is padded onto.
    static func canvas(width: Int, height: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        CFaceDetect_CenterFaceCanvas(Int32(width), Int32(height), &w, &h)
        return (Int(w), Int(h))
    }

    func detect(_ rgb: RGBImage, minScore: Float, source: String) throws(FaceCropError) -> [Subject] {
        guard rgb.width > 0, rgb.height > 0 else { return [] }
        var faces: UnsafeMutablePointer<CFaceDetect_YuNetFace>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.pixels.withUnsafeBufferPointer {
            CFaceDetect_CenterFaceDetect(
                handle, $0.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.width * 3, max(minScore, 0.01), 0.3,
                &faces, &count, &message)
        }
        let found = try takeCArray(status, faces, count: count, message: message, source: source, failure: "CenterFace failed")
        return found.compactMap { face in
            guard let box = PixelRect(clipping: face, width: rgb.width, height: rgb.height) else { return nil }
            let five = FaceLandmarks(centerFace: face)
            let (a, b) = (five.points[0], five.points[1])
            let (left, right) = a.x <= b.x ? (a, b) : (b, a)
            return Subject(
                box: box,
                score: (Double(face.score) * 10_000).rounded() / 10_000,
                eyes: EyePair(x1: left.x, y1: left.y, x2: right.x, y2: right.y),
                five: five)
        }
    }
}

extension PixelRect {
    /// A network's face box (YuNet, CenterFace) rounded to whole pixels and
    /// clipped to the `width` x `height` image searched; nil when nothing of
    /// it is left.
    init?(clipping face: CFaceDetect_YuNetFace, width: Int, height: Int) {
        let x0 = max(0, Int(face.x.rounded())), y0 = max(0, Int(face.y.rounded()))
        let x1 = min(width, Int((face.x + face.width).rounded()))
        let y1 = min(height, Int((face.y + face.height).rounded()))
        guard x1 > x0, y1 > y0 else { return nil }
        self.init(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}
