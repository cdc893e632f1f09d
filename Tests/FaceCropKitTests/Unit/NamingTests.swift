import Foundation
import Testing
import FaceCropCore
import FaceCropCurate
import FaceCropPeople
import FaceCropFinish


/// people.txt: its lines, and the naming step applied to a grouping. Pure logic.
struct PeopleFileTests {
    static let hashA = String(repeating: "ab", count: 32)
    static let hashB = String(repeating: "0f", count: 32)
    static let face = "\(hashA) 10,20,30,40"

    struct ParseCase: CustomTestStringConvertible, Sendable {
        var text: String
        var statements: [String]
        var error: String?
        var testDescription: String { text.debugDescription }
    }

    @Test(arguments: [
        ParseCase(text: "", statements: []),
        ParseCase(text: "# only a comment\n\n   \n", statements: []),
        ParseCase(text: "alice = \(face)\n", statements: ["alice = \(face)"]),
        ParseCase(text: "alice=\(face)  # trip/a.jpg face 0\r\n", statements: ["alice = \(face)"]),
        ParseCase(text: "Aunt May: \(face)\n", statements: ["Aunt May: \(face)"]),
        ParseCase(text: "not   alice :\t\(face)", statements: ["not alice: \(face)"]),
        ParseCase(text: "ignore = \(face)\nignore: \(hashB) 1,2,3,4", statements: ["ignore = \(face)", "ignore: \(hashB) 1,2,3,4"]),
        ParseCase(text: "José-Luis O'Neil = \(face)", statements: ["José-Luis O'Neil = \(face)"]),
        ParseCase(text: "person-0007 = \(face)", statements: ["person-0007 = \(face)"]),
        ParseCase(text: "nothing: \(face)", statements: ["nothing: \(face)"]),
        ParseCase(text: "# ok\nalice \(face)\n", statements: [],
                  error: "'p.txt' line 2: expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE' (FACE: '<sha256> <x>,<y>,<w>,<h>'), got 'alice \(face)'"),
        ParseCase(text: "alice = abc 1,2,3,4", statements: [], error: "'p.txt' line 1: 'abc' is not a SHA-256 (64 hex digits)"),
        ParseCase(text: "alice = \(hashA) 1,2,3", statements: [],
                  error: "'p.txt' line 1: '1,2,3' is not a face box x,y,w,h (whole pixels, w and h above 0)"),
        ParseCase(text: "alice = \(hashA)", statements: [],
                  error: "'p.txt' line 1: expected '<sha256> <x>,<y>,<w>,<h> [t=<seconds>]', got '\(hashA)'"),
        ParseCase(text: "alice =   # no face", statements: [],
                  error: "'p.txt' line 1: expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE' (FACE: '<sha256> <x>,<y>,<w>,<h>'): the face after '=' is missing"),
        ParseCase(text: " = \(face)", statements: [],
                  error: "'p.txt' line 1: expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE' (FACE: '<sha256> <x>,<y>,<w>,<h>'): the name before '=' is missing"),
        ParseCase(text: "not alice = \(face)", statements: [],
                  error: "'p.txt' line 1: 'not' takes ':' (not alice: FACE): a group cannot be taken out of a person, only a face"),
        ParseCase(text: "not ignore: \(face)", statements: [], error: "'p.txt' line 1: 'ignore' is a word of the people file, not a name"),
        ParseCase(text: "not: \(face)", statements: [], error: "'p.txt' line 1: 'not' is a word of the people file, not a name"),
        ParseCase(text: "al/ice = \(face)", statements: [],
                  error: "'p.txt' line 1: the name 'al/ice' holds '/': write it in double quotes, \"al/ice\""),
        ParseCase(text: "-alice = \(face)", statements: [],
                  error: "'p.txt' line 1: the name '-alice' must start with a letter or digit: write it in double quotes, \"-alice\""),
        ParseCase(text: "Aunt  May = \(face)", statements: [],
                  error: "'p.txt' line 1: the name 'Aunt  May' has stray spaces: write it in double quotes, \"Aunt  May\""),
        // Quoted names: anything but control characters and spaces at the ends.
        ParseCase(text: "\"Smith, John\" = \(face)  # a # comment \"\n", statements: ["\"Smith, John\" = \(face)"]),
        ParseCase(text: "not   \"Anna (Mom)\" :\(face)", statements: ["not \"Anna (Mom)\": \(face)"]),
        ParseCase(text: "\"ignore\" = \(face)\n\"alice\": \(face)", statements: ["\"ignore\" = \(face)", "alice: \(face)"]),
        ParseCase(text: "\"not alice\" = \(face)", statements: ["\"not alice\" = \(face)"]),
        ParseCase(text: "\"Anna = F\" \(face)", statements: [],
                  error: "'p.txt' line 1: expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE' (FACE: '<sha256> <x>,<y>,<w>,<h>'), got '\"Anna = F\" \(face)'"),
        ParseCase(text: "\"Anna # = \(face)", statements: [], error: "'p.txt' line 1: the quoted name has no closing '\"'"),
        ParseCase(text: "\"A\\nna\" = \(face)", statements: [], error: "'p.txt' line 1: in a quoted name a backslash comes before '\"' or '\\' only"),
        ParseCase(text: "\"\" = \(face)", statements: [], error: "'p.txt' line 1: a person's name is empty"),
        ParseCase(text: "\" Anna\" = \(face)", statements: [], error: "'p.txt' line 1: the name ' Anna' begins or ends with a space"),
        ParseCase(text: "\"A\tB\" = \(face)", statements: [], error: "'p.txt' line 1: the name 'A\u{FFFD}B' holds the control character U+0009"),
        ParseCase(text: "not \"Anna\" = \(face)", statements: [],
                  error: "'p.txt' line 1: 'not' takes ':' (not \"Anna\": FACE): a group cannot be taken out of a person, only a face"),
        ParseCase(text: "\(String(repeating: "a", count: 65)) = \(face)", statements: [],
                  error: "'p.txt' line 1: the name '\(String(repeating: "a", count: 65))' is longer than 64 characters"),
    ])
    func parse(_ c: ParseCase) {
        do {
            let file = try PeopleFile.parse(c.text, file: "p.txt")
            #expect(c.error == nil)
            #expect(file.statements.map(\.text) == c.statements)
        } catch {
            #expect(error.description == c.error)
        }
    }

