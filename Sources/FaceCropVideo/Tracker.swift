/// Links the faces of consecutive samples of a video into tracks: greedy
/// IoU within a shot, with a short miss allowance; every track ends at a
/// cut. Pure and deterministic: the same boxes, pictures and cuts in the
/// same order give the same track ids.
import FaceCropCore
import FaceCropImaging

package struct Tracker {
    /// A face continues a track when its box overlaps the track's last box
    /// by at least this IoU (at 1 sample a second a talking head moves
    /// well within it; two people side by side do not overlap).
    package static let minIoU = 0.3
    /// Samples a track may go unseen and still continue (a blink of the
    /// detector, a hand in front of the face).
    package static let missAllowance = 2
    /// Half the L1 distance of two samples' 32-bin gray histograms (0...1)
    /// above which the samples are taken to be in different shots: every
    /// track ends at a cut.
    package static let cutDistance = 0.5

    /// Samples that began a new shot (the first sample is not counted).
    package private(set) var cuts = 0
    private struct Track {
        var id: Int
        var box: PixelRect
        var lastSample: Int
    }

    private var tracks: [Track] = []
    private var nextID = 0
    private var sample = -1
    private var histogram: [Double]?

    /// The track id of each of one sample's faces (in their order); `gray`
    /// is the sample's detection-size picture, and `cut` whether a frame
    /// since the sample before, or this one, is a cut (`CutFinder`): either
    /// may say that a cut lies between the two samples.
    package mutating func assign(_ boxes: [PixelRect], gray: GrayImage, cut: Bool = false) -> [Int] {
        assign(boxes, histogram: Self.histogram(gray), cut: cut)
    }

    /// `assign(_:gray:cut:)` with the picture's `histogram` alone.
    package mutating func assign(_ boxes: [PixelRect], histogram current: [Double], cut: Bool) -> [Int] {
        sample += 1
        if let previous = histogram, Self.distance(previous, current) > Self.cutDistance || cut {
            tracks = []
            cuts += 1
        }
        histogram = current
        tracks.removeAll { sample - $0.lastSample > Self.missAllowance + 1 }
        // Every (track, face) pair that overlaps enough, best first; ties by
        // track id, then face order.
        var pairs: [(iou: Double, track: Int, face: Int)] = []
        for (t, track) in tracks.enumerated() {
            for (f, box) in boxes.enumerated() {
                let iou = track.box.iou(box)
                if iou >= Self.minIoU { pairs.append((iou, t, f)) }
            }
        }
        pairs.sort { a, b in
            if a.iou != b.iou { return a.iou > b.iou }
            if tracks[a.track].id != tracks[b.track].id { return tracks[a.track].id < tracks[b.track].id }
            return a.face < b.face
        }
        var ids = [Int?](repeating: nil, count: boxes.count)
        var taken = Set<Int>()
        for pair in pairs where ids[pair.face] == nil && !taken.contains(pair.track) {
            ids[pair.face] = tracks[pair.track].id
            taken.insert(pair.track)
            tracks[pair.track].box = boxes[pair.face]
            tracks[pair.track].lastSample = sample
        }
        return ids.enumerated().map { face, id in
            if let id { return id }
            let new = nextID
            nextID += 1
            tracks.append(Track(id: new, box: boxes[face], lastSample: sample))
            return new
        }
    }

    package static func histogram(_ gray: GrayImage) -> [Double] {
        var bins = [Double](repeating: 0, count: 32)
        for value in gray.pixels { bins[Int(value) >> 3] += 1 }
        let total = Double(max(1, gray.pixels.count))
        return bins.map { $0 / total }
    }

    package static func distance(_ a: [Double], _ b: [Double]) -> Double {
        zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) } / 2
    }

    package init() {}
}

/// `--per-track`: how good a crop of a track is.
package enum TrackQuality {
    /// How frontal the five landmarks are, 0...1: the nose as far from
    /// either eye across, and from either mouth corner (1: in the middle of
    /// both). 1 without landmarks.
    package static func frontality(_ landmarks: FaceLandmarks?) -> Double {
        guard let points = landmarks else { return 1 }
        let nose = points[.nose].x
        func balance(_ a: Double, _ b: Double) -> Double {
            let left = abs(nose - a)
            let right = abs(b - nose)
            guard max(left, right) > 0 else { return 1 }
            // A nose outside the two points is turned past profile.
            if (nose - a) * (b - nose) < 0 { return 0 }
            return min(left, right) / max(left, right)
        }
        let value = (balance(points[.leftEye].x, points[.rightEye].x) + balance(points[.mouthLeft].x, points[.mouthRight].x)) / 2
        return (value * 1000).rounded() / 1000
    }
}
