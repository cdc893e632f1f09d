import Foundation
import Testing
import FaceCropCore

/// `FaceMeshMeasures.openness` on eye contours in the iris network's order
/// (0-8 the lower lid from corner to corner, 9-15 the upper lid): what a
/// smile and a blink each do to the lids.
struct EyeOpennessTests {
    /// An eye 40 px wide whose upper lid's middle lies `upper` px above the
    /// corners' line and lower lid's `lower` px below it, with the corners
    /// in either order (the second eye's contour runs the other way) and the
    /// eye line turned by `degrees`.
    private func eye(upper: Double, lower: Double, reversed: Bool = false, degrees: Double = 0) -> [Point2D] {
        let (c, s) = (cos(degrees * .pi / 180), sin(degrees * .pi / 180))
        func at(_ x: Double, _ y: Double) -> Point2D {
            let x = reversed ? -x : x
            return Point2D(100 + c * x - s * y, 50 + s * x + c * y)
        }
        let lowerLid = (0...8).map { i -> Point2D in
            let t = Double(i) / 8
            return at(-20 + 40 * t, lower * sin(.pi * t))
        }
        let upperLid = (9...15).map { i -> Point2D in
            let t = Double(16 - i) / 8
            return at(-20 + 40 * t, -upper * sin(.pi * t))
        }
        return lowerLid + upperLid + Array(repeating: at(0, 0), count: 55)
    }

    @Test(arguments: [false, true])
    func aSmileRaisingTheLowerLidKeepsTheEyeOpen(reversed: Bool) throws {
        let open = try #require(FaceMeshMeasures.openness(eye(upper: 8, lower: 4, reversed: reversed)))
        let squint = try #require(FaceMeshMeasures.openness(eye(upper: 8, lower: 0.5, reversed: reversed)))
        #expect(abs(open - 0.2 * (sin(.pi * 3 / 8) + 1 + sin(.pi * 3 / 8)) / 3) < 0.002, "\(open)")
        #expect(squint == open)
        #expect(open > QualityScore.eyesOpen.fine)
    }

    @Test(arguments: [0.0, 25, -40])
    func aBlinkLowersTheUpperLidToTheCorners(degrees: Double) throws {
        let open = try #require(FaceMeshMeasures.openness(eye(upper: 8, lower: 4, degrees: degrees)))
        let blink = try #require(FaceMeshMeasures.openness(eye(upper: 1, lower: 4, degrees: degrees)))
        let shut = try #require(FaceMeshMeasures.openness(eye(upper: -2, lower: 4, degrees: degrees)))
        #expect(blink < QualityScore.eyesOpen.wrong && open > QualityScore.eyesOpen.fine, "\(blink) \(open)")
        #expect(shut == 0)
        #expect(FaceMeshMeasures.openness(Array(eye(upper: 8, lower: 4).prefix(15))) == nil)
    }

    /// The `eyes_closed` factor weighs the more closed eye more: a blink the
    /// iris network reads a little open in one eye (0.108 and 0.134, whose
    /// mean 0.121 was not named) is named, a smile narrowing both eyes
    /// alike (0.13) is not, nor are open eyes; a wink is. Either order.
    @Test func theMoreClosedEyeWeighsMore() {
        func named(_ eyes: [Double]) -> Bool {
            var quality = FaceQuality(
                pose: nil, facePx: 40, softness: 0.85, detailPx: 40, upscaled: false, mean: 0.5, dark: 0, bright: 0,
                blocks: 1, jpegQuality: nil, outside: 0, score: 0, reasons: [])
            quality.eyesOpen = eyes
            quality.rate()
            return quality.reasons.contains("eyes_closed")
        }
        for eyes in [[0.108, 0.134], [0, 0.2]] {
            #expect(named(eyes) && named(eyes.reversed()), "\(eyes)")
        }
        for eyes in [[0.13, 0.13], [0.18, 0.21], [0.12, 0.19]] {
            #expect(!named(eyes) && !named(eyes.reversed()), "\(eyes)")
        }
    }
}
