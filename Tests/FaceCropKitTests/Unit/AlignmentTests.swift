import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropOutput
import FaceCropFinish


/// Alignment geometry: pure functions, checked against cases worked by hand
/// and against the properties that define them.
struct AlignmentTests {
    struct SimilarityCase: CustomTestStringConvertible, Sendable {
        var scale: Double
        var degrees: Double
        var tx: Double
        var ty: Double
        var points: Int
        var testDescription: String { "s=\(scale) \(degrees) deg t=(\(tx), \(ty)) n=\(points)" }

        var transform: Affine2D {
            let r = degrees * .pi / 180
            return Affine2D(scale * cos(r), -scale * sin(r), tx, scale * sin(r), scale * cos(r), ty)
        }
    }

    static let somePoints = [
        Point2D(120, 80), Point2D(180, 84), Point2D(150, 120), Point2D(128, 150), Point2D(172, 152),
    ]

    @Test(arguments: [
        SimilarityCase(scale: 1, degrees: 0, tx: 0, ty: 0, points: 5),
        SimilarityCase(scale: 0.5, degrees: 0, tx: -30, ty: 12, points: 5),
        SimilarityCase(scale: 2.25, degrees: 33, tx: 7, ty: -400, points: 5),
        SimilarityCase(scale: 0.1, degrees: -170, tx: 1000, ty: 3, points: 3),
        SimilarityCase(scale: 3, degrees: 90, tx: 0, ty: 0, points: 2),
        SimilarityCase(scale: 0.75, degrees: -45, tx: 55.5, ty: 0.25, points: 4),
    ])
    func aSimilarityIsRecoveredExactlyFromItsPoints(_ c: SimilarityCase) throws {
        let source = Array(Self.somePoints.prefix(c.points))
        let target = source.map(c.transform.apply)
        let fitted = try #require(Alignment.similarity(from: source, to: target))
        for (got, want) in zip(fitted.rows.joined(), c.transform.rows.joined()) {
            #expect(abs(got - want) < 1e-9, "\(fitted) vs \(c.transform)")
        }
    }

    /// Noisy targets: the fit is the least-squares optimum among similarities
    /// (any small change of scale, angle or shift makes it worse), and it
    /// never mirrors, even when the targets are a mirror image.
    @Test(arguments: [false, true])
    func theFitIsTheLeastSquaresSimilarityAndNeverAMirror(mirrored: Bool) throws {
        let noise = [(1.5, -2.0), (-0.5, 1.0), (2.0, 0.5), (-1.0, -1.5), (0.25, 2.0)]
        let target = zip(FaceTemplate.arcface112, noise).map { p, n in
            Point2D((mirrored ? 112 - p.x : p.x) + n.0, p.y + n.1)
        }
        let fitted = try #require(Alignment.similarity(from: Self.somePoints, to: target))
        #expect(fitted.determinant > 0)
        func error(_ t: Affine2D) -> Double {
            zip(Self.somePoints, target).reduce(0) { $0 + pow(t.apply($1.0).distance(to: $1.1), 2) }
        }
        let best = error(fitted)
        let h = 1e-4
        let nudges: [Affine2D] = [
            Affine2D(h, 0, 0, 0, h, 0), Affine2D(-h, 0, 0, 0, -h, 0),  // scale
            Affine2D(0, -h, 0, h, 0, 0), Affine2D(0, h, 0, -h, 0, 0),  // turn
            Affine2D(0, 0, 0.01, 0, 0, 0), Affine2D(0, 0, 0, 0, 0, -0.01),  // shift
        ]
        for n in nudges {
            let moved = Affine2D(
                fitted.a + n.a, fitted.b + n.b, fitted.c + n.c, fitted.d + n.d, fitted.e + n.e, fitted.f + n.f)
            #expect(error(moved) > best)
        }
    }

    @Test func tooFewOrCoincidentPointsGiveNoFit() {
        #expect(Alignment.similarity(from: [Point2D(1, 1)], to: [Point2D(2, 2)]) == nil)
        #expect(Alignment.similarity(from: [Point2D(1, 1), Point2D(1, 1)], to: [Point2D(2, 2), Point2D(3, 3)]) == nil)
    }

