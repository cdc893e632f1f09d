import Foundation

/// `facecrop-bench names N`: the people step (`Naming.apply`) on N faces
/// in groups of 30 with generated descriptors, and a people file that names
/// every group through one face, names one group in a hundred a second time
/// (so it is split by distance) and takes one face in a hundred out of its
/// person. The grouping itself is `facecrop-bench people`'s measure.
public enum NamesBench {
    public struct Figures: Sendable {
        public var faces: Int
        public var statements: Int
        public var people: Int
        public var unassigned: Int
        public var applySeconds: Double
    }

    public static func run(faces count: Int, seed: UInt64 = 1) -> Figures {
        var random = PeopleBench.SplitMix(seed)
        let size = 128
        var faces: [NamingFace] = []
        faces.reserveCapacity(count)
        var statements: [PeopleStatement] = []
        for i in 0..<count {
            let group = i / 30
            var embedding = [Float](repeating: 0, count: size)
            for d in 0..<size { embedding[d] = Float(random.next() % 1000) / 1000 }
            let photo = String(format: "%016llx", random.next()) + String(repeating: "0", count: 48)
            let handle = Rejection(sha256: photo, box: PixelRect(x: 10, y: 10, width: 100, height: 100))
            faces.append(NamingFace(handle, person: PeopleGrouping.id(group + 1), embedding: embedding))
            if i % 30 == 0 { statements.append(PeopleStatement(.nameGroup("name \(group)"), face: handle, line: statements.count + 1)) }
            if i % 30 == 15, group % 100 == 0 {
                statements.append(PeopleStatement(.nameGroup("second \(group)"), face: handle, line: statements.count + 1))
            }
            if i % 100 == 7 { statements.append(PeopleStatement(.notPerson("name \(group)"), face: handle, line: statements.count + 1)) }
        }
        let started = ContinuousClock.now
        let result = Naming.apply(statements, to: faces)
        let elapsed = ContinuousClock.now - started
        return Figures(
            faces: count, statements: statements.count, people: Set(result.persons.compactMap { $0 }).count,
            unassigned: result.persons.count { $0 == nil },
            applySeconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
}