    /// Any name is written (quoted only when it must be), read back the same,
    /// and its span rewritten in place.
    @Test(arguments: [
        ("alice", "alice"), ("José-Luis O'Neil", "José-Luis O'Neil"), ("李小龙", "李小龙"), ("Smith, John", "\"Smith, John\""),
        ("Anna (Mom)", "\"Anna (Mom)\""), ("Dr. Who: Jr", "\"Dr. Who: Jr\""), ("a = b # c", "\"a = b # c\""),
        ("say \"hi\" \\ bye", "\"say \\\"hi\\\" \\\\ bye\""), ("ignore", "\"ignore\""), ("not", "\"not\""),
        ("not alice", "\"not alice\""), ("../.hidden/x", "\"../.hidden/x\""), ("Aunt  May", "\"Aunt  May\""),
    ])
    func namesRoundTrip(_ name: String, _ written: String) throws {
        #expect(PeopleName.problem(name) == nil)
        #expect(PeopleName.written(name) == written)
        let kinds: [PeopleStatement.Kind] = [.nameGroup(name), .nameFace(name), .notPerson(name)]
        var file = PeopleFile()
        file.add(kinds.map { (PeopleStatement($0, face: Rejection(sha256: Self.hashA, box: .init(x: 1, y: 2, width: 3, height: 4))), note: "a#b \"c") })
        let back = try PeopleFile.parse(file.text, file: "p.txt")
        #expect(back.statements.map(\.kind) == kinds)
        #expect(back.lines.first == "\(written) = \(Self.hashA) 1,2,3,4  # a#b \"c")
        #expect(back.nameSpans.map(\.name) == [name, name, name])
        // Renamed on its line to a name that needs quotes, and back.
        var lines = back.lines
        for span in back.nameSpans { lines[span.index] = span.prefix + PeopleName.written("Smith, \(name)") + span.suffix }
        let renamed = try PeopleFile.parse(lines.joined(separator: "\n"), file: "p.txt")
        #expect(renamed.statements.map(\.kind) == [.nameGroup("Smith, \(name)"), .nameFace("Smith, \(name)"), .notPerson("Smith, \(name)")])
    }

