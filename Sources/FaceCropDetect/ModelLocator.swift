import Foundation
import FaceCropCore

/// Where `--detector yunet` and `--detector centerface` find their model
/// when --model is not given.
package enum ModelLocator {
    package static func fileName(_ kind: DetectorKind) -> String {
        kind == .centerface ? "centerface-int8.onnx" : "face_detection_yunet_2023mar.onnx"
    }

    /// The script of a checkout that fetches the model.
    package static func fetchScript(_ kind: DetectorKind) -> String {
        kind == .centerface ? "scripts/make-centerface-models" : "scripts/fetch-yunet"
    }

    /// The folders searched, in order: $FACECROP_MODEL (a file; YuNet) or
    /// $FACECROP_CENTERFACE_MODEL (CenterFace), the install's share folder
    /// (`PREFIX/share/facecrop/`, beside the binary's `bin/`, where
    /// scripts/install and the .deb put it), then `models/` in the current
    /// directory (where scripts/fetch-yunet and scripts/make-centerface-models
    /// put it). CenterFace's is the int8 model made for ONNX Runtime, its
    /// first convolution, heads and finest neck level in floats: 1.7x the
    /// photos a second of fp32 at less memory, one dev-set face apart
    /// (docs/centerface.md, "Choosing the default model").
    package static func candidates(
        _ kind: DetectorKind = .yunet, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> [String] {
        var paths: [String] = []
        let variable = kind == .centerface ? "FACECROP_CENTERFACE_MODEL" : "FACECROP_MODEL"
        if let given = environment[variable], !given.isEmpty { paths.append(given) }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        paths.append(prefix.appendingPathComponent("share/facecrop/\(fileName(kind))").path)
        paths.append(FileManager.default.currentDirectoryPath + "/models/\(fileName(kind))")
        return paths
    }

    /// --model if given, else the first candidate that exists; nil: none does.
    package static func resolve(_ given: String?, kind: DetectorKind = .yunet) -> String? {
        if let given { return given }
        return candidates(kind).first { FileManager.default.isReadableFile(atPath: $0) }
    }

    /// Says where it looked and how to get the model.
    package static func missingReason(_ kind: DetectorKind) -> String {
        let name = kind == .centerface ? "CenterFace" : "YuNet"
        let variable = kind == .centerface ? "FACECROP_CENTERFACE_MODEL" : "FACECROP_MODEL"
        return "no \(name) model found (looked in \(candidates(kind).map { "'\($0)'" }.joined(separator: ", "))); "
            + "run \(fetchScript(kind)) from a facecrop checkout, or install facecrop with scripts/install or its .deb, "
            + "or pass --model FILE.onnx or set \(variable)"
    }
}
