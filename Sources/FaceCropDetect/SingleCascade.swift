/// One cascade alone: `--detector haar` (faces, `--cascade`, default alt2:
/// the stock detector) and `--target upperbody`. Scores are the cascade's
/// level weights. With `--align` on faces, the eyes are looked for inside
/// each box to level the crop; nothing is dropped for lack of them.
///
/// Not thread-safe: owns cascades; used by one `Detector`.
import FaceCropCore
import FaceCropImaging

package final class SingleCascade: FaceFinder {
    private let cascade: Cascade
    private let minNeighbors: Int
    /// Faces with --align: the eyes' search.
    private let eyeSearch: EnsembleSearch?
    /// Faces: onto the other detectors' box convention.
    private let correction: Calibration.BoxCorrection?

    package init(_ config: DetectorConfig) throws(FaceCropError) {
        let faces = config.target == .face
        cascade = try Cascade(path: config.cascadePath)
        minNeighbors = config.minNeighbors
        if faces && config.needsEyes {
            eyeSearch = try EnsembleSearch(frontal: cascade, confirm: nil, folder: CascadeFolder(path: config.cascadeFolder))
        } else {
            eyeSearch = nil
        }
        correction = faces ? Calibration.boxCorrection(.haar) : nil
    }

    package func find(in gray: GrayImage, rgb: RGBImage?, minSide: Int, source: String) throws(FaceCropError) -> [Subject] {
        var parameters = Cascade.Parameters()
        parameters.minNeighbors = minNeighbors
        parameters.minSide = minSide
        var found = try cascade.detect(in: gray, parameters, source: source).map {
            Subject(box: $0.box, score: $0.score, eyes: nil)
        }
        if let eyeSearch {
            for index in found.indices {
                found[index].eyes = try eyeSearch.eyes(in: gray, box: found[index].box, source: source)
            }
        }
        guard let correction else { return found }
        return correction.apply(found, width: gray.width, height: gray.height)
    }
}
