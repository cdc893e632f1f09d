/// A face found, mapped onto the full-resolution photo.
import FaceCropCore
import FaceCropImaging
import FaceCropDetect

package struct FoundFace {
    package var box: PixelRect
    package var score: Double
    package var sharpness: Double
    /// The eye line's angle in degrees, when both eyes were found (of a
    /// turned face: the face's roll, `QuarterTurn.roll`, turn included).
    package var angle: Double?
    /// The five landmarks in upright full-resolution pixels, when found.
    package var landmarks: FaceLandmarks?
    /// How the face lies in the photo (`QuarterTurn`): its crop, pose,
    /// quality and descriptor are taken in its upright frame.
    package var turned = QuarterTurn.upright
    /// Found on a canvas rolled back by its roll (`Subject.rolled`): a
    /// faceless photo's second search, kept only if the face mesh sees a face.
    package var fromRolledCanvas = false
    /// The face tag it matches (`TagStage`), and whether it was found only
    /// by its tag (the detector missed it).
    package var tag: FaceTag? = nil
    package var foundByTag = false
    /// The quality record's measures on the decode (placed and scored by
    /// `PlaceStage.rate`).
    package var quality: FaceQuality?
}

/// Stage 3: the faces (or whatever `--target` names) on the detection
/// decode, kept by `--min-face`, `--min-sharpness`, `--person-only` and
/// `--faces`, largest first.
package enum DetectStage {
    package enum Result {
        /// `--person-only` found no person; no faces are kept.
        case noPerson
        /// The faces kept (maybe none), the detection decode's scale and,
        /// when there are faces, the photo's perceptual hash (`--dedup`).
        case faces([FoundFace], scale: Double, photo: PerceptualHash?)
    }

    package static func detect(_ decoded: Decoded, with detector: Detector, settings: CropSettings, source: String)
        throws(FaceCropError) -> Result
    {
        try detect(
            small: decoded.small, full: decoded.full, with: detector, settings: settings, source: source,
            stored: decoded.header.orientation <= 1)
    }

    /// The same on any detection-size picture `small` of an upright image
    /// of `full` pixels (a photo's decode, a video frame); `stored`: the
    /// photo has no EXIF orientation, so it may be stored turned.
    package static func detect(
        small: Picture, full: (width: Int, height: Int), with detector: Detector, settings: CropSettings, source: String,
        stored: Bool = false
    ) throws(FaceCropError) -> Result {
        let gray = try small.grayPixels(source: source)
        let rgb = detector.needsColour ? try small.rgbPixels(source: source) : nil
        let scale = Double(gray.width) / Double(full.width)
        let minSide = Int((Double(settings.minFace) * scale).rounded(.down))
        var found = settings.turned
            ? try detector.findTurned(in: gray, rgb: rgb, minSide: minSide, stored: stored, source: source)
            : try detector.find(in: gray, rgb: rgb, minSide: minSide, source: source)
        if settings.personOnly {
            let people = try detector.findPeople(in: gray, source: source).map(\.box)
            found = found.filter {
                PersonRule.counts($0.box, target: settings.target, people: people, width: gray.width, height: gray.height)
            }
            // A person found only past the photo's edges places faces, but alone does not make a photo one of people.
            if found.isEmpty && !people.contains(where: { Detector.liesInside($0, width: gray.width, height: gray.height) }) {
                return .noPerson
            }
        }
        var faces = found.map { detection in
            let roll = detection.turned.isUpright
                ? detection.eyes.map(\.angle) ?? detection.rolled : detection.five.flatMap(QuarterTurn.roll)
            return FoundFace(
                box: CropGeometry.map(detection.box, from: (gray.width, gray.height), to: full), score: detection.score,
                sharpness: (Detector.sharpness(of: detection.box, in: gray) * 100).rounded() / 100,
                angle: roll.map { ($0 * 100).rounded() / 100 },
                landmarks: detection.landmarks.map { Alignment.landmarks($0, from: (gray.width, gray.height), to: full) },
                turned: detection.turned, fromRolledCanvas: detection.rolled != nil)
        }
        .filter { max($0.box.width, $0.box.height) >= settings.minFace && $0.sharpness >= settings.minSharpness }
        faces.sort { a, b in
            if a.box.area != b.box.area { return a.box.area > b.box.area }
            if a.box.y != b.box.y { return a.box.y < b.box.y }
            return a.box.x < b.box.x
        }
        if settings.faces == .largest { faces = Array(faces.prefix(1)) }
        if settings.align == .arcface && detector.needsColour {
            let toSmall = Alignment.photoToDecode(
                sx: Double(gray.width) / Double(full.width), sy: Double(gray.height) / Double(full.height))
            for index in faces.indices {
                guard let found = faces[index].landmarks, found.estimated.isEmpty, let back = toSmall.inverse else { continue }
                faces[index].landmarks = try detector.remeasured(found.mapped(toSmall), in: small, source: source)
                    .mapped(back)
            }
        }
        // The covered-face measure reads the face mesh's chip in colour too.
        var colour = rgb
        if colour == nil, detector.faceMesh != nil, !faces.isEmpty { colour = try small.rgbPixels(source: source) }
        for index in faces.indices {
            faces[index].quality = try measure(
                faces[index], in: gray, rgb: colour, full: full, with: detector, settings: settings, source: source)
        }
        settleRolled(&faces)
        return .faces(faces, scale: scale, photo: faces.isEmpty ? nil : PerceptualHash(photo: gray))
    }

    /// The faces found on a rolled canvas, measured. A faceless photo's
    /// rolled canvases are a second chance at a false face: a cat in the
    /// byte-identity corpus (chelsea.jpg's) scored 0.63 there, its face
    /// presence 0. One the mesh finds no face in is dropped.
    ///
    /// One without its eyes (no landmarks) is levelled by the roll its pose
    /// measured (the face mesh's, see `measure`), not by the canvas's 45
    /// degrees, which leaves a head at another roll off by the difference
    /// (people dev set rolled 35, 55 and -45 degrees: 24 such faces, mean
    /// error 6.7 degrees, at most 17.6; by the mesh 2.6, at most 5.4). A
    /// roll read farther from the canvas's than its frontal windows reach
    /// (`TurnedFaces.rolledReach`) is a misread: the canvas's is kept.
    static func settleRolled(_ faces: inout [FoundFace]) {
        faces.removeAll { $0.fromRolledCanvas && ($0.quality?.facePresence ?? 1) < QualityScore.facePresence.wrong }
        for index in faces.indices where faces[index].fromRolledCanvas && faces[index].landmarks == nil {
            guard let canvas = faces[index].angle, let roll = faces[index].quality?.pose?.roll,
                abs(roll - canvas) <= TurnedFaces.rolledReach
            else { continue }
            faces[index].angle = roll
        }
    }

    /// The quality record's measures of one face: its pose from the
    /// detector's five points where it found them all (its yaw and roll from
    /// the face mesh placed by them where it runs), else from dlib's
    /// predictor on the box (faces only), and its exposure on the decode
    /// (`rgb`: the decode in colour, for the covered-face measure; nil: none).
    package static func measure(
        _ face: FoundFace, in gray: GrayImage, rgb: RGBImage?, full: (width: Int, height: Int), with detector: Detector,
        settings: CropSettings, source: String
    ) throws(FaceCropError) -> FaceQuality {
        // A turned face is measured in its upright frame: its pose is a face's.
        let (turn, photo) = (face.turned.reversed, full)
        let small = (width: gray.width, height: gray.height)
        let gray = gray.turned(turn)
        let box = turn.turn(CropGeometry.map(face.box, from: photo, to: small), width: small.width, height: small.height)
        let toUpright = face.turned.toUpright(width: photo.width, height: photo.height)
        let full = turn.size(width: photo.width, height: photo.height)
        var points: [Point2D]?
        var fromDlib = false
        if settings.target == .face {
            if let found = face.landmarks, found.estimated.isEmpty {
                points = found.points.map(toUpright.apply)
            } else if let pose = detector.pose, box.width > 1, box.height > 1 {
                points = try pose.load().find(box, in: gray, full: full, source: source)
                fromDlib = true
            }
        }
        let fullBox = turn.turn(face.box, width: photo.width, height: photo.height)
        var quality = FaceQuality(box: box, in: gray, points: points, fromDlib: fromDlib, full: full, fullBox: fullBox)
        if let mesh = detector.faceMesh, let points {
            let (sx, sy) = (Double(gray.width) / Double(full.width), Double(gray.height) / Double(full.height))
            let inGray = points.map { Point2D(($0.x + 0.5) * sx - 0.5, ($0.y + 0.5) * sy - 0.5) }
            let rgb = rgb?.turned(turn)
            if let found = try mesh.measure(gray, rgb: rgb, points: inGray, fromDlib: fromDlib, source: source) {
                (quality.eyesOpen, quality.facePresence, quality.covered) = (found.eyesOpen, found.presence, found.covered)
                // A head found on a rolled canvas: the mesh, on a chip levelled by dlib's points,
                // reads its roll best (people dev set rolled 35, 55 and -45 degrees, 57 faces:
                // mean error 2.2 degrees, at most 5.8, against dlib's fit 3.4 and 10.0).
                if fromDlib, face.fromRolledCanvas, let mesh = found.angles, let fit = quality.pose {
                    quality.pose = FacePose(yaw: fit.yaw, pitch: fit.pitch, roll: mesh.roll)
                }
                // The yaw and roll that pass the mirror test better (MeshPose): the mesh's
                // where the detector gave the five points, dlib's fit on the box and its
                // mirror image where it found them; the pitch stays the fit's, and so does
                // the yaw of a face turned past the mesh's calibrated range.
                if !fromDlib, let mesh = found.angles, let fit = quality.pose {
                    let yaw = abs(fit.yaw) <= MeshPose.calibratedYaw ? mesh.yaw : fit.yaw
                    quality.pose = FacePose(yaw: yaw, pitch: fit.pitch, roll: mesh.roll)
                }
            }
        }
        return quality
    }

}