    /// A file without quotes is read and written back byte for byte, and a
    /// plain name is appended as before.
    @Test func aFileWithoutQuotesKeepsItsBytes() throws {
        let text = "# family\nalice = \(Self.face)   # trip/a.jpg face 0\n\nnot  bob :\(Self.face)\r\nignore: \(Self.hashB) 1,2,3,4\n"
        var file = try PeopleFile.parse(text, file: "p.txt")
        #expect(file.text == text.replacingOccurrences(of: "\r\n", with: "\n"))
        file.add([(PeopleStatement(.nameFace("Aunt May"), face: Rejection(sha256: Self.hashB, box: .init(x: 5, y: 6, width: 7, height: 8))), note: "b.jpg face 1")])
        #expect(file.text == text.replacingOccurrences(of: "\r\n", with: "\n") + "Aunt May: \(Self.hashB) 5,6,7,8  # b.jpg face 1\n")
    }

    /// Names people.txt cannot hold, whatever gives them.
    @Test(arguments: [
        ("", "a person's name is empty"), ("a\nb", "the name 'a\u{FFFD}b' holds the control character U+000A"),
        ("a\u{2028}b", "the name 'a\u{FFFD}b' holds the control character U+2028"), ("Anna ", "the name 'Anna ' begins or ends with a space"),
        (String(repeating: "李", count: 65), "the name '\(String(repeating: "李", count: 65))' is longer than 64 characters"),
    ])
    func unusableNames(_ name: String, _ problem: String) {
        #expect(PeopleName.problem(name) == problem)
        #expect(PeopleName.typedProblem(name) == problem)
    }

    /// Adding keeps every line a person wrote, comments and order, and
    /// appends only statements not already there.
    @Test func addKeepsLinesAndAppends() throws {
        let text = "# family\n\nalice = \(Self.face)   # by hand\nnot bob: \(Self.hashB) 1,2,3,4 # gone photo\n"
        var file = try PeopleFile.parse(text, file: "p.txt")
        let alice = PeopleStatement(.nameGroup("alice"), face: Rejection(sha256: Self.hashA, box: .init(x: 10, y: 20, width: 30, height: 40)))
        let carol = PeopleStatement(.nameFace("carol"), face: Rejection(sha256: Self.hashB, box: .init(x: 5, y: 6, width: 7, height: 8)))
        #expect(file.add([(alice, "a.jpg face 0"), (carol, "b.jpg face\n1")]) == 1)
        #expect(file.text == text + "carol: \(Self.hashB) 5,6,7,8  # b.jpg face 1\n")
        #expect(file.statements.last?.line == 5)
        #expect(try PeopleFile.parse(file.text, file: "p.txt") == file)
    }

    @Test func saveIsAtomicAndLoadReadsItBack() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("people.txt").path
        #expect(try PeopleFile.load(path: path) == PeopleFile())
        var file = PeopleFile()
        file.add([(PeopleStatement(.ignoreGroup, face: Rejection(sha256: Self.hashA, box: .init(x: 1, y: 2, width: 3, height: 4))), "")])
        try file.save(path: path, temporaries: TemporaryFiles())
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "ignore = \(Self.hashA) 1,2,3,4\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["people.txt"])
        #expect(try PeopleFile.load(path: path) == file)
        try Data([0xff, 0xfe]).write(to: URL(fileURLWithPath: path))
        #expect(throws: PeopleFileError(file: path, line: 0, reason: "not UTF-8 text")) { try PeopleFile.load(path: path) }
    }
}

struct NamingTests {
    /// A face of the table: photo letter and place (a 100 px box at x = 200 * slot),
    /// the grouping's person, and a 2-d embedding.
    struct F: Sendable {
        var photo: Character
        var slot: Int
        var group: String?
        var embedding: [Float]
        init(_ photo: Character, _ slot: Int, _ group: String?, _ embedding: [Float] = []) {
            self.photo = photo
            self.slot = slot
            self.group = group
            self.embedding = embedding
        }
        var handle: Rejection { NamingTests.handle(photo, slot) }
    }

