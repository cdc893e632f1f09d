/// What the quality record costs, for `facecrop-bench quality`: the record
/// of given faces made as a run with the default detector makes it (dlib's
/// five points on the box, the measures on the photo's decode at 1024 px,
/// the score), without the detection around it. The photos are decoded
/// once, when it is made; `measure` is what the bench times.
import FaceCropCore
import FaceCropImaging
import FaceCropDetect

package struct QualityCost {
    private let landmarker: Landmarker
    private let photos: [(gray: GrayImage, full: (width: Int, height: Int), boxes: [PixelRect])]

    /// `faces`: each photo's path and its boxes in upright photo pixels.
    package init(_ faces: [(path: String, boxes: [[Int]])]) throws {
        guard let model = PeopleModels.resolveLandmarks() else {
            throw FaceCropError.peopleModelsUnavailable("no \(PeopleModels.landmarks) (scripts/fetch-dlib-models)")
        }
        landmarker = try Landmarker(path: model)
        photos = try faces.map { path, boxes in
            let bytes = try PhotoBytes(path: path, source: path)
            let header = try Picture.header(of: bytes, source: path)
            let gray = try Picture.load(bytes, header: header, minScale: 0, fittingIn: 1024, 1024, source: path)
                .grayPixels(source: path)
            return (gray, (header.width, header.height), boxes.map { PixelRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) })
        }
    }

    /// Every face's record made once; the number of records.
    package func measure() throws -> Int {
        var records = 0
        for (gray, full, boxes) in photos {
            for fullBox in boxes {
                let box = CropGeometry.map(fullBox, from: full, to: (gray.width, gray.height))
                let points = try landmarker.find(box, in: gray, full: full, source: "")
                var quality = FaceQuality(box: box, in: gray, points: points, fromDlib: true, full: full, fullBox: fullBox)
                quality.rate()
                records += 1
            }
        }
        return records
    }
}
