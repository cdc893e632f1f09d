import CFaceDetect
import Foundation
import FaceCropCore
import FaceCropImaging

/// Where `--people` finds its two models (no flag): $FACECROP_DLIB_MODELS
/// (a folder), the install's share folder (`PREFIX/share/facecrop/`, where
/// scripts/install and the .deb put them), then `models/` in the current
/// directory (where scripts/fetch-dlib-models puts them).
package enum PeopleModels {
    /// dlib's face recognition ResNet as ONNX, made by scripts/fetch-dlib-models
    /// from dlib's `dlib_face_recognition_resnet_model_v1.dat`.
    package static let descriptor = "dlib-descriptor.onnx"
    package static let landmarks = "shape_predictor_5_face_landmarks.dat"

    package static func folders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var folders: [String] = []
        if let given = environment["FACECROP_DLIB_MODELS"], !given.isEmpty { folders.append(given) }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let prefix = binary.deletingLastPathComponent().deletingLastPathComponent()
        folders.append(prefix.appendingPathComponent("share/facecrop").path)
        folders.append(FileManager.default.currentDirectoryPath + "/models")
        return folders
    }

    /// The first folder holding both files; nil: none does.
    package static func resolve() -> PeopleModelPaths? {
        for folder in folders() {
            let (d, l) = (folder + "/" + descriptor, folder + "/" + landmarks)
            if FileManager.default.isReadableFile(atPath: d), FileManager.default.isReadableFile(atPath: l) {
                return PeopleModelPaths(descriptor: d, landmarks: l)
            }
        }
        return nil
    }

    /// The 5-point predictor alone (the quality record's pose of faces
    /// without landmarks): the first of the folders holding it.
    package static func resolveLandmarks() -> String? {
        folders().map { $0 + "/" + landmarks }.first { FileManager.default.isReadableFile(atPath: $0) }
    }

    package static var missingReason: String {
        "--people needs \(descriptor) (dlib's face descriptor, CC0, as ONNX) and dlib's \(landmarks) (CC0), found in none of "
            + folders().map { "'\($0)'" }.joined(separator: ", ")
            + "; run scripts/fetch-dlib-models from a facecrop checkout, or install facecrop with scripts/install or its .deb, "
            + "or set FACECROP_DLIB_MODELS to a folder holding both"
    }
}

package struct PeopleModelPaths: Sendable, Equatable {
    package var descriptor: String
    package var landmarks: String
}

