import Testing
import FaceCropCore
import FaceCropPeople


/// How the grouping treats a video's tracks (`PeopleStep.group`): a track is
/// one face, and one frame, not one video, never shows a person twice.
/// Descriptors are made here: a unit vector along one axis, moved a little
/// per face, so that faces of one "person" lie about 0.1 apart and of two
/// about 1.4 apart.
struct TrackGroupingTests {
    struct Face {
        var sha256: String
        var axis: Int
        var track: Int? = nil
        var frame: Int? = nil
    }

    func group(_ faces: [Face]) throws -> [String?] {
        var embeddings: [Float] = []
        var list: [PeopleGrouping.Face] = []
        for (index, face) in faces.enumerated() {
            var vector = [Float](repeating: 0, count: Embedding.size)
            vector[face.axis] = 1
            vector[100 + index % 20] = 0.05
            embeddings += vector
            list.append(
                .init(
                    handle: FaceHandle(sha256: face.sha256, box: PixelRect(x: 0, y: 0, width: 200, height: 200)), row: index,
                    previous: nil, track: face.track.map { face.sha256 + " " + String($0) }, frame: face.frame))
        }
        let grouping = PeopleGrouping(faces: list, embeddings: embeddings, nextNumber: 1)
        return try PeopleStep.group(grouping, rule: PeopleRule()).faces.map(\.person)
    }

    @Test func aTrackAloneIsNoPersonAndAPhotoMakesOneWithIt() throws {
        let track = (0..<3).map { Face(sha256: "v", axis: 0, track: 0, frame: $0 * 10) }
        #expect(try group(track) == [nil, nil, nil])
        let people = try group(track + [Face(sha256: "p", axis: 0)])
        #expect(people[0] != nil && Set(people) == [people[0]])
    }

    @Test func twoTracksOfOneVideoLinkAfterACutButNotInTheSameFrames() throws {
        let apart = [Face(sha256: "v", axis: 0, track: 0, frame: 0), Face(sha256: "v", axis: 0, track: 1, frame: 50)]
        let linked = try group(apart)
        #expect(linked[0] != nil && linked[0] == linked[1])
        let together = [
            Face(sha256: "v", axis: 0, track: 0, frame: 0), Face(sha256: "v", axis: 0, track: 1, frame: 0),
            Face(sha256: "v", axis: 0, track: 0, frame: 10),
        ]
        #expect(try group(together) == [nil, nil, nil])
    }

    /// Every crop of a track takes the person most of its crops are in:
    /// here two of three crops are near Hopper's photos, one near Collins'.
    @Test func aTracksCropsShareOnePerson() throws {
        let photos = [Face(sha256: "a", axis: 0), Face(sha256: "b", axis: 0), Face(sha256: "c", axis: 1), Face(sha256: "d", axis: 1)]
        let track = [0, 0, 1].enumerated().map { Face(sha256: "v", axis: $0.element, track: 0, frame: $0.offset) }
        let people = try group(photos + track)
        #expect(people[0] != nil && people[2] != nil && people[0] != people[2])
        #expect(Array(people[4...]) == [people[0], people[0], people[0]])
    }

    /// The people file on one crop holds for its track (`alice: F` on the
    /// second crop, `ignore: F` on the first); a photo's face keeps its own.
    @Test func aStatementOnOneCropHoldsForItsTrack() {
        let tracks: [String?] = ["v 0", "v 0", nil, "v 1", "v 1"]
        let groups: [String?] = ["person-0001", "person-0001", "person-0001", "person-0002", "person-0002"]
        let persons: [String?] = [nil, "alice", "person-0001", nil, "person-0002"]
        let named = PeopleStep.namedByTrack(persons, groups: groups, tracks: tracks)
        #expect(named == [nil, nil, "person-0001", nil, nil])
        let one = PeopleStep.namedByTrack(["person-0001", "alice", "person-0001", "person-0002", "person-0002"], groups: groups, tracks: tracks)
        #expect(one == ["alice", "alice", "person-0001", "person-0002", "person-0002"])
    }
}
