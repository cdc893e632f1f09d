import Foundation
import Synchronization
import Testing
import FaceCropPeople


/// people.txt with the real binary, dlib and hnswlib on Fixtures/faces, whose
/// grouping (PeopleTests) makes two people: Eileen Collins (astronaut.jpg,
/// astronaut-large.jpg, two-people.jpg face 1) and Grace Hopper
/// (grace_hopper.jpg, two-people.jpg face 0). Each statement, the reruns
/// issue #28 asks for, and bad lines.
@Suite(.serialized)
struct NamesTests {
    let models = packageRoot.appendingPathComponent("models").path

    func run(_ arguments: [String], status: Int32 = 0) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = models
        let result = try runFaceCrop(arguments, environment: environment)
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        return result
    }

    /// Each face with a crop: "source#face" -> (handle, person).
    func people(_ output: URL) throws -> [String: (handle: String, person: String?)] {
        var result: [String: (handle: String, person: String?)] = [:]
        for line in try readManifest(output) where line["crop"] != nil {
            let box = (line["bbox"] as! [Int]).map(String.init).joined(separator: ",")
            result["\(line["source"] as! String)#\(line["face"] as! Int)"] = ("\(line["sha256"] as! String) \(box)", line["person"] as? String)
        }
        return result
    }

    static let collins = ["astronaut.jpg#0", "astronaut-large.jpg#0", "two-people.jpg#1"]
    static let hopper = ["grace_hopper.jpg#0", "two-people.jpg#0"]
    static let all = ["astronaut.jpg", "astronaut-large.jpg", "grace_hopper.jpg", "two-people.jpg"]

    /// The photos in a fresh folder and their faces as a grouping without a
    /// people file gives them (grouped once per set of photos: the suite is
    /// serialized, and a handle and a fresh grouping's ids depend only on the photos).
    func grouped(_ names: [String] = all) throws -> (work: URL, photos: URL, faces: [String: (handle: String, person: String?)]) {
        let (work, photos) = try fixturePhotos(names.map { "faces/" + $0 })
        if let known = Self.plain.withLock({ $0[names] }) { return (work, photos, known) }
        let plain = work.appendingPathComponent("plain")
        _ = try run([photos.path, "-o", plain.path, "-q", "--people"])
        let faces = try people(plain)
        try FileManager.default.removeItem(at: plain)
        Self.plain.withLock { $0[names] = faces }
        return (work, photos, faces)
    }

    static let plain = Mutex<[[String]: [String: (handle: String, person: String?)]]>([:])

    func write(_ lines: [String], to url: URL) throws {
        try (lines.map { $0 + "\n" }.joined()).write(to: url, atomically: true, encoding: .utf8)
    }

    struct StatementCase: CustomTestStringConvertible, Sendable {
        var name: String
        /// Lines with `{face}` placeholders such as `{astronaut.jpg#0}`.
        var lines: [String]
        /// The person of each face after (`collins`/`hopper`: that group's id as grouping gave it).
        var persons: [String: String?]
        var testDescription: String { name }
    }

    static let statementCases: [StatementCase] = [
        StatementCase(
            name: "name a group through one face", lines: ["alice = {astronaut.jpg#0}"],
            persons: ["astronaut.jpg#0": "alice", "astronaut-large.jpg#0": "alice", "two-people.jpg#1": "alice",
                      "grace_hopper.jpg#0": "hopper", "two-people.jpg#0": "hopper"]),
        StatementCase(
            name: "name both groups the same: they merge", lines: ["alice = {astronaut.jpg#0}", "alice = {grace_hopper.jpg#0}"],
            persons: Dictionary(uniqueKeysWithValues: (collins + hopper).map { ($0, "alice") })),
        StatementCase(
            name: "must-link one face into another person", lines: ["grace = {grace_hopper.jpg#0}", "grace: {astronaut-large.jpg#0}"],
            persons: ["astronaut.jpg#0": "collins", "astronaut-large.jpg#0": "grace", "two-people.jpg#1": "collins",
                      "grace_hopper.jpg#0": "grace", "two-people.jpg#0": "grace"]),
        StatementCase(
            name: "cannot-link: not alice", lines: ["alice = {astronaut.jpg#0}", "not alice: {two-people.jpg#1}"],
            persons: ["astronaut.jpg#0": "alice", "astronaut-large.jpg#0": "alice", "two-people.jpg#1": nil,
                      "grace_hopper.jpg#0": "hopper", "two-people.jpg#0": "hopper"]),
        StatementCase(
            name: "ignore a group: crops kept, no person", lines: ["ignore = {two-people.jpg#0}"],
            persons: ["astronaut.jpg#0": "collins", "astronaut-large.jpg#0": "collins", "two-people.jpg#1": "collins",
                      "grace_hopper.jpg#0": nil, "two-people.jpg#0": nil]),
        StatementCase(
            name: "ignore one face", lines: ["ignore: {astronaut-large.jpg#0}"],
            persons: ["astronaut.jpg#0": "collins", "astronaut-large.jpg#0": nil, "two-people.jpg#1": "collins",
                      "grace_hopper.jpg#0": "hopper", "two-people.jpg#0": "hopper"]),
    ]

    @Test(arguments: statementCases)
    func eachStatement(_ c: StatementCase) throws {
        let (work, photos, faces) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let ids = ["collins": faces["astronaut.jpg#0"]!.person!, "hopper": faces["grace_hopper.jpg#0"]!.person!]
        #expect(ids["collins"] != ids["hopper"])
        let output = work.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        // people.txt in the output folder is read with no option.
        try write(c.lines.map { fill($0, faces) }, to: output.appendingPathComponent("people.txt"))
        let result = try run([photos.path, "-o", output.path, "--people", "--json"])
        let after = try people(output)
        for (face, person) in c.persons {
            #expect(after[face]?.person == person.map { ids[$0] ?? $0 }, "\(face)")
        }
        #expect(after.count == 5, "every face keeps its crop")
        let stats = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(stats["people"] as? Int == Set(c.persons.values.compactMap { $0.map { ids[$0] ?? $0 } }).count)
        // metadata.jsonl (the Hugging Face column) says the same.
        let metadata = try String(contentsOf: output.appendingPathComponent("metadata.jsonl"), encoding: .utf8)
        for name in Set(c.persons.values.compactMap { $0 }) where ids[name] == nil {
            #expect(metadata.contains("\"person\": \"\(name)\""))
        }
    }

    func fill(_ line: String, _ faces: [String: (handle: String, person: String?)]) -> String {
        line.replacing(/\{([^}]+)\}/) { faces[String($0.output.1)]!.handle }
    }

    /// Two names in one group: each other face goes to the nearer named face
    /// by embedding distance (embeddings.npy, read here).
    @Test func aGroupNamedTwoWaysIsSplitByTheNearerNamedFace() throws {
        let (work, photos, faces) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        let file = work.appendingPathComponent("names.txt")
        try write(["alice = \(faces["astronaut.jpg#0"]!.handle)", "bob = \(faces["astronaut-large.jpg#0"]!.handle)"], to: file)
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--people-file", file.path])
        let after = try people(output)
        #expect(after["astronaut.jpg#0"]?.person == "alice" && after["astronaut-large.jpg#0"]?.person == "bob")
        let rows = try readManifest(output).filter { $0["crop"] != nil }.map { "\($0["source"]!)#\($0["face"]!)" }
        let data = try Data(contentsOf: output.appendingPathComponent("embeddings.npy"))
        let vectors = data.dropFirst(128).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        func vector(_ face: String) -> ArraySlice<Float> {
            let row = rows.firstIndex(of: face)!
            return vectors[(row * 128)..<((row + 1) * 128)]
        }
        func distance(_ a: String, _ b: String) -> Float { zip(vector(a), vector(b)).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } }
        let third = "two-people.jpg#1"
        let nearer = distance(third, "astronaut.jpg#0") <= distance(third, "astronaut-large.jpg#0") ? "alice" : "bob"
        #expect(after[third]?.person == nearer)
        #expect(after["grace_hopper.jpg#0"]?.person == faces["grace_hopper.jpg#0"]!.person)
    }

    /// Delete the output, keep people.txt, run again: the same bytes. New
    /// photos of alice join alice; a face that is not alice never returns.
    @Test func regenerationKeepsNamesAndCorrections() throws {
        let (work, photos, faces) = try grouped(["astronaut.jpg", "grace_hopper.jpg", "two-people.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("people.txt")
        let text = "# reviewed\nalice = \(faces["astronaut.jpg#0"]!.handle)  # by hand\nnot alice: \(faces["two-people.jpg#1"]!.handle)\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let output = work.appendingPathComponent("out")
        let arguments = [photos.path, "-o", output.path, "-q", "--people", "--people-file", file.path]
        _ = try run(arguments)
        let first = try datasetBytes(output)
        let named = try people(output)
        #expect(named["astronaut.jpg#0"]?.person == "alice" && named["two-people.jpg#1"]?.person == nil)

        try FileManager.default.removeItem(at: output)
        _ = try run(arguments)
        #expect(try datasetBytes(output) == first)
        _ = try run(arguments + ["--check"])

        // A new photo of alice (first in manifest order) joins alice; the
        // face that is not alice stays out, on the incremental run and on a
        // fresh one.
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("faces/astronaut-large.jpg"), to: photos.appendingPathComponent("a-astronaut-large.jpg"))
        _ = try run(arguments)
        let grown = try people(output)
        #expect(grown["a-astronaut-large.jpg#0"]?.person == "alice")
        #expect(grown["two-people.jpg#1"]?.person == nil)
        #expect(grown["grace_hopper.jpg#0"]?.person == named["grace_hopper.jpg#0"]?.person)
        let fresh = work.appendingPathComponent("fresh")
        _ = try run([photos.path, "-o", fresh.path, "-q", "--people", "--people-file", file.path])
        #expect(try people(fresh).mapValues(\.person) == grown.mapValues(\.person))
        // The file is the person's: never rewritten by a run.
        #expect(try String(contentsOf: file, encoding: .utf8) == text)

        // Removing the name gives the group its id back: names come only from the file.
        try "".write(to: file, atomically: true, encoding: .utf8)
        // --check sees what the edited file would change, without grouping again.
        let check = try run(arguments + ["--check"], status: 1)
        #expect(check.stdout.contains("person: astronaut.jpg.face0.jpg: alice -> \(faces["astronaut.jpg#0"]!.person!)\n"))
        #expect(check.stdout.contains("person: two-people.jpg.face1.jpg: none -> \(faces["two-people.jpg#1"]!.person!)\n"))
        _ = try run(arguments)
        _ = try run(arguments + ["--check"])
        let unnamed = try people(output)
        #expect(unnamed["astronaut.jpg#0"]?.person == faces["astronaut.jpg#0"]!.person)
        #expect(unnamed.values.allSatisfy { $0.person.map(PeopleListing.isGroupID) ?? true })
    }

    /// Google Takeout's names (any name, here one with brackets) name groups
    /// below people.txt: a photo whose
    /// sidecar names one person and which has one face names that face's
    /// group; a sidecar naming two gives nothing, a face in no group stays
    /// no one; a people.txt statement about the group wins, and the Takeout
    /// name is never written into the file. After `merge` too.
    @Test func takeoutNamesGroupsBelowPeopleFile() throws {
        let (work, photos) = try fixturePhotos(["astronaut.jpg", "astronaut-large.jpg", "grace_hopper.jpg"].map { "faces/" + $0 })
        defer { try? FileManager.default.removeItem(at: work) }
        let year = work.appendingPathComponent("Takeout/Google Photos/Photos from 2019")
        try FileManager.default.createDirectory(at: year, withIntermediateDirectories: true)
        for (photo, people) in [("astronaut.jpg", ["Anna (Mom)"]), ("astronaut-large.jpg", ["Anna (Mom)", "Bob"]),
                                ("grace_hopper.jpg", ["Grace Hopper"])] {
            try FileManager.default.moveItem(at: photos.appendingPathComponent(photo), to: year.appendingPathComponent(photo))
            let names = people.map { "{\"name\": \"\($0)\"}" }.joined(separator: ", ")
            try write(["{\"title\": \"\(photo)\", \"people\": [\(names)]}"], to: year.appendingPathComponent(photo + ".json"))
        }
        let output = work.appendingPathComponent("out")
        let arguments = [work.appendingPathComponent("Takeout").path, "-o", output.path, "-q", "--people"]
        _ = try run(arguments)
        let folder = "Google Photos/Photos from 2019/"
        let named = try people(output)
        #expect(named[folder + "astronaut.jpg#0"]?.person == "Anna (Mom)")
        #expect(named[folder + "astronaut-large.jpg#0"]?.person == "Anna (Mom)")
        #expect(named[folder + "grace_hopper.jpg#0"]?.person == nil)
        // --check applies the same names: nothing to change.
        _ = try run(arguments + ["--check"])
        // Shards merged name the group as the one run does.
        let shards = work.appendingPathComponent("shards")
        for index in 0..<2 { _ = try run(Array(arguments.prefix(1)) + ["-o", shards.path, "-q", "--people", "--shard", "\(index)/2"]) }
        let merged = work.appendingPathComponent("merged")
        _ = try run(["merge", merged.path, shards.path, "-q"])
        #expect(try people(merged).mapValues(\.person) == named.mapValues(\.person))

        let file = output.appendingPathComponent("people.txt")
        let text = "collins = \(named[folder + "astronaut-large.jpg#0"]!.handle)\n"
        try text.write(to: file, atomically: true, encoding: .utf8)
        let check = try run(arguments + ["--check"], status: 1)
        #expect(check.stdout.contains("person: \(folder)astronaut.jpg.face0.jpg: Anna (Mom) -> collins\n"))
        let result = try run(arguments)
        #expect(!result.stderr.contains("no face of the dataset matches"))
        let corrected = try people(output)
        #expect(corrected[folder + "astronaut.jpg#0"]?.person == "collins")
        #expect(corrected[folder + "astronaut-large.jpg#0"]?.person == "collins")
        #expect(try String(contentsOf: file, encoding: .utf8) == text)
    }

    /// `facecrop people` lists the dataset's people, named and not, and the faces of no one.
    @Test func peopleCommandListsThePeople() throws {
        let (work, photos, faces) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("people.txt")
        try write(["alice = \(faces["astronaut.jpg#0"]!.handle)", "ignore: \(faces["two-people.jpg#0"]!.handle)"], to: file)
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people", "--people-file", file.path])
        let hopper = faces["grace_hopper.jpg#0"]!.person!
        let text = try run(["people", output.path]).stdout
        #expect(text == """
            person       faces  photos  quality  representative crop
            alice            3       3     1.00  #2 astronaut.jpg.face0.jpg
            \(hopper.padding(toLength: 11, withPad: " ", startingAt: 0))      1       1     1.00  #3 grace_hopper.jpg.face0.jpg

            2 people; 1 unassigned face in 1 photo:
              #4 two-people.jpg.face0.jpg

            """)
        let json = try JSONSerialization.jsonObject(with: Data(run(["people", output.path, "--json"]).stdout.utf8)) as! [String: Any]
        let people = json["people"] as! [[String: Any]]
        #expect(people.map { $0["person"] as! String } == ["alice", hopper])
        #expect(people.map { $0["named"] as! Bool } == [true, false])
        #expect((people[0]["crops"] as! [[String: Any]]).map { $0["crop"] as! String }
            == ["astronaut-large.jpg.face0.jpg", "astronaut.jpg.face0.jpg", "two-people.jpg.face1.jpg"])
        #expect((json["unassigned"] as! [String: Any])["faces"] as? Int == 1)
        // Statements added from the command line: every line kept, one appended per crop.
        let before = try String(contentsOf: file, encoding: .utf8)
        _ = try run(["people", output.path, "--ignore", "#3", "grace_hopper.jpg.face0.jpg", "--people-file", file.path, "-q"])
        #expect(try String(contentsOf: file, encoding: .utf8)
            == before + "ignore = \(faces["grace_hopper.jpg#0"]!.handle)  # grace_hopper.jpg face 0\n")
        let bad = try run(["people", output.path, "--add", "ignore", "#3", "--people-file", file.path], status: 64)
        #expect(bad.stderr.hasPrefix("Error: 'ignore' is a word of the people file, not a name"))
        let control = try run(["people", output.path, "--add", "a\tb", "#3", "--people-file", file.path], status: 64)
        #expect(control.stderr.hasPrefix("Error: the name 'a\u{FFFD}b' holds the control character U+0009"))
        _ = try run(["people", output.path, "--add", "bob", "#9", "--people-file", file.path], status: 64)

        // The People page is written, and linked from the report.
        let page = try String(contentsOf: output.appendingPathComponent("report-people.html"), encoding: .utf8)
        #expect(page.components(separatedBy: "<section class=\"person\"").count - 1 == 2)
        #expect(try String(contentsOf: output.appendingPathComponent("report.html"), encoding: .utf8).contains("href=\"report-people.html\""))
    }

    /// A name is the person's id everywhere: `--keep-person alice` keeps
    /// alice's crops, `--split-by person` keeps alice (two groups merged by
    /// name) in one split.
    @Test func namesWorkInKeepPersonAndSplitByPerson() throws {
        let (work, photos, faces) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("people.txt")
        try write(["alice = \(faces["astronaut.jpg#0"]!.handle)"], to: file)
        let kept = work.appendingPathComponent("kept")
        _ = try run([photos.path, "-o", kept.path, "-q", "--people", "--people-file", file.path, "--keep-person", "alice"])
        let lines = try readManifest(kept).filter { $0["face"] != nil }
        #expect(lines.filter { $0["crop"] != nil }.map { $0["person"] as? String } == ["alice", "alice", "alice"])
        #expect(lines.filter { $0["status"] as? String == "other_person" }.count == 2)

        try write(["alice = \(faces["astronaut.jpg#0"]!.handle)", "alice = \(faces["grace_hopper.jpg#0"]!.handle)"], to: file)
        let split = work.appendingPathComponent("split")
        _ = try run([photos.path, "-o", split.path, "-q", "--people", "--people-file", file.path, "--split", "a=50,b=50", "--split-by", "person"])
        let crops = try readManifest(split).filter { $0["crop"] != nil }
        #expect(crops.count == 5 && crops.allSatisfy { $0["person"] as? String == "alice" })
        #expect(Set(crops.map { $0["split"] as! String }).count == 1)
        #expect(crops.allSatisfy { ($0["crop"] as! String).hasPrefix(($0["split"] as! String) + "/") })
    }

    /// A name that needs quotes, from the command line: `people --name`
    /// writes it quoted, the rerun names the group with it, it keeps its
    /// person with `--keep-person` and picks a split with `--split-by person`,
    /// and `pick` gives it a folder that stays inside the output.
    @Test func aQuotedNameFromTheCommandLineNamesThePersonOnTheRerun() throws {
        let (work, photos, faces) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        let name = "Smith, John (李/..)"
        _ = try run(["people", output.path, "--name", name, "grace_hopper.jpg.face0.jpg", "-q"])
        let file = output.appendingPathComponent("people.txt")
        #expect(try String(contentsOf: file, encoding: .utf8)
            == "\"Smith, John (李/..)\" = \(faces["grace_hopper.jpg#0"]!.handle)  # grace_hopper.jpg face 0\n")
        _ = try run([photos.path, "-o", output.path, "-q", "--people"])
        #expect(Self.hopper.map { try! people(output)[$0]?.person } == [name, name])
        #expect(try run(["people", output.path]).stdout.contains(name))
        let kept = work.appendingPathComponent("kept")
        _ = try run([
            photos.path, "-o", kept.path, "-q", "--people", "--people-file", file.path, "--keep-person", name, "--split", "a=50,b=50",
            "--split-by", "person",
        ])
        let crops = try readManifest(kept).filter { $0["crop"] != nil }
        #expect(crops.count == 2 && crops.allSatisfy { $0["person"] as? String == name })
        #expect(Set(crops.map { $0["split"] as! String }).count == 1)
        let picked = work.appendingPathComponent("picked")
        _ = try run(["pick", output.path, picked.path, "--per-person", "1", "-q"])
        var folder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: picked.appendingPathComponent("Smith, John (李_..)").path, isDirectory: &folder) && folder.boolValue)
    }

    /// Shards group nothing; `merge --people-file` names the whole as one run does.
    @Test func mergeAppliesThePeopleFileAsOneRunDoes() throws {
        let (work, photos, faces) = try grouped()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("names.txt")
        try write(["alice = \(faces["astronaut.jpg#0"]!.handle)", "not alice: \(faces["two-people.jpg#1"]!.handle)"], to: file)
        let whole = work.appendingPathComponent("whole")
        _ = try run([photos.path, "-o", whole.path, "-q", "--people", "--people-file", file.path])
        let shards = work.appendingPathComponent("shards")
        for index in 0..<2 { _ = try run([photos.path, "-o", shards.path, "-q", "--people", "--shard", "\(index)/2"]) }
        let merged = work.appendingPathComponent("merged")
        _ = try run(["merge", merged.path, shards.path, "-q", "--people-file", file.path])
        #expect(try Data(contentsOf: merged.appendingPathComponent("manifest.jsonl")) == Data(contentsOf: whole.appendingPathComponent("manifest.jsonl")))
        #expect(try people(merged)["astronaut-large.jpg#0"]?.person == "alice")
        #expect(FileManager.default.fileExists(atPath: merged.appendingPathComponent("report-people.html").path))
    }

    struct BadCase: CustomTestStringConvertible, Sendable {
        var text: String
        var message: String
        var testDescription: String { message }
    }

    /// A bad line is a usage error naming the file and line; nothing is written.
    @Test(arguments: [
        BadCase(text: "# ok\nalice \(String(repeating: "a", count: 64)) 1,2,3,4\n",
                message: "line 2: expected 'NAME = FACE', 'NAME: FACE', 'not NAME: FACE', 'ignore = FACE' or 'ignore: FACE'"),
        BadCase(text: "alice = 123 1,2,3,4\n", message: "line 1: '123' is not a SHA-256 (64 hex digits)"),
        BadCase(text: "al/ice = \(String(repeating: "a", count: 64)) 1,2,3,4\n", message: "line 1: the name 'al/ice' holds '/': write it in double quotes, \"al/ice\""),
    ])
    func badLinesAreUsageErrors(_ c: BadCase) throws {
        let (work, photos) = try fixturePhotos(["faces/astronaut.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("people.txt")
        try c.text.write(to: file, atomically: true, encoding: .utf8)
        let output = work.appendingPathComponent("out")
        let result = try run([photos.path, "-o", output.path, "--people", "--people-file", file.path], status: 64)
        #expect(result.stderr.hasPrefix("Error: '\(file.path)' \(c.message)"))
        #expect(result.stderr.contains("See 'facecrop --help' for more information."))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test func peopleFileNeedsPeopleAndAGoneFaceIsReportedOnceAndKept() throws {
        let (work, photos) = try fixturePhotos(["faces/astronaut.jpg", "faces/astronaut-large.jpg"])
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("people.txt")
        let gone = "bob = \(String(repeating: "0", count: 64)) 10,10,50,50"
        try (gone + "  # a photo no longer in the library\n").write(to: file, atomically: true, encoding: .utf8)
        let output = work.appendingPathComponent("out")
        let without = try run([photos.path, "-o", output.path, "--people-file", file.path], status: 64)
        #expect(without.stderr.hasPrefix("Error: '--people-file' needs '--people'"))
        let result = try run([photos.path, "-o", output.path, "--people", "--people-file", file.path])
        let message = "facecrop: '\(file.path)' line 1: no face of the dataset matches '\(gone)' (kept in the file: its photo may come back)\n"
        #expect(result.stderr.components(separatedBy: message).count == 2)
        #expect(try String(contentsOf: file, encoding: .utf8).hasPrefix(gone))
    }
}