    @Test(arguments: [112, 224, 96])
    func arcfaceMapsTheTemplateOntoItselfScaledBySizeOver112(side: Int) throws {
        let template = FaceTemplate.arcface(side: side)
        #expect(abs(template[0].x - 38.2946 * Double(side) / 112) < 1e-9)
        let landmarks = FaceLandmarks(FaceTemplate.arcface112)
        let t = try #require(Alignment.arcface(landmarks, side: side))
        #expect(abs(t.scale - Double(side) / 112) < 1e-9 && abs(t.c) < 1e-9 && abs(t.b) < 1e-9)
    }

    /// Estimated points take no part in the fit: only the eyes decide it,
    /// and they land exactly on the template's eyes.
    @Test func arcfaceFitsOnTheFoundPointsOnly() throws {
        var landmarks = LandmarkEstimate.fromEyes(Point2D(300, 410), Point2D(380, 400))
        landmarks.points[2] = Point2D(0, 0)  // an estimate far off changes nothing
        let t = try #require(Alignment.arcface(landmarks, side: 112))
        #expect(t.apply(landmarks[.leftEye]).distance(to: FaceTemplate.arcface112[0]) < 1e-9)
        #expect(t.apply(landmarks[.rightEye]).distance(to: FaceTemplate.arcface112[1]) < 1e-9)
    }

    struct FFHQCase: CustomTestStringConvertible, Sendable {
        var eyes: (Point2D, Point2D)
        var mouth: (Point2D, Point2D)
        var side: Int
        /// Worked by hand from the recipe.
        var centre: Point2D
        var halfSide: Double
        var testDescription: String { "eyes \(eyes) mouth \(mouth) -> \(side)" }
    }

    @Test(arguments: [
        // eye_to_eye (40, 0), eye_to_mouth (0, 50): x = (40, 0) - (-50, 0) = (90, 0), already
        // max(2 * 40, 1.8 * 50) = 90 long; c = (120, 100) + 0.1 (0, 50).
        FFHQCase(eyes: (Point2D(100, 100), Point2D(140, 100)), mouth: (Point2D(105, 150), Point2D(135, 150)), side: 180,
                 centre: Point2D(120, 105), halfSide: 90),
        // Wide-set eyes: 2 |eye_to_eye| = 120 wins over 1.8 * 40 = 72.
        FFHQCase(eyes: (Point2D(0, 0), Point2D(60, 0)), mouth: (Point2D(10, 40), Point2D(50, 40)), side: 1024,
                 centre: Point2D(30, 4), halfSide: 120),
    ])
    func ffhqFollowsTheRecipe(_ c: FFHQCase) throws {
        let landmarks = FaceLandmarks([c.eyes.0, c.eyes.1, Point2D(0, 0), c.mouth.0, c.mouth.1])
        let square = try #require(Alignment.ffhqSquare(landmarks))
        #expect(square.centre.distance(to: c.centre) < 1e-9)
        #expect(abs(square.x.length - c.halfSide) < 1e-9 && abs(square.y.x) < 1e-9)
        let t = try #require(Alignment.ffhq(landmarks, side: c.side))
        // The square's corners are the crop's outer pixel edges.
        let s = Double(c.side)
        let topLeft = Point2D(c.centre.x - c.halfSide, c.centre.y - c.halfSide)
        #expect(t.apply(topLeft).distance(to: Point2D(-0.5, -0.5)) < 1e-9)
        let bottomRight = Point2D(c.centre.x + c.halfSide, c.centre.y + c.halfSide)
        #expect(t.apply(bottomRight).distance(to: Point2D(s - 0.5, s - 0.5)) < 1e-9)
    }

    /// A turned face: the crop's eye line is level and the eyes keep the
    /// recipe's proportions whatever the turn.
    @Test(arguments: [-30.0, 0, 12, 75])
    func ffhqLevelsTheEyes(degrees: Double) throws {
        let r = degrees * .pi / 180
        let turn = Affine2D(cos(r), -sin(r), 500, sin(r), cos(r), 300)
        let upright = [Point2D(-30, -20), Point2D(30, -20), Point2D(0, 10), Point2D(-20, 40), Point2D(20, 40)]
        let landmarks = FaceLandmarks(upright.map(turn.apply))
        let t = try #require(Alignment.ffhq(landmarks, side: 256))
        let crop = landmarks.mapped(t)
        #expect(abs(crop[.leftEye].y - crop[.rightEye].y) < 1e-9)
        // max(2 * 60, 1.8 * 60) = 120 px of photo is half the crop: eyes 60 px apart -> 64 px.
        #expect(abs(crop[.leftEye].distance(to: crop[.rightEye]) - 64) < 1e-9)
    }