/// dlib's face descriptor network on ONNX Runtime, with the landmark
/// predictor it makes the chip with. One for the process: the workers
/// describe faces at once through the one session (each run has its own
/// buffers, on the calling thread), so the network's weights are held once.
/// The shim's handle is only read after it is made, and its session is
/// thread-safe: that makes the `@unchecked Sendable` sound.
package final class Embedder: @unchecked Sendable {
    private let handle: OpaquePointer
    /// Kept so that the runtime outlives the session.
    private let runtime: OnnxRuntime
    /// The 5-point predictor (`Landmarker`, one a process).
    package let predictor: Landmarker
    /// The side of the square the face is resampled into before dlib looks
    /// at it: the box fills half of it (150 px, about the chip's own scale),
    /// so that its landmarks and a chip turned by any angle stay inside.
    package static let regionSide = 300

    /// The settings' value of the descriptor: which network on which
    /// runtime (a dataset described by another is described again).
    package static var settingsValue: String { "dlib-resnet-v1 \(OnnxRuntime.settingsValue)" }

    /// Loads the network from `model` on ONNX Runtime (loaded now if no
    /// network detector has: exit 69 without it), then takes the predictor
    /// from `predictor` (loaded or shared): a broken network is reported first.
    ///
    /// One thread a pass, with the arena off: the workers are the
    /// parallelism (at --jobs 2 two passes run at once), and a pass on a
    /// 150 px chip gains nothing from a second thread on busy cores
    /// (docs/people.md, "The descriptor on ONNX Runtime").
    package init(model: String, predictor: () throws(FaceCropError) -> Landmarker) throws(FaceCropError) {
        let runtime = try OnnxRuntime.shared()
        var options = OnnxRuntime.sessionOptions()
        options.intra_op_threads = 1
        handle = try openHandle({ CFaceDetect_EmbedderNew(runtime.pointer, model, &options, &$0, &$1) }) {
            .peopleModelsUnavailable($0)
        }
        self.runtime = runtime
        do {
            self.predictor = try predictor()
        } catch {
            CFaceDetect_EmbedderClose(handle)
            throw error
        }
    }

    deinit { CFaceDetect_EmbedderClose(handle) }

    /// Photo pixels -> the region `embed` is given for the face `box`.
    package static func region(of box: PixelRect, turned: QuarterTurn = .upright) -> Affine2D {
        let side = Double(max(box.width, box.height))
        let k = Double(regionSide) / (2 * side)
        let cx = Double(box.x) + Double(box.width) / 2, cy = Double(box.y) + Double(box.height) / 2
        let region = Affine2D(k, 0, Double(regionSide) / 2 - k * cx, 0, k, Double(regionSide) / 2 - k * cy)
        // A turned face is turned upright about the region's centre.
        return turned.isUpright ? region : region.then(turned.toUpright(width: regionSide + 1, height: regionSide + 1))
    }

    /// Which five points make the chip, read once from the environment
    /// (the one place): `FACECROP_CHIP_LANDMARKS=detector` uses the
    /// detector's own points where it found all five (YuNet, CenterFace);
    /// anything else, and always for faces without them (the cascades), dlib's
    /// 5-point predictor on the box. An internal switch for measuring (see
    /// docs/people.md, "Which landmarks make the chip"), not an option: the
    /// descriptors a dataset keeps do not record which was used.
    package static let chipFromDetector = ProcessInfo.processInfo.environment["FACECROP_CHIP_LANDMARKS"] == "detector"

    /// The points `embed` makes the chip from for a face with `landmarks`
    /// (photo pixels): nil, dlib's predictor.
    package static func chipLandmarks(_ landmarks: FaceLandmarks?) -> FaceLandmarks? {
        guard chipFromDetector, let landmarks, landmarks.estimated.isEmpty else { return nil }
        return landmarks
    }

    /// The descriptor of the face `box` (photo pixels) from `rgb`, the region
    /// `region(of: box)` maps out of the photo; the chip from `landmarks`
    /// (photo pixels, pixel-centre coordinates) when given, else from dlib's
    /// five points found in the box.
    package func embed(
        _ rgb: RGBImage, box: PixelRect, landmarks: FaceLandmarks? = nil, turned: QuarterTurn = .upright, source: String
    ) throws(FaceCropError) -> Embedding {
        let k = Double(Self.regionSide) / (2 * Double(max(box.width, box.height)))
        let size = turned.size(width: box.width, height: box.height)
        let (w, h) = (k * Double(size.width), k * Double(size.height))
        let toRegion = Self.region(of: box, turned: turned)
        let points: [Float]? = landmarks.map { marks in
            marks.points.flatMap { p -> [Float] in
                let q = toRegion.apply(Point2D(p.x + 0.5, p.y + 0.5))
                return [Float(q.x - 0.5), Float(q.y - 0.5)]
            }
        }
        var out = [Float](repeating: 0, count: Embedding.size)
        var message: UnsafeMutablePointer<CChar>?
        let status = rgb.pixels.withUnsafeBufferPointer { pixels in
            out.withUnsafeMutableBufferPointer { values in
                func call(_ five: UnsafePointer<Float>?) -> Int32 {
                    CFaceDetect_Embed(
                        handle, predictor.handle, pixels.baseAddress, Int32(rgb.width), Int32(rgb.height), rgb.width * 3,
                        (Double(rgb.width) - w) / 2, (Double(rgb.height) - h) / 2, w, h, five, values.baseAddress,
                        &message)
                }
                guard let points else { return call(nil) }
                return points.withUnsafeBufferPointer { call($0.baseAddress) }
            }
        }
        guard status == 0 else {
            throw .detectionFailed(source, reason: takeMessage(message, fallback: "face descriptor failed", free: CFaceDetect_Free))
        }
        return Embedding(out)
    }
}
