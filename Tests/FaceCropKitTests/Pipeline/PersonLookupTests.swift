import Foundation
import Testing

extension NamesTests {
    /// After naming, a person answers to the id the grouping gave them and
    /// to their name in any case, in `pick --person` and `--keep-person`;
    /// a name that is no one's is offered the nearest name.
    @Test func aNamedPersonAnswersToTheirIdAndToTheirNameInAnyCase() throws {
        let (work, photos, _) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        let id = try #require(try people(output)["grace_hopper.jpg#0"]?.person)
        _ = try run(["people", output.path, "--name", "Grace Hopper", "grace_hopper.jpg.face0.jpg", "-q"])
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        #expect(try Self.hopper.map { try people(output)[$0]?.person } == ["Grace Hopper", "Grace Hopper"])

        for (index, who) in [id, "grace hopper", "GRACE HOPPER", "Grace Hopper"].enumerated() {
            let picked = work.appendingPathComponent("picked-\(index)")
            let result = try run(["pick", output.path, picked.path, "--person", who, "--count", "1"])
            #expect(result.stderr.hasPrefix("facecrop: picked 1 crop of 'Grace Hopper' ("), "\(who): \(result.stderr)")
        }
        let typo = try run(["pick", output.path, work.appendingPathComponent("typo").path, "--person", "grace hoper"], status: 64)
        #expect(typo.stderr.hasPrefix("""
            Error: no person 'grace hoper' in '\(output.path)'; did you mean 'Grace Hopper'? 'facecrop people \(output.path)' lists its people

            """))

        let file = output.appendingPathComponent("people.txt").path
        let kept = work.appendingPathComponent("kept")
        let keep = try run([photos.path, "-o", kept.path, "--people", "--people-file", file, "--keep-person", id, "--keep-person", "grace hoper"])
        #expect(keep.stderr.contains("facecrop: --keep-person 'grace hoper' is no one in this dataset; did you mean 'Grace Hopper'? 'facecrop people' lists its people\n"))
        let crops = try readManifest(kept).filter { $0["crop"] != nil }
        #expect(crops.count == 2 && crops.allSatisfy { $0["person"] as? String == "Grace Hopper" })
    }
}
