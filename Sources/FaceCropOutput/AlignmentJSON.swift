import Foundation
import FaceCropCore

/// The manifest's `landmarks`, `landmarks_estimated` and `transform` fields,
/// written and read back (the state file keeps manifest lines).
package enum AlignmentJSON {
    /// `{"left_eye": [x, y], ...}` in upright photo pixels, to 0.01 px; null when none were found.
    package static func landmarks(_ landmarks: FaceLandmarks?) -> JSON {
        guard let landmarks else { return .null }
        return .object(
            zip(FaceLandmarks.Name.allCases, landmarks.points).map { name, point in
                (name.rawValue, .array([.double(round(point.x, 100)), .double(round(point.y, 100))]))
            })
    }

    /// The names of the estimated points, in landmark order; null without landmarks.
    package static func estimated(_ landmarks: FaceLandmarks?) -> JSON {
        guard let landmarks else { return .null }
        return .array(FaceLandmarks.Name.allCases.filter(landmarks.estimated.contains).map { .string($0.rawValue) })
    }

    /// `[[a, b, c], [d, e, f]]`, to six decimals; null when there is none.
    package static func transform(_ transform: Affine2D?) -> JSON {
        guard let transform else { return .null }
        return .array(transform.rows.map { .array($0.map { .double(round($0, 1_000_000)) }) })
    }

    /// The value as written, so that a record read back writes the same bytes.
    package static func rounded(_ transform: Affine2D) -> Affine2D {
        let r = transform.rows.joined().map { round($0, 1_000_000) }
        return Affine2D(r[0], r[1], r[2], r[3], r[4], r[5])
    }

    package static func rounded(_ landmarks: FaceLandmarks) -> FaceLandmarks {
        FaceLandmarks(landmarks.points.map { Point2D(round($0.x, 100), round($0.y, 100)) }, estimated: landmarks.estimated)
    }

    /// Read back from a manifest line's `landmarks` and `landmarks_estimated`.
    package static func landmarks(from object: [String: [Double]]?, estimated: [String]?) -> FaceLandmarks? {
        guard let object else { return nil }
        var points: [Point2D] = []
        for name in FaceLandmarks.Name.allCases {
            guard let pair = object[name.rawValue], pair.count == 2 else { return nil }
            points.append(Point2D(pair[0], pair[1]))
        }
        return FaceLandmarks(points, estimated: Set((estimated ?? []).compactMap(FaceLandmarks.Name.init(rawValue:))))
    }

    /// Read back from a manifest line's `transform`.
    package static func transform(from rows: [[Double]]?) -> Affine2D? {
        guard let rows, rows.count == 2, rows.allSatisfy({ $0.count == 3 }) else { return nil }
        let r = Array(rows.joined())
        return Affine2D(r[0], r[1], r[2], r[3], r[4], r[5])
    }

    private static func round(_ value: Double, _ steps: Double) -> Double {
        let r = (value * steps).rounded() / steps
        return r == 0 ? 0 : r  // no "-0"
    }
}
