// facecrop-bench people N: --people's grouping on N generated descriptors
// (FaceCropKit.PeopleBench); prints one JSON line with the times and the
// peak resident memory. Used by scripts/bench-people. `names N`: the people
// file's step; `dedup N [both|index|pairwise]`: --dedup's grouping
// (FaceCropKit.DedupBench), the index, the pairwise reference, or both.
import FaceCropKit
import Foundation

let arguments = CommandLine.arguments
let dedupModes = ["both", "index", "pairwise"]
guard arguments.count == 3 || (arguments.count == 4 && arguments[1] == "dedup" && dedupModes.contains(arguments[3])),
    ["people", "names", "dedup"].contains(arguments[1]), let count = Int(arguments[2]), count > 0
else {
    FileHandle.standardError.write(Data("usage: facecrop-bench people|names N, facecrop-bench dedup N [both|index|pairwise]\n".utf8))
    exit(64)
}
func peakMB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { $0.split(separator: " ")[1] } ?? "0"
    return Int(peak)! / 1024
}
// facecrop-bench names N: the people file's step on N faces (FaceCropKit.NamesBench).
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
let figures = try PeopleBench.run(faces: count)
let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { $0.split(separator: " ")[1] } ?? "0"
print(
    "{\"faces\": \(figures.faces), \"people\": \(figures.people), \"grouped\": \(figures.grouped), "
        + "\"generate_s\": \(String(format: "%.2f", figures.generateSeconds)), "
        + "\"group_s\": \(String(format: "%.2f", figures.groupSeconds)), \"peak_rss_mb\": \(Int(peak)! / 1024)}")