    @Test func theInverseUndoesATransform() throws {
        let t = Affine2D(0.8, -0.3, 12, 0.3, 0.8, -40)
        let inverse = try #require(t.inverse)
        let p = Point2D(123.4, -56.7)
        #expect(inverse.apply(t.apply(p)).distance(to: p) < 1e-9)
        #expect(Affine2D(1, 2, 0, 2, 4, 0).inverse == nil)
    }

    /// A plain crop: the square's outer pixel edges become the crop's
    /// (enlarged: half a crop pixel further, as libvips does).
    @Test(arguments: [
        (PixelSquare(left: 100, top: 50, side: 200), 256),
        (PixelSquare(left: -22, top: -12, side: 144), 144),
        (PixelSquare(left: 0, top: 0, side: 1000), 96),
    ])
    func aPlainCropIsAScaleAndAShift(square: PixelSquare, side: Int) {
        let t = Alignment.squareCrop(square, side: side)
        let shift = side > square.side ? 0.5 : 0
        let near = -0.5 + shift, farEdge = Double(side) - 0.5 + shift
        #expect(t.apply(Point2D(Double(square.left) - 0.5, Double(square.top) - 0.5)).distance(to: Point2D(near, near)) < 1e-9)
        let far = Point2D(Double(square.left + square.side) - 0.5, Double(square.top + square.side) - 0.5)
        #expect(t.apply(far).distance(to: Point2D(farEdge, farEdge)) < 1e-9)
        #expect(t.b == 0 && t.d == 0)
    }

    @Test(arguments: [-20.0, -3.5, 0, 8, 44])
    func levelTurnsTheEyeLineLevelAboutTheSquaresCentre(degrees: Double) {
        let square = PixelSquare(left: 200, top: 100, side: 300)
        let centre = Point2D(349.5, 249.5)
        let r = degrees * .pi / 180
        // Eyes on a line turned `degrees` clockwise on screen, as EyePair.angle measures.
        let left = Point2D(centre.x - 50 * cos(r), centre.y - 30 - 50 * sin(r))
        let right = Point2D(centre.x + 50 * cos(r), centre.y - 30 + 50 * sin(r))
        let t = Alignment.levelCrop(square, angle: degrees, side: 150)
        #expect(abs(t.apply(left).y - t.apply(right).y) < 1e-9)
        #expect(t.apply(centre).distance(to: Point2D(74.5, 74.5)) < 1e-9)
        #expect(abs(t.angle - degrees) < 1e-9)
    }

