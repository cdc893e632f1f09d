// facecrop-bench people N: --people's grouping on N generated descriptors
// (PeopleBench); prints one JSON line with the times and the peak resident
// memory. Used by scripts/bench-people. `names N`: the people file's step
// (NamesBench); `dedup N [both|index|pairwise]`: --dedup's grouping
// (DedupBench), the index, the pairwise reference, or both. The inputs come
// from FaceCropKit's Generated/ folder, which the tests share. `quality N`:
// the quality record of the faces of Fixtures/faces (their boxes from
// Fixtures/expected.json) made N times over (QualityBench).
import Foundation
import FaceCropCore
import FaceCropKit

let arguments = CommandLine.arguments
// floor PHOTOS... [OPTIONS]: decode at the detection size and one detection
// pass a photo, with facecrop's options (FloorBench); used by scripts/bench.
if arguments.count >= 2, arguments[1] == "floor" {
    do throws(FaceCropError) {
        let options = try OptionTable.parse(Array(arguments.dropFirst(2)), requireOutput: false)
        exit(try await FloorBench.run(options, stop: StopRequest()))
    } catch {
        FileHandle.standardError.write(Data("facecrop-bench: \(error.description)\n".utf8))
        exit(error.exitStatus)
    }
}
// occlusion PHOTOS... [OPTIONS]: the covered-face measure's inputs a face
// (OcclusionBench); used by scripts/fit-occlusion.
if arguments.count >= 2, arguments[1] == "occlusion" {
    do throws(FaceCropError) {
        exit(try OcclusionBench.run(try OptionTable.parse(Array(arguments.dropFirst(2)), requireOutput: false)))
    } catch {
        FileHandle.standardError.write(Data("facecrop-bench: \(error.description)\n".utf8))
        exit(error.exitStatus)
    }
}
// people N [EFFORT] [recall]: EFFORT is the graph's ef_construction (0 or
// none: the default); `recall` adds the neighbours' recall on 2,000 rows.
// dedup N [both|index|pairwise]: the index, every pair, or both (checked equal).
let extra = Array(arguments.dropFirst(3))
let dedupModes = ["both", "index", "pairwise"]
let effort = extra.compactMap { Int($0) }.first ?? 0
let wantsRecall = extra.contains("recall")
let extraFits =
    arguments.count >= 3 && arguments[1] == "dedup"
    ? extra.count <= 1 && extra.allSatisfy(dedupModes.contains)
    : extra.allSatisfy({ Int($0) != nil || $0 == "recall" })
guard arguments.count >= 3, ["people", "names", "dedup", "quality"].contains(arguments[1]), let count = Int(arguments[2]), count > 0,
    extraFits
else {
    FileHandle.standardError.write(
        Data("usage: facecrop-bench people N [EFFORT] [recall] | names N | dedup N [both|index|pairwise] | quality N\n".utf8))
    exit(64)
}
if arguments[1] == "quality" {
    let figures = try QualityBench.run(rounds: count)
    print(
        "{\"records\": \(figures.records), \"cpu_s\": \(String(format: "%.3f", figures.cpuSeconds)), "
            + "\"cpu_ms_per_face\": \(String(format: "%.2f", figures.cpuSeconds / Double(max(1, figures.records)) * 1000)), "
            + "\"peak_rss_mb\": \(peakMB())}")
    exit(0)
}
if arguments[1] == "names" {
    let figures = NamesBench.run(faces: count)
    print(
        "{\"faces\": \(figures.faces), \"statements\": \(figures.statements), \"people\": \(figures.people), "
            + "\"unassigned\": \(figures.unassigned), \"apply_s\": \(String(format: "%.3f", figures.applySeconds)), "
            + "\"peak_rss_mb\": \(peakMB())}")
    exit(0)
}
if arguments[1] == "dedup" {
    let mode = arguments.count == 4 ? arguments[3] : "both"
    let figures = DedupBench.run(faces: count, index: mode != "pairwise", pairwise: mode != "index")
    func number(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "null" }
    print(
        "{\"faces\": \(figures.faces), \"duplicates\": \(figures.duplicates), \"generate_s\": \(number(figures.generateSeconds)), "
            + "\"index_s\": \(mode == "pairwise" ? "null" : number(figures.indexSeconds)), \"index_cpu_s\": \(mode == "pairwise" ? "null" : number(figures.indexCPUSeconds)), "
            + "\"index_peak_rss_mb\": \(mode == "pairwise" ? "null" : String(figures.indexPeakMB)), "
            + "\"pairwise_s\": \(number(figures.pairwiseSeconds)), \"pairwise_cpu_s\": \(number(figures.pairwiseCPUSeconds)), "
            + "\"same\": \(figures.same.map { String($0) } ?? "null"), \"peak_rss_mb\": \(peakMB())}")
    exit(figures.same == false ? 1 : 0)
}
let figures = try PeopleBench.run(faces: count, buildEffort: effort, recall: wantsRecall)
print(
    "{\"faces\": \(figures.faces), \"people\": \(figures.people), \"grouped\": \(figures.grouped), "
        + "\"generate_s\": \(String(format: "%.2f", figures.generateSeconds)), "
        + "\"group_s\": \(String(format: "%.2f", figures.groupSeconds)), \"peak_rss_mb\": \(peakMB()), "
        + "\"pairwise_p\": \(String(format: "%.4f", figures.pairwise.precision)), "
        + "\"pairwise_r\": \(String(format: "%.4f", figures.pairwise.recall)), "
        + "\"pairwise_f\": \(String(format: "%.4f", figures.pairwise.f)), "
        + "\"recovered\": \(figures.recovered), \"true_people\": \(figures.truePeople), "
        + "\"strangers_grouped\": \(figures.strangersGrouped)"
        + (figures.recall.map { ", \"recall16\": \(String(format: "%.4f", $0.all)), \"recall_r05\": \(String(format: "%.5f", $0.withinRadius))" } ?? "")
        + "}")