    static func handle(_ photo: Character, _ slot: Int, moved: Int = 0) -> Rejection {
        Rejection(sha256: String(repeating: String(photo), count: 64), box: .init(x: 200 * slot + moved, y: 50, width: 100, height: 100))
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var faces: [F]
        /// people.txt lines, with `@a0` standing for photo a's face in slot 0.
        var lines: [String]
        var persons: [String?]
        var gone: [Int] = []
        /// Face index -> its photo's one Takeout name.
        var sidecar: [Int: String] = [:]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "no statements: the grouping as it is",
             faces: [F("a", 0, "person-0001"), F("b", 0, nil), F("c", 0, "person-0002")],
             lines: [], persons: ["person-0001", nil, "person-0002"]),
        Case(name: "a group named through one face",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001"), F("c", 0, "person-0002")],
             lines: ["alice = @b0"], persons: ["alice", "alice", "person-0002"]),
        Case(name: "a face named on its own, unassigned by grouping",
             faces: [F("a", 0, nil), F("b", 0, nil)],
             lines: ["alice = @a0"], persons: ["alice", nil]),
        Case(name: "two groups named alike merge",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0002"), F("c", 0, "person-0002"), F("d", 0, "person-0003")],
             lines: ["alice = @a0", "alice = @c0"], persons: ["alice", "alice", "alice", "person-0003"]),
        Case(name: "must-link: one face into alice, its group keeps its id",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0002"), F("b", 1, "person-0002")],
             lines: ["alice = @a0", "alice: @b1"], persons: ["alice", "person-0002", "alice"]),
        Case(name: "must-link into a person no group has yet",
             faces: [F("a", 0, nil)], lines: ["bob: @a0"], persons: ["bob"]),
        Case(name: "cannot-link: the face leaves alice and is unassigned",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001"), F("c", 0, "person-0001")],
             lines: ["alice = @a0", "not alice: @c0"], persons: ["alice", "alice", nil]),
        Case(name: "cannot-link then must-link elsewhere",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001")],
             lines: ["alice = @a0", "not alice: @b0", "bob: @b0"], persons: ["alice", "bob"]),
        Case(name: "cannot-link out of an unnamed group by its id",
             faces: [F("a", 0, "person-0004"), F("b", 0, "person-0004")],
             lines: ["not person-0004: @b0"], persons: ["person-0004", nil]),
        Case(name: "a later not undoes a naming face: the group is no longer named through it",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001")],
             lines: ["alice = @a0", "not alice: @a0"], persons: ["person-0001", "person-0001"]),
        Case(name: "a later naming undoes a not",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001")],
             lines: ["alice = @b0", "not alice: @a0", "alice: @a0"], persons: ["alice", "alice"]),
        Case(name: "ignore a group: its faces get no person",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001"), F("c", 0, "person-0002")],
             lines: ["ignore = @a0"], persons: [nil, nil, "person-0002"]),
        Case(name: "ignore one face",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001")],
             lines: ["ignore: @a0"], persons: [nil, "person-0001"]),
        Case(name: "a group named two ways is split by the nearer named face",
             faces: [F("a", 0, "person-0001", [0, 0]), F("b", 0, "person-0001", [1, 0]), F("c", 0, "person-0001", [0.2, 0]),
                     F("d", 0, "person-0001", [0.9, 0.1]), F("e", 0, "person-0001", [0.6, 0.4])],
             lines: ["alice = @a0", "bob = @b0"], persons: ["alice", "bob", "alice", "bob", "bob"]),
        Case(name: "a split tie goes to the name first in byte order",
             faces: [F("a", 0, "person-0001", [0, 0]), F("b", 0, "person-0001", [1, 0]), F("c", 0, "person-0001", [0.5, 0])],
             lines: ["zoe = @a0", "Bob = @b0"], persons: ["zoe", "Bob", "Bob"]),
        Case(name: "a split without embeddings: every face to the first name",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001"), F("c", 0, "person-0001")],
             lines: ["bob = @b0", "alice = @a0"], persons: ["alice", "bob", "alice"]),
        Case(name: "a split between a name and ignore",
             faces: [F("a", 0, "person-0001", [0, 0]), F("b", 0, "person-0001", [1, 0]), F("c", 0, "person-0001", [0.9, 0])],
             lines: ["alice = @a0", "ignore = @b0"], persons: ["alice", nil, nil]),
        Case(name: "a split face that is not its nearer name gets none",
             faces: [F("a", 0, "person-0001", [0, 0]), F("b", 0, "person-0001", [1, 0]), F("c", 0, "person-0001", [0.1, 0])],
             lines: ["alice = @a0", "bob = @b0", "not alice: @c0"], persons: ["alice", "bob", nil]),
        Case(name: "a moved box still matches (IoU >= 0.5); a gone face is reported",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0002")],
             lines: ["alice = @a0+10", "bob = @f0", "not bob: @a1"], persons: ["alice", "person-0002"], gone: [2, 3]),
        Case(name: "the same photo twice in the library: both copies",
             faces: [F("a", 0, "person-0001"), F("a", 0, "person-0002"), F("b", 0, "person-0002")],
             lines: ["alice = @a0"], persons: ["alice", "alice", "alice"]),
        Case(name: "the other face of the same photo is not matched",
             faces: [F("a", 0, "person-0001"), F("a", 1, "person-0002")],
             lines: ["alice = @a0"], persons: ["alice", "person-0002"]),
        Case(name: "Takeout: a group takes the name most of its photos give; a face in no group gets none",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001"), F("c", 0, "person-0001"), F("d", 0, nil)],
             lines: [], persons: ["Alice", "Alice", "Alice", nil], sidecar: [0: "Alice", 1: "Bob", 2: "Alice", 3: "Dan"]),
        Case(name: "Takeout: a tie goes to the name first in byte order",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001")],
             lines: [], persons: ["Bob", "Bob"], sidecar: [0: "zoe", 1: "Bob"]),
        Case(name: "Takeout: any statement about a group drops its Takeout name",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0001"), F("c", 0, "person-0002"), F("d", 0, "person-0002"),
                     F("e", 0, "person-0003")],
             lines: ["carol: @b0", "not Erin: @d0"], persons: ["person-0001", "carol", "person-0002", "person-0002", "Erin"],
             sidecar: [0: "Alice", 2: "Erin", 4: "Erin"]),
        Case(name: "Takeout: a name the file gives too merges, as two lines would",
             faces: [F("a", 0, "person-0001"), F("b", 0, "person-0002")],
             lines: ["alice = @a0"], persons: ["alice", "alice"], sidecar: [1: "alice"]),
    ]

    static func statements(_ lines: [String]) throws -> [PeopleStatement] {
        let text = lines.map { line in
            line.replacing(/@([a-z])(\d)(\+\d+)?/) { match in
                let photo = Character(String(match.output.1))
                let moved = match.output.3.map { Int($0.dropFirst())! } ?? 0
                return handle(photo, Int(match.output.2)!, moved: moved).description
            }
        }.joined(separator: "\n")
        return try PeopleFile.parse(text, file: "people.txt").statements
    }

    @Test(arguments: cases)
    func apply(_ c: Case) throws {
        let faces = c.faces.map { NamingFace($0.handle, person: $0.group, embedding: $0.embedding) }
        let statements = try Self.statements(c.lines)
        let result = Naming.apply(statements, to: faces, sidecar: c.sidecar)
        #expect(result.persons == c.persons)
        #expect(result.gone.map(\.line) == c.gone)
        // Deterministic: the same again, and statements about different
        // faces in any order give the same persons.
        #expect(Naming.apply(statements, to: faces, sidecar: c.sidecar) == result)
        let byFace = Dictionary(grouping: statements, by: \.face.description)
        let reordered = byFace.keys.sorted(by: >).flatMap { byFace[$0]! }
        #expect(Naming.apply(reordered, to: faces, sidecar: c.sidecar).persons == c.persons)
    }
}

