import CFaceDetect
import FaceCropCore
import FaceCropImaging

/// The shim's cascade ensemble call (CFaceDetect_Ensemble): candidates of
/// the `frontal` cascade, each with the evidence found inside it by the
/// `confirm` cascade (if any) and the eye cascades. The ensemble finder runs
/// it on the whole image; the single cascade (eyes for --align) and the
/// cat-face vote (human faces) around one box.
///
/// Not thread-safe: uses its cascades; owned by one finder.
package struct EnsembleSearch {
    package let frontal: Cascade
    package let confirm: Cascade?
    package let eye: Cascade
    package let eyeglasses: Cascade

    /// The eye cascades are loaded from `folder`.
    package init(frontal: Cascade, confirm: Cascade?, folder: CascadeFolder) throws(FaceCropError) {
        self.frontal = frontal
        self.confirm = confirm
        eye = try folder.load("haarcascade_eye.xml")
        eyeglasses = try folder.load("haarcascade_eye_tree_eyeglasses.xml")
    }

    package func run(_ gray: GrayImage, minSide: Int, maxSide: Int, frontalNeighbors: Int, source: String)
        throws(FaceCropError) -> [CFaceDetect_Candidate]
    {
        var params = CFaceDetect_EnsembleParams(
            scale_factor: 1.1, min_side: Int32(clamping: max(minSide, frontal.windowSide)),
            max_side: Int32(clamping: maxSide), upscale: 1, frontal_min_neighbors: Int32(frontalNeighbors),
            profile_min_neighbors: 4, rotation: 0)
        var out: UnsafeMutablePointer<CFaceDetect_Candidate>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let status = gray.pixels.withUnsafeBufferPointer { pixels in
            CFaceDetect_Ensemble(
                frontal.handle, nil, confirm?.handle, eye.handle, eyeglasses.handle, pixels.baseAddress,
                Int32(gray.width), Int32(gray.height), gray.width, &params, &out, &count, &message)
        }
        return try takeCArray(status, out, count: count, message: message, source: source)
    }

    /// Eyes inside one box, through the ensemble call searching only there.
    package func eyes(in gray: GrayImage, box: PixelRect, source: String) throws(FaceCropError) -> EyePair? {
        // Cut the box (with a margin) and let the ensemble search just there.
        guard let cut = GrayCut(gray, around: box) else { return nil }
        let (x0, y0) = (cut.x, cut.y)
        let candidates = try run(
            cut.image, minSide: box.width * 8 / 10, maxSide: box.width * 12 / 10, frontalNeighbors: 1, source: source)
        guard let best = candidates.first(where: { $0.eyes == 2 }) else { return nil }
        return EyePair(
            x1: best.eye1_x + Double(x0), y1: best.eye1_y + Double(y0), x2: best.eye2_x + Double(x0),
            y2: best.eye2_y + Double(y0))
    }
}

/// `--detector cascade` (the default): one cheap full-image pass of alt2
/// (two raw windows are enough for a candidate), then evidence gathered
/// inside each candidate only (the default frontal cascade, eyes), scored by
/// `Calibration.ensembleScore`. Neither enlarging small photos (1.5x) nor the
/// profile cascade's full scans paid for their time on the dev set.
///
/// Not thread-safe: owns cascades; used by one `Detector`.
package final class CascadeEnsemble: FaceFinder {
    /// alt2 (or --cascade), the default frontal cascade confirming.
    private let search: EnsembleSearch
    private let minScore: Double

    package init(_ config: DetectorConfig) throws(FaceCropError) {
        let folder = CascadeFolder(path: config.cascadeFolder)
        search = try EnsembleSearch(
            frontal: Cascade(path: config.cascadePath), confirm: folder.load("haarcascade_frontalface_default.xml"),
            folder: folder)
        minScore = config.minScore
    }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        let frontalNeighbors = Calibration.ensembleMinFrontalHits(minScore)
        let candidates = try search.run(gray, minSide: minSide, maxSide: 0, frontalNeighbors: frontalNeighbors, source: source)
        let found = candidates.map { c in
            Subject(
                box: PixelRect(x: Int(c.x), y: Int(c.y), width: Int(c.width), height: Int(c.height)),
                score: Calibration.ensembleScore(c),
                eyes: c.eyes == 2 ? EyePair(x1: c.eye1_x, y1: c.eye1_y, x2: c.eye2_x, y2: c.eye2_y) : nil)
        }
        .filter { $0.score >= minScore }
        // Onto one convention (brow to chin, ear to ear).
        return Calibration.boxCorrection(.cascade).apply(found, width: gray.width, height: gray.height)
    }
}
