import Foundation
import FaceCropCore

/// A network's model file: what its detector declares (`DetectorFacts.model`)
/// for `ModelLocator` to find it by.
package struct ModelFile: Sendable {
    /// The network's name in messages.
    package var network: String
    /// Its file name in the share folder and in `models/`.
    package var fileName: String
    /// The environment variable that names the file.
    package var variable: String
    /// The script of a checkout that fetches or makes it.
    package var fetchScript: String

    package init(network: String, fileName: String, variable: String, fetchScript: String) {
        (self.network, self.fileName, self.variable, self.fetchScript) = (network, fileName, variable, fetchScript)
    }
}

/// Where a network detector finds its model when --model is not given.
package enum ModelLocator {
    /// The folders searched, in order: the model's environment variable (a
    /// file), the install's share folder (`PREFIX/share/facecrop/`, beside
    /// the binary's `bin/`, where scripts/install and the .deb put it), then
    /// `models/` in the current directory (where the model's fetch script
    /// puts it).
    package static func candidates(
        _ model: ModelFile, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var paths: [String] = []
        if let given = environment[model.variable], !given.isEmpty { paths.append(given) }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        paths.append(prefix.appendingPathComponent("share/facecrop/\(model.fileName)").path)
        paths.append(FileManager.default.currentDirectoryPath + "/models/\(model.fileName)")
        return paths
    }

    /// --model if given, else the first candidate that exists; nil: none does.
    package static func resolve(_ given: String?, _ model: ModelFile) -> String? {
        if let given { return given }
        return candidates(model).first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// The config's model, or the error that says where it was looked for.
    package static func path(_ config: DetectorConfig, _ model: ModelFile) throws(FaceCropError) -> String {
        guard let path = config.modelPath else { throw .modelUnavailable("", reason: missingReason(model)) }
        return path
    }

    /// Says where it looked and how to get the model.
    package static func missingReason(_ model: ModelFile) -> String {
        "no \(model.network) model found (looked in \(candidates(model).map { "'\($0)'" }.joined(separator: ", "))); "
            + "run \(model.fetchScript) from a facecrop checkout, or install facecrop with scripts/install or its .deb, "
            + "or pass --model FILE.onnx or set \(model.variable)"
    }
}
