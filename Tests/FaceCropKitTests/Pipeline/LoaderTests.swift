import Foundation
import Testing
import FaceCropCore
import FaceCropOutput
import FaceCropFinish
import FaceCropKit


/// What the training loaders read: metadata.jsonl (Hugging Face imagefolder),
/// `facecrop export webdataset` shards, and the GIF and JPEG XL inputs. The
/// real `datasets` and `webdataset` packages read these in scripts/test-loaders.
@Suite(.serialized)
struct LoaderTests {
    /// One run over faces, noface and extra-formats; the work folder and the output.
    func dataset(_ extra: [String] = []) throws -> (work: URL, output: URL) {
        let work = try makeTemporaryFolder()
        let photos = work.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try copyFixtures(["faces", "noface", "extra-formats"], into: photos)
        let output = work.appendingPathComponent("out")
        let result = try runFaceCrop([photos.path, "-o", output.path, "-q"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return (work, output)
    }

    func lines(_ file: URL) throws -> [[String: Any]] {
        try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }

    @Test func theFirstFrameOfAnAnimatedGIFAndAJPEGXLGiveOneFaceEach() throws {
        let (work, photos) = try fixturePhotos(["extra-formats/astronaut-animated.gif", "extra-formats/astronaut.jxl"])
        defer { try? FileManager.default.removeItem(at: work) }
        let output = work.appendingPathComponent("out")
        #expect(try runFaceCrop([photos.path, "-o", output.path, "-q"]).status == 0)
        let bySource = linesBySource(try readManifest(output))
        // Frame 0 is the astronaut's head (formats/astronaut-rgba.png's crop of
        // the same photo); frame 1 is a coffee cup, and all frames stacked
        // would be 320x640.
        let gif = try #require(bySource["astronaut-animated.gif"])
        #expect(gif.count == 1)
        #expect(gif[0]["status"] as? String == "ok")
        #expect(gif[0]["width"] as? Int == 320 && gif[0]["height"] as? Int == 320)
        let head = try #require(expectedAnswers["formats/astronaut-rgba.png"]?.boxes.first)
        #expect(intersectionOverUnion(try #require(rect(gif[0]["bbox"])), head) >= 0.5)

        let jxl = try #require(bySource["astronaut.jxl"])
        #expect(jxl.count == 1)
        let face = try #require(expectedAnswers["faces/astronaut.jpg"]?.boxes.first)
        #expect(intersectionOverUnion(try #require(rect(jxl[0]["bbox"])), face) >= 0.5)
        for line in gif + jxl {
            #expect(FileManager.default.fileExists(atPath: output.appendingPathComponent(line["crop"] as! String).path))
        }
    }

    @Test func metadataHasEveryKeptCropWithTheSameColumnsOnEveryLine() throws {
        let (work, output) = try dataset(["--align"])
        defer { try? FileManager.default.removeItem(at: work) }
        let manifest = try readManifest(output)
        let samples = manifest.filter { $0["status"] as? String == "ok" }
        #expect(samples.count < manifest.count)  // no_face lines exist and are left out
        let metadata = try lines(output.appendingPathComponent(HFMetadata.fileName))
        #expect(metadata.count == samples.count)
        let columns = Set(metadata[0].keys)
        #expect(columns.isSuperset(of: ["file_name", "source", "bbox", "score", "crop", "angle"]))
        for (line, sample) in zip(metadata, samples) {
            #expect(Set(line.keys) == columns)
            #expect(line["file_name"] as? String == sample["crop"] as? String)
            #expect(rect(line["bbox"]) == rect(sample["bbox"]))
            #expect((line["angle"] as! NSNumber).doubleValue == (sample["angle"] as! NSNumber).doubleValue)
        }
        // A number column with a fraction on any line is written with a
        // fraction on every line (datasets types a column from its first
        // lines): with --align, angles and sharpness mix whole numbers and
        // fractions.
        let text = try String(contentsOf: output.appendingPathComponent(HFMetadata.fileName), encoding: .utf8)
        var mixed = 0
        for column in ["angle", "sharpness", "score"] {
            let values = text.split(separator: "\n").compactMap { line -> Substring? in
                guard let start = line.range(of: "\"\(column)\": ") else { return nil }
                return line[start.upperBound...].prefix { $0 != "," && $0 != "}" }
            }
            #expect(values.count == metadata.count)
            if values.contains(where: { $0.contains(".") }) {
                mixed += 1
                #expect(values.allSatisfy { $0.contains(".") }, "\(column): \(values)")
            }
        }
        #expect(mixed > 0)
    }

    @Test func metadataIsTheSameBytesWhateverTheJobsAndForAMerge() throws {
        let (work, output) = try dataset(["--jobs", "1"])
        defer { try? FileManager.default.removeItem(at: work) }
        let photos = work.appendingPathComponent("photos")
        let metadata = try Data(contentsOf: output.appendingPathComponent(HFMetadata.fileName))
        let card = try Data(contentsOf: output.appendingPathComponent(DatasetCard.fileName))
        let parallel = work.appendingPathComponent("parallel")
        #expect(try runFaceCrop([photos.path, "-o", parallel.path, "-q", "--jobs", "2"]).status == 0)
        #expect(try Data(contentsOf: parallel.appendingPathComponent(HFMetadata.fileName)) == metadata)
        #expect(try Data(contentsOf: parallel.appendingPathComponent(DatasetCard.fileName)) == card)
        // A rerun that changes nothing writes the same card again.
        #expect(try runFaceCrop([photos.path, "-o", parallel.path, "-q", "--jobs", "2"]).status == 0)
        #expect(try Data(contentsOf: parallel.appendingPathComponent(DatasetCard.fileName)) == card)

        let shards = work.appendingPathComponent("shards")
        for index in 0..<2 {
            #expect(try runFaceCrop([photos.path, "-o", shards.path, "-q", "--shard", "\(index)/2"]).status == 0)
        }
        #expect(!FileManager.default.fileExists(atPath: shards.appendingPathComponent(HFMetadata.fileName).path))
        #expect(!FileManager.default.fileExists(atPath: shards.appendingPathComponent(DatasetCard.fileName).path))
        let merged = work.appendingPathComponent("merged")
        #expect(try runFaceCrop(["merge", merged.path, shards.path, "-q"]).status == 0)
        #expect(try Data(contentsOf: merged.appendingPathComponent(HFMetadata.fileName)) == metadata)
        #expect(try Data(contentsOf: merged.appendingPathComponent(DatasetCard.fileName)) == card)
    }

    /// The card declares the one split and lists metadata.jsonl's columns,
    /// each with its type, and the run's counts.
    @Test func theDatasetCardDeclaresTheSplitsAndListsEveryColumn() throws {
        let (work, output) = try dataset()
        defer { try? FileManager.default.removeItem(at: work) }
        let card = try String(contentsOf: output.appendingPathComponent(DatasetCard.fileName), encoding: .utf8)
        #expect(card.hasPrefix("---\n"))
        #expect(card.contains("  data_files:\n  - split: train\n    path:\n    - \"metadata.jsonl\"\n    - \"**/*.jpg\"\n---\n"))
        #expect(card.contains("\n\(DatasetCard.marker)\n"))
        let first = try lines(output.appendingPathComponent(HFMetadata.fileName))[0]
        for name in first.keys where name != "file_name" {
            #expect(card.contains("\n| `\(name)` | "), "the card lacks the column \(name)")
        }
        #expect(card.contains("| `bbox` | list of integers |") && card.contains("| `score` | number |"))
        let samples = try readManifest(output).filter { $0["status"] as? String == "ok" }.count
        #expect(card.contains("| train | \(samples) | `.` |"))
        #expect(card.contains("## Licence\n\n<!-- licence:"))
    }

    /// With --split, each split is declared with its folder's metadata.jsonl;
    /// a split without a crop is left out of the header.
    @Test func theCardDeclaresTheSplitNamesButNotAnEmptyOne() throws {
        // dev's share is one in a million: with these photos it has no crop.
        let (work, split) = try dataset(["--split", "dev=1,eval=999999"])
        defer { try? FileManager.default.removeItem(at: work) }
        let card = try String(contentsOf: split.appendingPathComponent(DatasetCard.fileName), encoding: .utf8)
        let stats = try JSONSerialization.jsonObject(with: Data(contentsOf: split.appendingPathComponent("stats.json"))) as! [String: Any]
        let counts = stats["splits"] as! [String: Int]
        #expect(card.contains("  - split: eval\n    path:\n    - \"eval/metadata.jsonl\"\n    - \"**/*.jpg\"\n"))
        #expect(card.contains("  - split: dev\n") == (counts["dev"]! > 0))
        #expect(card.contains("| eval | \(counts["eval"]!) | `eval/` |"))
    }

    /// A README.md facecrop did not write is left as it is, said on stderr;
    /// one it wrote (the marker line) is written again.
    @Test func aReadmeFacecropDidNotWriteIsNeverReplaced() throws {
        let (work, output) = try dataset()
        defer { try? FileManager.default.removeItem(at: work) }
        let path = output.appendingPathComponent(DatasetCard.fileName)
        let ours = try Data(contentsOf: path)
        let mine = Data("# My faces\n\nMy own words.\n".utf8)
        try mine.write(to: path)
        let photos = work.appendingPathComponent("photos")
        let rerun = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(rerun.status == 0)
        #expect(rerun.stderr.contains("facecrop: note: '\(output.path)/README.md' was not written by facecrop: it is left as it is"))
        #expect(try Data(contentsOf: path) == mine)
        // With the marker line, the file is facecrop's again.
        try Data((String(decoding: mine, as: UTF8.self) + DatasetCard.marker + "\n").utf8).write(to: path)
        let again = try runFaceCrop([photos.path, "-o", output.path, "-q"])
        #expect(again.status == 0 && !again.stderr.contains("note"))
        #expect(try Data(contentsOf: path) == ours)
    }

    @Test func webDatasetShardsHoldEveryCropThenItsLineAndAreTheSameBytesAgain() throws {
        let (work, output) = try dataset()
        defer { try? FileManager.default.removeItem(at: work) }
        let samples = try readManifest(output).filter { $0["status"] as? String == "ok" }
        #expect(samples.count >= 5)
        let shards = work.appendingPathComponent("wds")
        let result = try runFaceCrop(["export", "webdataset", output.path, shards.path, "--shard-size", "2", "-q"])
        #expect(result.status == 0, "\(result.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: shards.path).sorted()
        #expect(names == (0..<(samples.count + 1) / 2).map { ExportCommand.shardName($0) })

        // GNU tar lists the members: crop then JSON, keys in manifest order.
        var members: [String] = []
        for name in names {
            let listing = try runTool("/usr/bin/tar", ["-tvf", shards.appendingPathComponent(name).path])
            for line in listing.split(separator: "\n") {
                #expect(line.hasPrefix("-rw-r--r-- 0/0 "))
                #expect(line.contains(" 1970-01-01 00:00 "))
                members.append(String(line.split(separator: " ").last!))
            }
        }
        let expected = samples.flatMap { sample -> [String] in
            let (key, ext) = ExportCommand.key(forCrop: sample["crop"] as! String)
            return [key + "." + ext, key + ".json"]
        }
        #expect(members == expected)
        #expect(members.allSatisfy { $0.split(separator: ".").count == 2 && !$0.contains("/") })

        // Again into another folder: the same bytes; into the same one with
        // bigger shards: the stale ones go.
        let again = work.appendingPathComponent("again")
        #expect(try runFaceCrop(["export", "webdataset", output.path, again.path, "--shard-size=2", "-q"]).status == 0)
        #expect(try fingerprint(again) == fingerprint(shards))
        #expect(try runFaceCrop(["export", "webdataset", output.path, shards.path, "-q"]).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: shards.path) == [ExportCommand.shardName(0)])
    }

    @Test(arguments: [
        ("faces/a.jpg.face0.jpg", "faces%2Fa%2Ejpg%2Eface0", "jpg"),
        ("100%/b.c/x.PNG", "100%25%2Fb%2Ec%2Fx", "png"),
        ("plain.webp", "plain", "webp"),
    ])
    func keysHaveNoDotOrSlashAndKeepEveryOtherCharacter(crop: String, key: String, ext: String) {
        #expect(ExportCommand.key(forCrop: crop) == (key, ext))
    }

    @Test func aNameLongerThanUstarsHundredBytesGoesInAPaxHeader() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let path = work.appendingPathComponent("long.tar").path
        let long = String(repeating: "k", count: 150) + "%2Fé.jpg"
        let writer = try TarWriter(path: path, temporaries: TemporaryFiles())
        try writer.add(name: long, contents: Array("hello".utf8))
        try writer.add(name: "short.json", contents: Array("{}".utf8))
        try writer.commit()
        // `--quoting-style=literal`: GNU tar escapes the name's é as \303\251
        // in a locale without UTF-8 (LANG unset, as on a fresh CI machine);
        // literal prints the name's bytes whatever the locale.
        #expect(try runTool("/usr/bin/tar", ["--quoting-style=literal", "-tf", path]) == long + "\nshort.json\n")
        #expect(try runTool("/usr/bin/tar", ["-xOf", path, long]) == "hello")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        #expect(size % TarWriter.record == 0)
    }

    @Test func exportUsageErrorsAndAMissingDataset() throws {
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let help = try runFaceCrop(["export", "--help"])
        #expect(help.status == 0 && help.stdout.hasPrefix(ExportCommand.usage))
        for arguments in [["export"], ["export", "zip", "a", "b"], ["export", "webdataset", "a"],
            ["export", "webdataset", "a", "b", "--shard-size", "0"], ["export", "webdataset", "a", "b", "--frobnicate"]]
        {
            let result = try runFaceCrop(arguments)
            #expect(result.status == 64)
            #expect(result.stderr.hasPrefix("Error: "))
            #expect(result.stderr.hasSuffix("\(ExportCommand.usage)\nSee 'facecrop export --help' for more information.\n"))
        }
        let missing = try runFaceCrop(["export", "webdataset", work.appendingPathComponent("nope").path, work.path + "/o"])
        #expect(missing.status == 66)
        let notDataset = try runFaceCrop(["export", "webdataset", work.path, work.path + "/o"])
        #expect(notDataset.status == 66)
        #expect(notDataset.stderr.contains("not a facecrop dataset"))
    }
}

/// Runs a tool and returns its stdout (it must exit 0).
func runTool(_ tool: String, _ arguments: [String]) throws -> String {
    let result = try runFaceCrop(arguments, through: [tool])
    #expect(result.status == 0, "\(tool): \(result.stderr)")
    return result.stdout
}
