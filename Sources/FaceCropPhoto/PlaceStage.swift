/// Where each face's crop is cut and what it is called: pure geometry.
import FaceCropCore
import FaceCropImaging

package struct Placement: Equatable {
    /// How each face is cropped (`--align`): the square it is cut from or
    /// covers, in full-resolution upright pixels (may reach past the photo),
    /// and the warp of a turned crop.
    package var faces: [AlignedFace]
    package var squares: [PixelSquare] { faces.map(\.square) }
    /// Each crop's file, relative to `-o`.
    package var names: [String]
    /// The smallest decode scale that still gives every crop its full resolution.
    package var decodeScale: Double
    /// The part of the photo the crops are cut from.
    package var cover: PixelRect
}

/// Stage 4: the crop squares of the faces kept, and the crops' names.
package enum PlaceStage {
    package static func place(_ faces: [FoundFace], full: (width: Int, height: Int), prefix: String, settings: CropSettings)
        -> Placement
    {
        let aligned = faces.map {
            Alignment.place(
                box: $0.box, landmarks: $0.landmarks, eyeAngle: $0.angle, mode: settings.align, size: settings.size,
                margin: settings.margin, width: full.width, height: full.height, inside: settings.pad.keepsInside,
                turned: $0.turned, levelLimit: settings.levelLimit)
        }
        let squares = aligned.map(\.square)
        return Placement(
            faces: aligned,
            names: faces.indices.map { cropName(prefix: prefix, index: $0, format: settings.format, target: settings.target) },
            decodeScale: CropGeometry.decodeScale(for: squares, outputSide: settings.size),
            cover: CropGeometry.cover(
                squares, grow: Alignment.coverGrow(settings.align, size: settings.size), width: full.width,
                height: full.height))
    }

    /// The faces' quality records completed by where their crops lie, and
    /// scored; and each face's status: `.lowQuality` where `--min-face-quality`
    /// or `--max-yaw` leaves it out, else `.ok`.
    package static func rate(
        _ faces: inout [FoundFace], _ placement: Placement, full: (width: Int, height: Int), settings: CropSettings,
        jpegQuality: Int? = nil
    ) -> [FaceStatus] {
        faces.indices.map { index in
            guard var quality = faces[index].quality else { return .ok }
            quality.setJPEG(quality: jpegQuality)
            quality.place(placement.faces[index], side: settings.size, full: full)
            quality.rate()
            let status = quality.leftOut(
                minScore: settings.minFaceQuality, maxYaw: settings.maxYaw, eyesOpen: settings.eyes == .open) ? FaceStatus.lowQuality : .ok
            faces[index].quality = quality
            return status
        }
    }

    /// `trip/IMG_1.heic` -> `trip/IMG_1.heic.face0.jpg`: the photo's whole name
    /// is kept, so `a.jpg` and `a.heic` never share a crop name, and the same
    /// photo always gets the same names.
    package static func cropName(prefix: String, index: Int, format: OutputFormat, target: Target = .face) -> String {
        "\(prefix).\(target == .face ? "face" : target.rawValue)\(index).\(format.fileExtension)"
    }
}
