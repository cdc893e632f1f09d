import Foundation
import FaceCropCore
import FaceCropCurate
import FaceCropPeople

/// What `--people` groups after a run of N faces, without the photos: three
/// in five faces belong to people of about 30 faces each (unit vectors
/// spread about 0.35 around their person's), the rest are strangers; every
/// face counts as large enough to be a core.
package struct GeneratedPeople {
    package var grouping: PeopleGrouping
    /// Per face: its person's number, or -1 for a stranger.
    package var truth: [Int]

    package init(faces count: Int, seed: UInt64) {
        var random = SplitMix(seed)
        let size = Embedding.size
        let members = count * 3 / 5
        let people = max(1, members / 30)
        var centres = [Float](repeating: 0, count: people * size)
        for p in 0..<people { Self.unit(&centres, p, size) { random.normal() } }
        var embeddings = [Float](repeating: 0, count: count * size)
        var faces: [PeopleGrouping.Face] = []
        faces.reserveCapacity(count)
        truth = [Int](repeating: -1, count: count)
        for i in 0..<count {
            if i < members {
                let p = random.below(people)
                truth[i] = p
                for d in 0..<size { embeddings[i * size + d] = centres[p * size + d] + 0.022 * random.normal() }
                Self.normalise(&embeddings, i, size)
            } else {
                Self.unit(&embeddings, i, size) { random.normal() }
            }
            let photo = generatedPhotoHash(&random)
            faces.append(.init(handle: FaceHandle(sha256: photo, box: PixelRect(x: 0, y: 0, width: 100, height: 100)), row: i, previous: nil))
        }
        grouping = PeopleGrouping(faces: faces, embeddings: embeddings, nextNumber: 1)
    }

    private static func unit(_ array: inout [Float], _ row: Int, _ size: Int, _ draw: () -> Float) {
        for d in 0..<size { array[row * size + d] = draw() }
        normalise(&array, row, size)
    }

    private static func normalise(_ array: inout [Float], _ row: Int, _ size: Int) {
        var sum: Float = 0
        for d in 0..<size { sum += array[row * size + d] * array[row * size + d] }
        let k = 1 / sum.squareRoot()
        for d in 0..<size { array[row * size + d] *= k }
    }
}

/// The people file's step on N faces in groups of 30 with random
/// descriptors: a people file that names every group through one face,
/// names one group in a hundred a second time (so it is split by distance)
/// and takes one face in a hundred out of its person.
package struct GeneratedNames {
    package var faces: [NamingFace] = []
    package var statements: [PeopleStatement] = []

    package init(faces count: Int, seed: UInt64) {
        var random = SplitMix(seed)
        let size = Embedding.size
        faces.reserveCapacity(count)
        for i in 0..<count {
            let group = i / 30
            var embedding = [Float](repeating: 0, count: size)
            for d in 0..<size { embedding[d] = Float(random.next() % 1000) / 1000 }
            let handle = Rejection(sha256: generatedPhotoHash(&random), box: PixelRect(x: 10, y: 10, width: 100, height: 100))
            faces.append(NamingFace(handle, person: PeopleGrouping.id(group + 1), embedding: embedding))
            if i % 30 == 0 { add(.nameGroup("name \(group)"), handle) }
            if i % 30 == 15, group % 100 == 0 { add(.nameGroup("second \(group)"), handle) }
            if i % 100 == 7 { add(.notPerson("name \(group)"), handle) }
        }
    }

    private mutating func add(_ kind: PeopleStatement.Kind, _ handle: Rejection) {
        statements.append(PeopleStatement(kind, face: handle, line: statements.count + 1))
    }
}
