import Foundation
import FaceCropBench

/// The quality record's own CPU per face (`QualityCost`), on the real faces
/// of Fixtures/faces: the boxes Fixtures/expected.json gives for them (the
/// default detector's), so no detection runs around it.
enum QualityBench {
    static func run(rounds: Int) throws -> (records: Int, cpuSeconds: Double) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fixtures")
        let known = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("expected.json")))
        var faces: [(path: String, boxes: [[Int]])] = []
        for (name, value) in (known as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) where name.hasPrefix("faces/") {
            guard let boxes = (value as? [String: Any])?["boxes"] as? [[Int]], !boxes.isEmpty else { continue }
            faces.append((root.appendingPathComponent(name).path, boxes))
        }
        let cost = try QualityCost(faces)
        let made = try timed { () throws -> Int in try (0..<rounds).reduce(0) { sum, _ in try sum + cost.measure() } }
        return (made.result, made.cpu)
    }
}
