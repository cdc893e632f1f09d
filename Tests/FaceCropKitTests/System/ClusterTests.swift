import Foundation
import Testing


/// Shards as a cluster runs them: the Kubernetes manifests' own commands, the
/// merged `run` section, clips after a merge. (scripts/test-slurm runs
/// scripts/slurm-array.sh on a real Slurm cluster.)
@Suite(.serialized)
struct ClusterTests {
    /// A manifest's `command:` (written as a JSON array on one line) with
    /// `/data` moved to `data` and Kubernetes' `$(NAME)` references expanded.
    func command(in manifest: String, data: URL, variables: [String: String]) throws -> [String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/\(manifest)"), encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("command:") })
        let array = line.drop { $0 != "[" }
        let words = try #require(try JSONSerialization.jsonObject(with: Data(array.utf8)) as? [String])
        return words.map { word in
            var word = word.hasPrefix("/data/") ? data.path + word.dropFirst("/data".count) : word
            for (name, value) in variables { word = word.replacingOccurrences(of: "$(\(name))", with: value) }
            return word
        }
    }

    func stats(_ path: URL) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as! [String: Any]
    }

    @Test func theIndexedJobsCommandAtEveryIndexThenTheMergeJobGiveTheSingleRun() throws {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/k8s-indexed-job.yaml"), encoding: .utf8)
        #expect(text.contains("\n  completionMode: Indexed\n"))
        let completions = try #require(
            text.split(separator: "\n").first { $0.hasPrefix("  completions: ") }.flatMap { Int($0.split(separator: " ").last!) })
        let work = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let data = work.appendingPathComponent("data")
        let photos = data.appendingPathComponent("photos")
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try copyFixtures(["faces", "noface"], into: photos)

        // Each pod: the same command, its own JOB_COMPLETION_INDEX, all at once.
        let pod = try command(in: "k8s-indexed-job.yaml", data: data, variables: ["CPUS": "1"])
        #expect(pod.first == "facecrop" && pod.contains("auto/\(completions)"))
        let statuses = try runAtOnce((0..<completions).map { (Array(pod.dropFirst()), $0) })
        #expect(statuses == Array(repeating: 0, count: completions))
        let merge = try command(in: "k8s-merge-job.yaml", data: data, variables: [:])
        #expect(Array(merge.prefix(2)) == ["facecrop", "merge"])
        let merged = try runFaceCrop(Array(merge.dropFirst()))
        #expect(merged.status == 0, "\(merged.stderr)")

        let single = work.appendingPathComponent("single")
        #expect(try runFaceCrop([photos.path, "-o", single.path, "-q"]).status == 0)
        let dataset = data.appendingPathComponent("dataset")
        #expect(try datasetBytes(dataset).filter { !$0.key.contains(".shard-") } == datasetBytes(single))
        #expect(try fingerprint(dataset).keys.filter { $0.hasPrefix("manifest.shard-") }.count == completions)
    }

    @Test func mergeReportsTheShardsTimesNotItsOwn() throws {
        let (work, photos) = try fixturePhotos(["faces", "noface"])
        defer { try? FileManager.default.removeItem(at: work) }
        let shared = work.appendingPathComponent("shared")
        for (index, jobs) in [(0, 2), (1, 1)] {
            let result = try runFaceCrop([photos.path, "-o", shared.path, "--shard", "\(index)/2", "--jobs", "\(jobs)", "-q"])
            #expect(result.status == 0)
        }
        let merged = work.appendingPathComponent("merged")
        let result = try runFaceCrop(["merge", merged.path, shared.path, "--json", "-q"])
        #expect(result.status == 0, "\(result.stderr)")

        let shards = try (0..<2).map { try stats(shared.appendingPathComponent("stats.shard-\($0)-of-2.json"))["run"] as! [String: Any] }
        func number(_ run: [String: Any], _ key: String) -> Double { (run[key] as! NSNumber).doubleValue }
        let run = try stats(merged.appendingPathComponent("stats.json"))["run"] as! [String: Any]
        let printed = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])["run"] as! [String: Any]
        #expect(NSDictionary(dictionary: printed) == NSDictionary(dictionary: run))
        #expect(run["shards"] as? Int == 2)
        #expect(run["jobs"] as? Int == 3)
        #expect(run["processed"] as? Int == 8 && run["reused"] as? Int == 0)
        #expect(abs(number(run, "processing_s") - shards.map { number($0, "elapsed_s") }.reduce(0, +)) < 0.002)
        // The shards ran one after the other: first start to last finish.
        #expect(number(run, "started") == number(shards[0], "started"))
        #expect(number(run, "finished") == number(shards[1], "finished"))
        #expect(number(shards[0], "finished") <= number(shards[1], "started") + 0.001)
        #expect(abs(number(run, "elapsed_s") - (number(run, "finished") - number(run, "started"))) < 0.002)
        #expect(number(run, "elapsed_s") >= number(run, "processing_s") - 0.002)
        #expect(number(run, "merge_s") > 0 && number(run, "merge_s") < number(run, "elapsed_s"))
        // Each shard's own time is its run's: it started `elapsed_s` before it finished.
        for shard in shards {
            #expect(abs(number(shard, "finished") - number(shard, "started") - number(shard, "elapsed_s")) < 0.002)
        }
        #expect(result.stderr.isEmpty)
    }

    /// `merge` does not write clips: a run with `--clip` over the merged
    /// folder does, reusing every photo, and gives the single run's clip.
    @Test func aClipRunOverTheMergedFolderGivesTheSingleRunsClip() throws {
        let (work, photos) = try fixturePhotos(["faces", "noface"])
        defer { try? FileManager.default.removeItem(at: work) }
        let shared = work.appendingPathComponent("shared")
        for index in 0..<2 {
            #expect(try runFaceCrop([photos.path, "-o", shared.path, "--shard", "\(index)/2", "-q"]).status == 0)
        }
        #expect(try runFaceCrop(["merge", shared.path, shared.path, "-q"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: shared.appendingPathComponent("clips.jsonl").path))
        let clipOptions = ["--clip-size", "64", "--clip-hold", "2"]
        let clipped = try runFaceCrop(
            [photos.path, "-o", shared.path, "--clip", shared.appendingPathComponent("faces.mov").path, "-q", "--json"] + clipOptions)
        #expect(clipped.status == 0, "\(clipped.stderr)")
        let run = (try JSONSerialization.jsonObject(with: Data(clipped.stdout.utf8)) as! [String: Any])["run"] as! [String: Any]
        #expect(run["processed"] as? Int == 0 && run["reused"] as? Int == 8)

        let single = work.appendingPathComponent("single")
        let direct = try runFaceCrop(
            [photos.path, "-o", single.path, "--clip", single.appendingPathComponent("faces.mov").path, "-q"] + clipOptions)
        #expect(direct.status == 0)
        let sharedBytes = try datasetBytes(shared).filter { !$0.key.contains(".shard-") }
        #expect(sharedBytes == (try datasetBytes(single)))
        #expect(sharedBytes["faces.mov"] != nil && sharedBytes["clips.jsonl"] != nil)
    }
}
