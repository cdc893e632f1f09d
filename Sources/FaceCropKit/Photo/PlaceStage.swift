/// Where each face's crop is cut and what it is called: pure geometry.
struct Placement: Equatable {
    /// Each face's square, in full-resolution upright pixels (may reach past the photo).
    var squares: [PixelSquare]
    /// Each crop's file, relative to `-o`.
    var names: [String]
    /// Each crop's turn in degrees (`--align`), nil where it stays as it is.
    var angles: [Double?]
    /// The smallest decode scale that still gives every crop its full resolution.
    var decodeScale: Double
    /// The part of the photo the crops are cut from.
    var cover: PixelRect
}

/// Stage 4: the crop squares of the faces kept, and the crops' names.
enum PlaceStage {
    static func place(_ faces: [FoundFace], full: (width: Int, height: Int), prefix: String, settings: CropSettings)
        -> Placement
    {
        let squares = faces.map {
            CropGeometry.cropSquare(around: $0.box, margin: settings.margin, imageWidth: full.width, imageHeight: full.height)
        }
        return Placement(
            squares: squares,
            names: faces.indices.map { cropName(prefix: prefix, index: $0, format: settings.format, target: settings.target) },
            // --align: level the eye line, unless the eyes were not found or
            // the turn is implausibly large for a face (then kept as it is).
            angles: faces.map { face in settings.align ? face.angle.flatMap { abs($0) <= 45 ? $0 : nil } : nil },
            decodeScale: CropGeometry.decodeScale(for: squares, outputSide: settings.size),
            cover: CropGeometry.cover(squares, grow: settings.align ? 0.25 : 0, width: full.width, height: full.height))
    }

    /// `trip/IMG_1.heic` -> `trip/IMG_1.heic.face0.jpg`: the photo's whole name
    /// is kept, so `a.jpg` and `a.heic` never share a crop name, and the same
    /// photo always gets the same names.
    static func cropName(prefix: String, index: Int, format: OutputFormat, target: Target = .face) -> String {
        "\(prefix).\(target == .face ? "face" : target.rawValue)\(index).\(format.fileExtension)"
    }
}
