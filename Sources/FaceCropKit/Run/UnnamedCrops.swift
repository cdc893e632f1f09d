import Foundation
import FaceCropCore
import FaceCropOutput

/// `--check`: crop files in the output folder that no manifest line names
/// (a crop left behind by an older `--no-prune`, which dropped the lines of
/// photos not found and kept their files, or a file copied in by hand).
/// A crop file is one named as a run names crops (`PlaceStage.cropName`:
/// `….face0.jpg`, `….upperbody1.png`); the dataset's other files, and
/// `.facecrop/`, are not looked at, nor an input folder inside the output.
///
/// The names are held once in memory, the files found and then those the
/// manifests name struck off (one line at a time): what it holds grows
/// with the number of crop files, as the prune step's does on a rerun with
/// new settings.
package enum UnnamedCrops {
    /// Crop files (relative to `output`) that no `manifest*.jsonl` of the
    /// folder names (every shard's too, when shards share it), in byte order.
    package static func find(output: String, inputs: [String] = []) -> [String] {
        let skipped = inputsInside(output, inputs: inputs)
        var files = Set<String>()
        guard let walk = FileManager.default.enumerator(atPath: output) else { return [] }
        while let relative = walk.nextObject() as? String {
            if relative == StateStore.folderName || skipped.contains(relative) {
                walk.skipDescendants()
                continue
            }
            if isCropName(relative) { files.insert(relative) }
        }
        guard !files.isEmpty else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: output)) ?? []
        for name in names where isManifestName(name) {
            for line in ManifestLines(path: output + "/" + name) where !line.crop.isEmpty {
                files.remove(line.crop)
                if files.isEmpty { return [] }
            }
        }
        return files.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// `manifest.jsonl`, or a shard's `manifest.shard-K-of-N.jsonl`.
    static func isManifestName(_ name: String) -> Bool {
        name == Manifest.fileName || (name.hasPrefix("manifest.shard-") && name.hasSuffix(".jsonl"))
    }

    /// Whether a file's name ends as a crop's: `.<target><number>.<format>`.
    package static func isCropName(_ path: String) -> Bool {
        let parts = (path as NSString).lastPathComponent.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, OutputFormat(rawValue: String(parts[parts.count - 1])) != nil else { return false }
        let face = parts[parts.count - 2]
        let digits = face.reversed().prefix { $0.isASCII && $0.isNumber }.count
        guard digits > 0 else { return false }
        let target = String(face.dropLast(digits))
        return Target.allCases.contains { ($0 == .face ? "face" : $0.rawValue) == target }
    }

    /// The inputs that lie inside `output`, relative to it.
    private static func inputsInside(_ output: String, inputs: [String]) -> Set<String> {
        guard let root = realPath(output) else { return [] }
        return Set(inputs.compactMap { input in
            guard let path = realPath(input), path.hasPrefix(root + "/") else { return nil }
            return String(path.dropFirst(root.count + 1))
        })
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
