import CFaceDetect
import FaceCropCore
import FaceCropImaging

/// `--target catface`: Debian's extended and plain Haar cat face cascades
/// and the LBP one, each on the photo and its mirror image (six passes),
/// searched at 400 px on the long side, where fur is smooth enough for the
/// cascades. A box needs three passes; its score is the share of passes that
/// found it. Boxes the cascade ensemble takes for a human face are dropped.
///
/// Not thread-safe: owns cascades; used by one `Detector`.
package final class CatFaceVote: FaceFinder {
    private let vote: CascadeVote
    /// alt2, the default frontal cascade confirming: the ensemble that
    /// rejects cat-face boxes that are human faces.
    private let humanFaces: EnsembleSearch

    package init(_ config: DetectorConfig) throws(FaceCropError) {
        let folder = CascadeFolder(path: config.cascadeFolder)
        let extended = try Cascade(path: config.cascadePath)
        let confirm = try folder.load("haarcascade_frontalface_default.xml")
        let alt2 = try folder.load(DetectorConfig.cascadeName(for: .face))
        humanFaces = try EnsembleSearch(frontal: alt2, confirm: confirm, folder: folder)
        let plain = try folder.load("haarcascade_frontalcatface.xml")
        let lbp = try folder.loadLBP("lbpcascade_frontalcatface.xml")
        vote = CascadeVote(cascades: [extended, plain, lbp], minNeighbors: config.minNeighbors, minVotes: 3, workSide: 400)
    }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        var found: [Subject] = []
        for box in try vote.detect(in: gray, minSide: minSide, source: source) {
            if try isHumanFace(box.box, in: gray, source: source) { continue }
            found.append(Subject(box: box.box, score: (Double(box.votes) / Double(vote.passes) * 10_000).rounded() / 10_000, eyes: nil))
        }
        return found
    }

    /// Whether the cascade ensemble, searching only around `box`, finds a
    /// human face there that it would keep (`CascadeEnsemble.ensembleScore` at
    /// the default --min-score) and that overlaps the box by IoU 0.3 or more.
    package func isHumanFace(_ box: PixelRect, in gray: GrayImage, source: String) throws(FaceCropError) -> Bool {
        guard let cut = GrayCut(gray, around: box) else { return false }
        let candidates = try humanFaces.run(
            cut.image, minSide: box.width / 2, maxSide: box.width * 3 / 2, frontalNeighbors: 2, source: source)
        return candidates.contains { c in
            let face = PixelRect(x: Int(c.x) + cut.x, y: Int(c.y) + cut.y, width: Int(c.width), height: Int(c.height))
            return CascadeEnsemble.ensembleScore(c) >= CascadeEnsemble.defaultMinScore && face.iou(box) >= 0.3
        }
    }
}

/// Several cascades, each run on a photo and on its mirror image: a box
/// counts by how many of those passes found it.
///
/// Not thread-safe: uses its cascades; owned by one `CatFaceVote`, whose
/// `Detector` is lent to one task at a time.
package struct CascadeVote {
    package var cascades: [Cascade]
    package var scaleFactor = 1.05
    package var minNeighbors = 4
    /// Passes (cascade and orientation) that must find a box to keep it.
    package var minVotes = 3
    /// The image is searched shrunk to this long side at most (0: as it is).
    package var workSide = 0

    /// Boxes in `image`'s pixels, most votes first, with their votes.
    package func detect(in image: GrayImage, minSide: Int, source: String) throws(FaceCropError) -> [(box: PixelRect, votes: Int)] {
        var params = CFaceDetect_VoteParams(
            scale_factor: scaleFactor, min_neighbors: Int32(minNeighbors), min_side: Int32(clamping: minSide),
            max_side: 0, mirror: 1, min_votes: Int32(minVotes), work_side: Int32(clamping: workSide))
        var boxes: UnsafeMutablePointer<CFaceDetect_VoteBox>?
        var count = 0
        var message: UnsafeMutablePointer<CChar>?
        let handles: [OpaquePointer?] = cascades.map(\.handle)
        let status = handles.withUnsafeBufferPointer { list in
            image.pixels.withUnsafeBufferPointer { pixels in
                CFaceDetect_Vote(
                    list.baseAddress, list.count, pixels.baseAddress, Int32(image.width), Int32(image.height), image.width,
                    &params, &boxes, &count, &message)
            }
        }
        return try takeCArray(status, boxes, count: count, message: message, source: source).map {
            (PixelRect(x: Int($0.x), y: Int($0.y), width: Int($0.width), height: Int($0.height)), Int($0.votes))
        }
    }

    /// Passes each image gets: one per cascade and orientation.
    package var passes: Int { cascades.count * 2 }
}
