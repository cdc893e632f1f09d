/// Between detection and placement: the photo's face tags (`FaceTags`)
/// matched to the faces found, and the tagged faces the detector missed
/// added as faces of their own (unless `--no-tagged-faces`). A person said
/// such a face is there: it gets its crop whatever its size (`--min-face`
/// is the detector's floor, and a face under it is missed by the detector
/// too), and takes the other filters a detected face takes
/// (`--min-sharpness`, `--faces largest`, the quality floor).
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropCurate

package enum TagStage {
    /// A tag matches a face whose box overlaps its box by this much (as a
    /// rejection's box matches its face)...
    package static let minIoU = Rejection.minIoU
    /// ...or, since tags are drawn by hand and looser than any detector's
    /// box, a face whose box's centre lies inside the tag's box with at least
    /// this share of the smaller box inside the other. A tag 1.5 times the
    /// face's side around it overlaps it at IoU 0.44 and covers all of it; a
    /// neighbour's face in a group photo is never 80 % inside another's tag
    /// without the two faces overlapping (docs/libraries.md, Face tags).
    package static let minCover = 0.8

    /// The overlap a tag and a face match by (their IoU, which orders the
    /// pairs), or nil when they do not match.
    package static func overlap(_ tag: PixelRect, _ face: PixelRect) -> Double? {
        let iou = tag.iou(face)
        if iou >= minIoU { return iou }
        return iou > 0 && tag.holdsCentre(of: face) && tag.coverOfSmaller(face) >= minCover ? iou : nil
    }

    /// The tags matched one to one with `faces` (best overlap first; ties by
    /// the earlier tag, then face): each face's tag, by face index.
    package static func match(_ tags: [FaceTag], _ faces: [PixelRect]) -> [Int: Int] {
        var pairs: [(iou: Double, tag: Int, face: Int)] = []
        for (t, tag) in tags.enumerated() {
            for (f, face) in faces.enumerated() {
                if let overlap = overlap(tag.box, face) { pairs.append((overlap, t, f)) }
            }
        }
        pairs.sort { a, b in
            if a.iou != b.iou { return a.iou > b.iou }
            if a.tag != b.tag { return a.tag < b.tag }
            return a.face < b.face
        }
        var byFace: [Int: Int] = [:]
        var used: Set<Int> = []
        for pair in pairs where byFace[pair.face] == nil && !used.contains(pair.tag) {
            byFace[pair.face] = pair.tag
            used.insert(pair.tag)
        }
        return byFace
    }

    /// The faces with their tags, and the missed tags' faces added; how many
    /// tags the detector found (before any filter: the detector's recall).
    package static func merge(
        _ tags: [FaceTag], into faces: [FoundFace], decoded: Decoded, with detector: Detector, settings: CropSettings,
        source: String
    ) throws(FaceCropError) -> (faces: [FoundFace], found: Int) {
        guard !tags.isEmpty else { return (faces, 0) }
        var faces = faces
        let matched = match(tags, faces.map(\.box))
        for (face, tag) in matched { faces[face].tag = tags[tag] }
        let missed = Set(tags.indices).subtracting(matched.values).sorted()
        guard settings.taggedFaces, !missed.isEmpty else { return (faces, matched.count) }
        let gray = try decoded.small.grayPixels(source: source)
        let rgb = detector.faceMesh == nil ? nil : try decoded.small.rgbPixels(source: source)
        var added: [FoundFace] = []
        for index in missed {
            let tag = tags[index]
            let small = CropGeometry.map(tag.box, from: decoded.full, to: (gray.width, gray.height))
            let sharpness = small.width > 0 && small.height > 0 ? (Detector.sharpness(of: small, in: gray) * 100).rounded() / 100 : 0
            var face = FoundFace(box: tag.box, score: 0, sharpness: sharpness, angle: nil, landmarks: nil)
            face.tag = tag
            face.foundByTag = true
            // The same quality record as a detected face: pose from dlib's predictor on the box.
            face.quality = try DetectStage.measure(face, in: gray, rgb: rgb, full: decoded.full, with: detector, settings: settings, source: source)
            try placeEyes(&face, small: small, gray: gray, full: decoded.full, with: detector, source: source)
            added.append(face)
        }
        added = added.filter { $0.sharpness >= settings.minSharpness }
        var all = faces + added
        all.sort { a, b in
            if a.box.area != b.box.area { return a.box.area > b.box.area }
            if a.box.y != b.box.y { return a.box.y < b.box.y }
            return a.box.x < b.box.x
        }
        if settings.faces == .largest { all = Array(all.prefix(1)) }
        return (all, matched.count)
    }

    /// A tag's face has no landmarks of its own: dlib's predictor finds the
    /// eye corners on the box (as for the quality record's pose), and the
    /// eyes give `--align` its angle and the five points (nose and mouth
    /// estimated from the eyes, as for the cascade's faces). Without the
    /// predictor's model the crop stays upright.
    private static func placeEyes(
        _ face: inout FoundFace, small: PixelRect, gray: GrayImage, full: (width: Int, height: Int), with detector: Detector,
        source: String
    ) throws(FaceCropError) {
        guard detector.config.target == .face, let pose = detector.pose, small.width > 1, small.height > 1 else { return }
        let landmarker = try pose.load()
        let (sx, sy) = (Double(full.width) / Double(gray.width), Double(full.height) / Double(gray.height))
        let points = try landmarker.find(small, in: gray, source: source).map { Point2D(($0.x + 0.5) * sx - 0.5, ($0.y + 0.5) * sy - 0.5) }
        // dlib's five: two corners of one eye, two of the other, the nose.
        let eyes = [0.5 * (points[0] + points[1]), 0.5 * (points[2] + points[3])].sorted { $0.x < $1.x }
        face.landmarks = LandmarkEstimate.fromEyes(eyes[0], eyes[1])
        let pair = EyePair(x1: eyes[0].x, y1: eyes[0].y, x2: eyes[1].x, y2: eyes[1].y)
        face.angle = (pair.angle * 100).rounded() / 100
    }
}
