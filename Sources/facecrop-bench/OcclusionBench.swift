/// `facecrop-bench occlusion PHOTOS... [OPTIONS]`: the covered-face measure's
/// inputs for every face the run's detection measures (largest first), one
/// JSON line a photo: each region's pixel count, grey mean and spread, mean
/// sRGB and edge energy, and the face mesh's face score. What scripts/fit-occlusion
/// fits `FaceOcclusion`'s models on; nothing is written.
import Foundation
import FaceCropCore
import FaceCropDetect
import FaceCropImaging
import FaceCropInputs
import FaceCropKit

enum OcclusionBench {
    /// The faces heard, in the order measured (one thread: one photo at a time).
    final class Heard: @unchecked Sendable {
        var faces: [JSON] = []
    }

    static func run(_ options: Options) throws(FaceCropError) -> Int32 {
        try Vips.start()
        let detector = try Detector(DetectorConfig.from(options), sharing: nil)
        let walk = try PhotoFinder(include: options.include, exclude: options.exclude, followLinks: options.followLinks, output: nil,
            libraryEdits: options.libraryEdits, libraryDerivatives: options.libraryDerivatives)
            .walk(options.inputs)
        let processor = PhotoProcessor(settings: CropSettings(options), outputRoot: "/nonexistent", temporaries: TemporaryFiles())
        for item in walk {
            guard case .photo(let photo) = item else { continue }
            let heard = Heard()
            let hear: @Sendable ([String: FaceOcclusionRegions.Stats], Double) -> Void = { heard.faces.append(face($0, $1)) }
            let record = OcclusionProbe.$sink.withValue(hear) { processor.detect(photo, with: detector) }
            let line = JSON.object([
                ("file", .string(photo.path)), ("faces", .array(heard.faces)), ("found", .int(record.faces.count)),
            ])
            Terminal.stdout(line.serialized() + "\n")
        }
        return ExitStatus.success
    }

    static func face(_ regions: [String: FaceOcclusionRegions.Stats], _ presence: Double) -> JSON {
        let parts = FaceOcclusionRegions.points.map { name, _ -> (String, JSON) in
            let s = regions[name] ?? FaceOcclusionRegions.Stats(count: 0, mean: 0, sd: 0, rgb: (0, 0, 0))
            let values: [JSON] = [
                .int(s.count), .double(s.mean), .double(s.sd), .double(s.rgb.r), .double(s.rgb.g), .double(s.rgb.b), .double(s.edge),
            ]
            return (name, .array(values))
        }
        return .object([("presence", .double(presence)), ("regions", .object(parts))])
    }
}