    /// The estimate is a shape fixed to the eyes: it turns and scales with
    /// them, lies below them, and from the template's eyes lands within 8 px
    /// of the template's nose and mouth at 112 px.
    @Test(arguments: [0.0, 20, -35])
    func theEstimateFollowsTheEyes(degrees: Double) {
        let t = FaceTemplate.arcface112
        let estimate = LandmarkEstimate.fromEyes(t[0], t[1])
        #expect(estimate.estimated == [.nose, .mouthLeft, .mouthRight])
        #expect(estimate[.leftEye] == t[0] && estimate[.rightEye] == t[1])
        for index in 2..<5 {
            #expect(estimate.points[index].distance(to: t[index]) < 8, "\(FaceLandmarks.Name.allCases[index])")
        }
        let r = degrees * .pi / 180
        let move = Affine2D(1.5 * cos(r), -1.5 * sin(r), 40, 1.5 * sin(r), 1.5 * cos(r), -7)
        let moved = LandmarkEstimate.fromEyes(move.apply(t[0]), move.apply(t[1]))
        for (a, b) in zip(moved.points, estimate.mapped(move).points) { #expect(a.distance(to: b) < 1e-9) }
    }

    /// A decode at a quarter of the size: the photo's outer pixel edges are
    /// the decode's, and a region decode starts at its origin.
    @Test func photoPixelsMapOntoADecodeCentreToCentre() {
        let t = Alignment.photoToDecode(sx: 0.25, sy: 0.25, origin: (10, 20))
        #expect(t.apply(Point2D(-0.5, -0.5)).distance(to: Point2D(-10.5, -20.5)) < 1e-12)
        #expect(t.apply(Point2D(4031.5, 3023.5)).distance(to: Point2D(1007.5 - 10, 755.5 - 20)) < 1e-12)
        let back = Alignment.landmarks(FaceLandmarks(FaceTemplate.arcface112), from: (1008, 756), to: (4032, 3024))
        #expect(back[.leftEye].distance(to: Point2D(38.2946 * 4 + 1.5, 51.6963 * 4 + 1.5)) < 1e-9)
    }

    struct PlacementCase: CustomTestStringConvertible, Sendable {
        var mode: AlignMode
        var shift: Point2D
        var degrees: Double
        var padded: Bool
        var testDescription: String { "\(mode) at \(shift), \(degrees) deg" }
    }

    /// A template crop's bounds hold its four corners, and it is padded
    /// exactly when a corner lies past the photo's edge.
    @Test(arguments: [
        PlacementCase(mode: .arcface, shift: Point2D(400, 300), degrees: 0, padded: false),
        PlacementCase(mode: .arcface, shift: Point2D(400, 300), degrees: 25, padded: false),
        PlacementCase(mode: .ffhq, shift: Point2D(400, 300), degrees: -15, padded: false),
        PlacementCase(mode: .ffhq, shift: Point2D(20, 300), degrees: 0, padded: true),
        PlacementCase(mode: .arcface, shift: Point2D(400, 590), degrees: 10, padded: true),
    ])
    func aTemplateCropsBoundsHoldIt(_ c: PlacementCase) throws {
        let r = c.degrees * .pi / 180
        let turn = Affine2D(cos(r), -sin(r), c.shift.x, sin(r), cos(r), c.shift.y)
        let face = [Point2D(-30, -20), Point2D(30, -20), Point2D(0, 10), Point2D(-20, 40), Point2D(20, 40)]
        let placement = try #require(
            Alignment.templatePlacement(c.mode, landmarks: FaceLandmarks(face.map(turn.apply)), side: 128, width: 800, height: 600))
        #expect(placement.padded == c.padded)
        let inverse = try #require(placement.transform.inverse)
        for corner in [Point2D(-0.5, -0.5), Point2D(127.5, -0.5), Point2D(-0.5, 127.5), Point2D(127.5, 127.5)] {
            let p = inverse.apply(corner)
            let b = placement.bounds
            #expect(p.x + 0.5 >= Double(b.left) - 1e-9 && p.x + 0.5 <= Double(b.left + b.side) + 1e-9)
            #expect(p.y + 0.5 >= Double(b.top) - 1e-9 && p.y + 0.5 <= Double(b.top + b.side) + 1e-9)
        }
    }

    /// A face upside down or on its side is a wrong landmark, not a face to turn.
    @Test func aTemplateRefusesAnImplausibleTurn() {
        let face = [Point2D(430, 320), Point2D(370, 320), Point2D(400, 290), Point2D(420, 260), Point2D(380, 260)]
        #expect(Alignment.templatePlacement(.arcface, landmarks: FaceLandmarks(face), side: 112, width: 800, height: 600) == nil)
    }

