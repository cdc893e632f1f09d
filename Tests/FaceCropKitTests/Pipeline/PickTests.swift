import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropPick


/// `facecrop pick` with the real binary on a dataset made at test time from
/// Fixtures: a burst of four frames of grace_hopper.jpg (the photo cut as
/// 512-pixel squares 0, 16, 32 and 48 px down, re-encoded, taken a second
/// apart in 2019), two-people.jpg (derived from the same two portraits as
/// grace_hopper.jpg and astronaut.jpg, so a near-duplicate of each; dated
/// 2015) and astronaut.jpg (no date).
@Suite(.serialized)
struct PickTests {
    let models = packageRoot.appendingPathComponent("models").path

    func facecrop(_ arguments: [String]) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        environment["FACECROP_DLIB_MODELS"] = models
        return try runFaceCrop(arguments, environment: environment)
    }

    /// The photos above in `<work>/photos`, and a dataset of them in `<work>/dataset`.
    func dataset(people: Bool) throws -> (work: URL, photos: URL, dataset: URL) {
        let (work, photos) = try fixturePhotos(["faces/astronaut.jpg"])
        try Vips.start()
        let source = fixtures.appendingPathComponent("faces/grace_hopper.jpg").path
        let bytes = try PhotoBytes(path: source, source: source)
        let header = try Picture.header(of: bytes, source: source)
        let picture = try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: source)
        for frame in 0..<4 {
            let square = PixelSquare(left: 0, top: 16 * frame, side: 512)
            let jpeg = try picture.encodeCrop(square, pad: .edge, side: 512, format: .jpg, quality: 85 + frame, source: source)
            let dated = withCaptureTime(Data(jpeg), taken: "2019:07:14 10:31:0\(frame)", offset: "+02:00")
            try dated.write(to: photos.appendingPathComponent("burst-\(frame).jpg"))
        }
        let pair = try Data(contentsOf: fixtures.appendingPathComponent("faces/two-people.jpg"))
        try withCaptureTime(pair, taken: "2015:05:01 09:00:00", offset: "+02:00").write(to: photos.appendingPathComponent("two-people.jpg"))
        let dataset = work.appendingPathComponent("dataset")
        let run = try facecrop([photos.path, "-o", dataset.path, "-q"] + (people ? ["--people"] : []))
        #expect(run.status == 0, "\(run.stderr)")
        return (work, photos, dataset)
    }

    func pickJSON(_ out: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("pick.json"))) as! [String: Any]
    }

    func picked(_ out: URL) throws -> [[String: Any]] { try pickJSON(out)["picked"] as! [[String: Any]] }

    /// Hopper's five faces (the four frames and two-people.jpg's) are one
    /// moment: a pick of 3 gives one crop, standing for the other four, cut
    /// again from its photo at --size with its caption beside it.
    @Test func aBurstAndItsCopiesCountOnceAndTheCropIsCutAgainWithItsCaption() throws {
        let (work, photos, dataset) = try dataset(people: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let lines = try readManifest(dataset)
        let hopper = try #require(lines.first { $0["source"] as? String == "burst-0.jpg" }?["person"] as? String)
        #expect(lines.filter { $0["person"] as? String == hopper }.count == 5)
        let out = work.appendingPathComponent("pick")
        let run = try facecrop(["pick", dataset.path, out.path, "--person", hopper, "--count", "3", "--photos", photos.path, "--size", "200"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr == "facecrop: picked 1 crop of '\(hopper)' (1 pose bin, 1 year) -> '\(out.path)'\n")
        let entries = try picked(out)
        #expect(entries.count == 1)
        #expect((entries[0]["source"] as? String)?.hasPrefix("burst-") == true)
        #expect((entries[0]["near_duplicates"] as? [Int])?.count == 4)
        // The other four are listed, each with its reason.
        let left = try #require(try pickJSON(out)["left_out"] as? [[String: Any]])
        #expect(left.count == 4)
        #expect(left.allSatisfy { ($0["reason"] as? String) == "near-duplicate of crop \(entries[0]["crop_number"] as! Int), which was picked" })
        #expect(entries[0]["cut"] as? String == "photo")
        #expect(try String(contentsOf: out.appendingPathComponent("0001.txt"), encoding: .utf8) == "\(hopper), 2019, frontal\n")
        let crop = try PhotoBytes(path: out.appendingPathComponent("0001.jpg").path, source: "crop")
        let header = try Picture.header(of: crop, source: "crop")
        #expect(header.width == 200 && header.height == 200)
        let metadata = try String(contentsOf: out.appendingPathComponent("metadata.jsonl"), encoding: .utf8)
        #expect(metadata.hasPrefix("{\"file_name\": \"0001.jpg\", \"text\": \"\(hopper), 2019, frontal\", \"source\": \"burst-"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("contact-sheet.png").path))
        // A template of its own; the photos gone: the dataset's crop is copied.
        try FileManager.default.removeItem(at: photos)
        let again = try facecrop(["pick", dataset.path, out.path, "--person", hopper, "--caption", "photo of {name}, {pose}, {date}"])
        #expect(again.stderr.hasSuffix("; 1 copied from the dataset (photo not found or changed)) -> '\(out.path)'\n"))
        #expect(try String(contentsOf: out.appendingPathComponent("0001.txt"), encoding: .utf8) == "photo of \(hopper), frontal, 2019-07-14\n")
        #expect(try picked(out)[0]["cut"] as? String == "copied")
    }

    /// Two picks give the same bytes; the dataset is not changed; a person
    /// not in it, or an output inside it, is a usage error.
    @Test func picksAreDeterministicLeaveTheDatasetAloneAndRefuseAnUnknownPerson() throws {
        let (work, photos, dataset) = try dataset(people: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let before = try fingerprint(dataset)
        let (one, two) = (work.appendingPathComponent("one"), work.appendingPathComponent("two"))
        for out in [one, two] {
            #expect(try facecrop(["pick", dataset.path, out.path, "--per-person", "2", "--photos", photos.path, "-q"]).status == 0)
        }
        #expect(try fingerprint(one) == fingerprint(two))
        #expect(try fingerprint(one).keys.contains { $0.hasSuffix("/0001.txt") })
        // The card declares the one split as metadata.jsonl and the crops (scripts/test_loaders.py loads it).
        let card = try String(contentsOf: one.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(card.hasPrefix("---\n") && card.contains("  - split: train\n    path:\n    - \"metadata.jsonl\"\n    - \"**/*.jpg\"\n---\n"))
        let unknown = try facecrop(["pick", dataset.path, work.appendingPathComponent("three").path, "--person", "nobody"])
        #expect(unknown.status == 64)
        #expect(unknown.stderr == """
            Error: no person 'nobody' in '\(dataset.path)'; 'facecrop people \(dataset.path)' lists its people
            \(PickCommand.usage)
            See 'facecrop --help' for more information.

            """)
        // Nor does an output inside it.
        let inside = try facecrop(["pick", dataset.path, dataset.appendingPathComponent("pick").path, "--count", "1"])
        #expect(inside.status == 64)
        #expect(inside.stderr.hasPrefix("Error: the output folder '\(dataset.path)/pick' is in the dataset '\(dataset.path)': pick never writes into a dataset"))
        #expect(try fingerprint(dataset) == before)
    }

    /// Without --people: by photo, one crop per moment and per photo
    /// (two-people.jpg's faces are near-duplicates of the burst and of
    /// astronaut.jpg, yet two photos are picked); --person is a usage error,
    /// a folder that is not a dataset exit 66.
    @Test func withoutPeopleItPicksByPhoto() throws {
        let (work, _, dataset) = try dataset(people: false)
        defer { try? FileManager.default.removeItem(at: work) }
        let out = work.appendingPathComponent("pick")
        let run = try facecrop(["pick", dataset.path, out.path, "--count", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let entries = try picked(out)
        #expect(entries.count == 2)
        #expect(Set(entries.map { $0["source"] as! String }).count == 2)
        #expect(entries.allSatisfy { $0["person"] is NSNull && PoseBin(rawValue: $0["pose_bin"] as? String ?? "") != nil })
        let captions = try (1...2).map { try String(contentsOf: out.appendingPathComponent("000\($0).txt"), encoding: .utf8) }
        // The year where the photo has a date, and the pose bin; no name.
        // (Faces with nothing wrong all score 1: which of astronaut.jpg and
        // two-people.jpg's equal face stands for the two is the first.)
        for (caption, entry) in zip(captions, entries) {
            let year = (entry["taken"] as? String).map { String($0.prefix(4)) + ", " } ?? ""
            #expect(caption == year + (entry["pose_bin"] as! String) + "\n", "\(caption) \(entry)")
        }
        #expect(captions.contains { $0.hasPrefix("2019, ") }, "\(captions)")
        let person = try facecrop(["pick", dataset.path, out.path, "--person", "alice"])
        #expect(person.status == 64)
        #expect(person.stderr.hasPrefix("Error: '\(dataset.path)' was made without --people, so its crops have no person and '--person' cannot be used"))
        // Not a dataset: exit 66, naming it.
        let photos = work.appendingPathComponent("photos").path
        let missing = try facecrop(["pick", photos, out.path])
        #expect(missing.status == 66)
        #expect(missing.stderr == "facecrop: error: cannot read input '\(photos)': no readable manifest.jsonl (No such file or directory): not a facecrop dataset\n")
    }
}
