import Foundation

/// Where `--detector yunet` finds its model when --model is not given.
enum ModelLocator {
    static let fileName = "face_detection_yunet_2023mar.onnx"

    /// The folders searched, in order: $FACECROP_MODEL (a file), the install's
    /// share folder (`PREFIX/share/facecrop/`, beside the binary's `bin/`, where
    /// scripts/install and the .deb put it), then `models/` in the current
    /// directory (where scripts/fetch-yunet puts it).
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var paths: [String] = []
        if let given = environment["FACECROP_MODEL"], !given.isEmpty { paths.append(given) }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        paths.append(prefix.appendingPathComponent("share/facecrop/\(fileName)").path)
        paths.append(FileManager.default.currentDirectoryPath + "/models/\(fileName)")
        return paths
    }

    /// --model if given, else the first candidate that exists; nil: none does.
    static func resolve(_ given: String?) -> String? {
        if let given { return given }
        return candidates().first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Says where it looked and how to get the model.
    static var missingReason: String {
        "no YuNet model found (looked in \(candidates().map { "'\($0)'" }.joined(separator: ", "))); "
            + "run scripts/fetch-yunet from a facecrop checkout, or install facecrop with scripts/install or its .deb, "
            + "or pass --model FILE.onnx or set FACECROP_MODEL"
    }
}