struct PeopleListingTests {
    static func face(_ number: Int, photo: String, side: Int, sharpness: Double, person: String?) -> PeopleListing.Face {
        PeopleListing.Face(
            number: number, crop: "\(photo).face0.jpg", photo: photo, face: 0,
            handle: Rejection(sha256: String(repeating: String(number % 10), count: 64), box: .init(x: 0, y: 0, width: side, height: side)),
            sharpness: sharpness, person: person)
    }

    static let faces = [
        face(1, photo: "a.jpg", side: 100, sharpness: 50, person: "person-0002"),
        face(2, photo: "b.jpg", side: 200, sharpness: 90, person: "alice"),
        face(3, photo: "b.jpg", side: 190, sharpness: 300, person: "alice"),
        // The sharpest, but a third of the largest's side: not the representative.
        face(4, photo: "c.jpg", side: 60, sharpness: 900, person: "alice"),
        face(5, photo: "d.jpg", side: 80, sharpness: 10, person: nil),
        face(6, photo: "e.jpg", side: 80, sharpness: 10, person: "bob"),
        face(7, photo: "e.jpg", side: 80, sharpness: 10, person: nil),
        face(8, photo: "e.jpg", side: 80, sharpness: 10, person: "person-0002"),
    ]

    @Test func peopleLargestFirstWithCountsAndRepresentative() {
        let listing = PeopleListing(faces: Self.faces, grouped: true)
        #expect(listing.people.map(\.label) == ["alice", "person-0002", "bob"])
        #expect(listing.people.map(\.faces.count) == [3, 2, 1])
        #expect(listing.people.map(\.photos) == [2, 2, 1])
        #expect(listing.people.map(\.representative.number) == [3, 1, 6])
        #expect(listing.people.map(\.named) == [true, false, true])
        #expect(listing.unassigned.map(\.number) == [5, 7])
        #expect(listing.unassignedPhotos == 2)
        #expect(listing.text.hasPrefix("person       faces  photos  representative crop\nalice            3       2  #3 b.jpg.face0.jpg\n"))
        #expect(listing.text.hasSuffix("3 people; 2 unassigned faces in 2 photos:\n  #5 d.jpg.face0.jpg\n  #7 e.jpg.face0.jpg\n"))
        let json = listing.json
        #expect(json["people"].map { if case .array(let people) = $0 { people.count } else { 0 } } == 3)
        #expect(json["unassigned"]?["faces"]?.intValue == 2)
    }