    /// The manifest's fields: written rounded, read back to the same values,
    /// written again to the same bytes.
    @Test func landmarksAndTransformRoundTripThroughJSON() throws {
        let landmarks = LandmarkEstimate.fromEyes(Point2D(301.23456, 410.5), Point2D(380.1, 399.999))
        let transform = Affine2D(0.123456789, -0.0000001, -1234.5678901, 2, 1e-7, 56.25)
        let line = JSON.object([
            ("landmarks", AlignmentJSON.landmarks(landmarks)), ("landmarks_estimated", AlignmentJSON.estimated(landmarks)),
            ("transform", AlignmentJSON.transform(transform)),
        ]).serialized()
        #expect(line.contains(#""left_eye": [301.23,410.5]"#), "\(line)")
        #expect(line.contains(#""landmarks_estimated": ["nose","mouth_left","mouth_right"]"#), "\(line)")
        #expect(line.contains(#""transform": [[0.123457,0,-1234.56789],[2,0,56.25]]"#), "\(line)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let readLandmarks = try #require(
            AlignmentJSON.landmarks(from: object["landmarks"] as? [String: [Double]], estimated: object["landmarks_estimated"] as? [String]))
        let readTransform = try #require(AlignmentJSON.transform(from: object["transform"] as? [[Double]]))
        #expect(readLandmarks == AlignmentJSON.rounded(landmarks))
        #expect(readTransform == AlignmentJSON.rounded(transform))
        let again = JSON.object([
            ("landmarks", AlignmentJSON.landmarks(readLandmarks)), ("landmarks_estimated", AlignmentJSON.estimated(readLandmarks)),
            ("transform", AlignmentJSON.transform(readTransform)),
        ]).serialized()
        #expect(again == line)
        #expect(AlignmentJSON.landmarks(nil) == .null && AlignmentJSON.transform(nil) == .null)
    }

    /// Without landmarks a template crop is the plain square; with them,
    /// the template's; `level` turns only a plausible eye line.
    @Test func eachModePlacesTheCropItsWay() throws {
        let box = PixelRect(x: 340, y: 240, width: 120, height: 120)
        let face = [Point2D(370, 280), Point2D(430, 280), Point2D(400, 310), Point2D(380, 340), Point2D(420, 340)]
        let landmarks = FaceLandmarks(face)
        func place(_ mode: AlignMode, _ l: FaceLandmarks?, eyes: Double? = 0) -> AlignedFace {
            Alignment.place(box: box, landmarks: l, eyeAngle: eyes, mode: mode, size: 112, margin: 0.4, width: 800, height: 600)
        }
        let plain = place(.none, landmarks)
        #expect(plain.square == PixelSquare(left: 292, top: 192, side: 216) && !plain.aligned && !plain.padded)
        #expect(place(.arcface, nil) == plain)
        let level = place(.level, landmarks, eyes: 12)
        #expect(level.angle == 12 && level.warp == Alignment.levelCrop(plain.square, angle: 12, side: 112))
        #expect(place(.level, landmarks, eyes: 50).aligned == false)
        let arcface = place(.arcface, landmarks)
        #expect(arcface.aligned && arcface.warp != nil && abs(arcface.recordedAngle) < 1)
        #expect(place(.ffhq, landmarks).warp == Alignment.ffhq(landmarks, side: 112))
    }

    /// A cut crop's transform: the decode's square back in photo pixels.
    @Test func aCutCropsTransformGoesThroughTheDecode() {
        // A half-size decode whose part starts at (100, 50); the square there is (20, 10, 100).
        let toDecode = Alignment.photoToDecode(sx: 0.5, sy: 0.5, origin: (100, 50))
        let t = Alignment.cutTransform(PixelSquare(left: 20, top: 10, side: 100), side: 200, toDecode: toDecode)
        // Photo edge (240, 120) is the decode's edge (120, 60) = the part's (20, 10): the crop's
        // corner (enlarged 2x: half a crop pixel on, as libvips enlarges).
        #expect(t.apply(Point2D(239.5, 119.5)).distance(to: Point2D(0, 0)) < 1e-9)
        #expect(abs(t.a - 1) < 1e-12 && t.b == 0)
    }

    /// A clip's mask around a turned crop's face: for a plain crop's
    /// transform it is the box ClipMask has always drawn.
    @Test func theClipMaskFollowsTheTransform() {
        let bbox = PixelRect(x: 340, y: 240, width: 120, height: 100)
        let square = CropGeometry.cropSquare(around: bbox, margin: 0.4, imageWidth: 800, imageHeight: 600)
        let plain = ClipMask.faceBox(bbox: bbox, photoWidth: 800, photoHeight: 600, margin: 0.4, side: 64)
        let turned = ClipMask.faceBox(bbox: bbox, transform: Alignment.squareCrop(square, side: 128), cropSize: 128, side: 64)
        for (a, b) in [(plain.x, turned.x), (plain.y, turned.y), (plain.width, turned.width), (plain.height, turned.height)] {
            #expect(abs(a - b) < 1e-9, "\(plain) vs \(turned)")
        }
    }
}