    @Test func withFaceQualityTheBestIsTheRepresentativeAndTheMedianIsListed() {
        var faces = Self.faces
        for index in faces.indices { faces[index].quality = [0.4, 0.5, 0.3, 0.9, 0.2, 0.6, 0.1, 0.7][index] }
        let listing = PeopleListing(faces: faces, grouped: true)
        // alice: #2 0.5, #3 0.3, #4 0.9 (the small sharp face wins now); person-0002: #1 0.4, #8 0.7.
        #expect(listing.people.map(\.representative.number) == [4, 8, 6])
        #expect(listing.people.map(\.medianQuality) == [0.5, 0.4, 0.6])
        #expect(listing.text.hasPrefix("person       faces  photos  quality  representative crop\nalice            3       2     0.50  #4 c.jpg.face0.jpg\n"))
    }

    @Test(arguments: [
        ("a", false), ("person-0007", true), ("person-12", true), ("person-", false), ("person-7a", false), ("Person-0001", false),
    ])
    func groupIDs(_ label: String, _ isID: Bool) {
        #expect(PeopleListing.isGroupID(label) == isID)
    }

    /// A rename rewrites only the name on its line; the rest, comments too, stays.
    @Test func nameSpansRewriteOnlyTheName() throws {
        let face = "\(String(repeating: "ab", count: 32)) 1,2,3,4"
        let text = "# alice = not a statement\n  alice =\(face) # alice here\nnot  alice : \(face)\nignore = \(face)\nbob: \(face)\n"
        let file = try PeopleFile.parse(text, file: "p.txt")
        var lines = file.lines
        for span in file.nameSpans where span.name == "alice" { lines[span.index] = span.prefix + "Alicia M" + span.suffix }
        #expect(lines == [
            "# alice = not a statement", "  Alicia M =\(face) # alice here", "not  Alicia M : \(face)", "ignore = \(face)", "bob: \(face)",
        ])
        #expect(try PeopleFile.parse(lines.joined(separator: "\n"), file: "p.txt").statements.map(\.text) == [
            "Alicia M = \(face)", "not Alicia M: \(face)", "ignore = \(face)", "bob: \(face)",
        ])
    }

    /// The page: a row per person, a thumbnail per face, a "not this person"
    /// box per face of a person and a name box per face of no one, and the
    /// file embedded as it was.
    @Test func peoplePageRowsAndBoxes() throws {
        let listing = PeopleListing(faces: Self.faces, grouped: true)
        let file = try PeopleFile.parse("# names\nalice = \(Self.faces[1].handle)  # b.jpg face 0\n", file: "p.txt")
        let html = ReportPeople.page(listing, file: file, output: "/data/set")
        func count(_ text: String) -> Int { html.components(separatedBy: text).count - 1 }
        #expect(count("<section class=\"person\"") == 3)
        #expect(count("<figure class=\"face") == 8)
        #expect(count("class=\"not\"") == 6)
        #expect(count("class=\"who\"") == 2)
        #expect(html.contains("<script type=\"application/json\" id=\"people-file\">\"# names\\nalice = \(Self.faces[1].handle)  # b.jpg face 0\\n\"</script>"))
        // The face a new name of person-0002 would be given through: its representative, which no statement names.
        #expect(html.contains("data-original=\"person-0002\" data-anchor=\"\(Self.faces[0].handle)\""))
        let unreadable = ReportPeople.page(listing, file: nil, output: "/data/set")
        #expect(!unreadable.contains("class=\"not\"") && !unreadable.contains("<script"))
    }
}
