import Foundation
import FaceCropCore
import FaceCropImaging

/// A face a person tagged in the photo's XMP (digiKam, Lightroom, Picasa,
/// Windows Photo Gallery, Mylio...): its name (nil: unnamed, such as
/// digiKam's "Unknown") and its box in upright, full-resolution photo pixels.
package struct FaceTag: Sendable, Equatable {
    package var name: String?
    package var box: PixelRect
    /// The file that gave it (the sidecar's name, else the photo's), for messages.
    package var file = ""

    package init(name: String? = nil, box: PixelRect, file: String = "") {
        (self.name, self.box, self.file) = (name, box, file)
    }
}

/// Face regions read from XMP and turned into boxes (docs/libraries.md):
/// - MWG (`mwg-rs:Regions`, type Face, a normalised Area whose x and y are
///   its centre) and Microsoft's (`MPRI:Regions`, a normalised Rectangle
///   from its top-left corner). A photo's MWG regions are taken when it has
///   any, else its Microsoft ones (as digiKam and ExifToolGui read them).
/// - The areas are normalised, so a resized export whose AppliedToDimensions
///   differ from its pixels needs only those pixels.
/// - They are relative to the pixels as stored, before the EXIF orientation
///   turns them (MWG; digiKam writes them so), and are turned with the
///   photo. One exception: AppliedToDimensions with the upright photo's
///   shape, not the stored one's (a turned photo's regions written on the
///   photo as shown), are taken as upright already.
/// - A sidecar (`IMG.jpg.xmp`, else `IMG.xmp`) with face regions replaces
///   the embedded ones, as digiKam reads a sidecar over the file; without
///   face regions in it, the embedded ones count.
/// Anything unusable is a warning naming the file, and is skipped.
package enum FaceTags {
    package struct Read: Sendable, Equatable {
        package var tags: [FaceTag] = []
        package var warnings: [String] = []
    }

    /// The geometry of the photo the regions are on.
    package struct Frame: Sendable, Equatable {
        package var storedWidth: Int
        package var storedHeight: Int
        /// EXIF orientation 1...8.
        package var orientation: Int

        package var turned: Bool { orientation >= 5 }
        package var width: Int { turned ? storedHeight : storedWidth }
        package var height: Int { turned ? storedWidth : storedHeight }

        package init(storedWidth: Int, storedHeight: Int, orientation: Int) {
            (self.storedWidth, self.storedHeight, self.orientation) = (storedWidth, storedHeight, orientation)
        }
    }

    /// How much a region may reach past the photo's edge and be cut to it
    /// (tools round their areas); past that it is a bad region.
    package static let edgeTolerance = 0.02

    /// Sidecars larger than this are not read (a sidecar is a few KB).
    package static let largestSidecar = 16 << 20

    /// The photo's tags: from `sidecar` (a path) when it has face regions,
    /// else from `embedded` (the header's XMP packet). `source` names the
    /// photo in warnings.
    package static func read(embedded: [UInt8]?, sidecar: String?, frame: Frame, source: String) -> Read {
        var result = Read()
        if let sidecar {
            let name = (sidecar as NSString).lastPathComponent
            switch sidecarBytes(sidecar) {
            case .success(let bytes):
                switch XMPRegions.read(bytes) {
                case .success(let regions):
                    let read = tags(in: regions, frame: frame, file: name)
                    result.warnings += read.warnings
                    if !read.tags.isEmpty {
                        result.tags = read.tags
                        return result
                    }
                case .failure(let failure):
                    result.warnings.append("\(name): \(failure.reason); its face tags are skipped")
                }
            case .failure(let failure):
                result.warnings.append("\(name): \(failure.reason); its face tags are skipped")
            }
        }
        if let embedded, !embedded.isEmpty {
            switch XMPRegions.read(embedded) {
            case .success(let regions):
                let read = tags(in: regions, frame: frame, file: source)
                result.warnings += read.warnings
                result.tags = read.tags
            case .failure(let failure):
                result.warnings.append("\(source): embedded XMP: \(failure.reason); its face tags are skipped")
            }
        }
        return result
    }

    package static func sidecarBytes(_ path: String) -> Result<[UInt8], XMPFailure> {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(XMPFailure(reason: "cannot read the sidecar"))
        }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: largestSidecar + 1) else {
            return .failure(XMPFailure(reason: "cannot read the sidecar"))
        }
        if data.count > largestSidecar { return .failure(XMPFailure(reason: "sidecar larger than 16 MB")) }
        if data.isEmpty { return .failure(XMPFailure(reason: "empty sidecar")) }
        return .success(Array(data))
    }

    /// The face regions of one packet as boxes; `file` names it in warnings.
    package static func tags(in regions: XMPRegions, frame: Frame, file: String) -> Read {
        var result = Read()
        let mwg = regions.regions.filter { $0.schema == .mwg }
        let chosen = mwg.isEmpty ? regions.regions : mwg
        let upright = appliedIsUpright(regions, frame: frame)
        for region in chosen {
            let label = region.schema == .mwg ? "mwg-rs region \(region.position)" : "MP region \(region.position)"
            if let type = region.type?.trimmingCharacters(in: .whitespaces), !type.isEmpty,
                type.lowercased() != "face"
            {
                continue  // a pet, a focus point, a barcode
            }
            switch normalised(region) {
            case .failure(let failure):
                result.warnings.append("\(file): \(label): \(failure.reason); skipped")
            case .success(var area):
                let (left, top, right, bottom) = (area.x, area.y, area.x + area.w, area.y + area.h)
                let tolerance = edgeTolerance
                if left < -tolerance || top < -tolerance || right > 1 + tolerance || bottom > 1 + tolerance {
                    result.warnings.append("\(file): \(label): lies outside the photo; skipped")
                    continue
                }
                area = (max(0, left), max(0, top), min(1, right) - max(0, left), min(1, bottom) - max(0, top))
                let box = pixels(area, frame: frame, upright: upright)
                guard box.width > 0, box.height > 0 else {
                    result.warnings.append("\(file): \(label): smaller than a pixel; skipped")
                    continue
                }
                result.tags.append(FaceTag(name: usableName(region.name), box: box, file: file))
            }
        }
        return result
    }

    /// A tag's name as a person wrote it; nil for none, or digiKam's "Unknown".
    package static func usableName(_ name: String?) -> String? {
        guard let trimmed = name?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty,
            trimmed != "Unknown"
        else { return nil }
        return trimmed
    }

    package typealias Area = (x: Double, y: Double, w: Double, h: Double)

    /// The region's top-left corner and size, normalised, as stored.
    package static func normalised(_ region: XMPRegions.Region) -> Result<Area, XMPFailure> {
        let values: [Double?]
        switch region.schema {
        case .mwg:
            if let unit = region.unit?.trimmingCharacters(in: .whitespaces), !unit.isEmpty, unit != "normalized" {
                return .failure(XMPFailure(reason: "area unit '\(unit)' (only normalized is read)"))
            }
            guard region.x != nil || region.y != nil || region.w != nil || region.h != nil else {
                return .failure(XMPFailure(reason: "no area"))
            }
            values = [region.x, region.y, region.w, region.h].map(number)
        case .microsoft:
            guard let rectangle = region.rectangle else { return .failure(XMPFailure(reason: "no rectangle")) }
            let parts = rectangle.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4 else { return .failure(XMPFailure(reason: "rectangle '\(rectangle)' is not four numbers")) }
            values = parts.map(number)
        }
        guard values.allSatisfy({ $0 != nil }) else { return .failure(XMPFailure(reason: "area is not four numbers")) }
        let (a, b, w, h) = (values[0]!, values[1]!, values[2]!, values[3]!)
        guard w > 0, h > 0 else { return .failure(XMPFailure(reason: "zero or negative size")) }
        return .success(region.schema == .mwg ? (a - w / 2, b - h / 2, w, h) : (a, b, w, h))
    }

    private static func number(_ text: String?) -> Double? {
        guard let text, let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
        return value
    }

    /// Whether AppliedToDimensions has the upright photo's shape and not the
    /// stored one's (only a turned, non-square photo can tell).
    package static func appliedIsUpright(_ regions: XMPRegions, frame: Frame) -> Bool {
        guard frame.turned, frame.storedWidth != frame.storedHeight,
            let w = regions.appliedWidth.flatMap(number), let h = regions.appliedHeight.flatMap(number), w > 0, h > 0,
            w != h
        else { return false }
        return (w > h) == (frame.width > frame.height)
    }

    /// A normalised area in stored pixels' terms, turned upright by the
    /// orientation, in upright pixels.
    package static func pixels(_ area: Area, frame: Frame, upright: Bool) -> PixelRect {
        var corners = [(area.x, area.y), (area.x + area.w, area.y + area.h)]
        if !upright { corners = corners.map { turn($0.0, $0.1, orientation: frame.orientation) } }
        let xs = corners.map(\.0)
        let ys = corners.map(\.1)
        let (width, height) = (Double(frame.width), Double(frame.height))
        let left = Int((xs.min()! * width).rounded())
        let top = Int((ys.min()! * height).rounded())
        let right = Int((xs.max()! * width).rounded())
        let bottom = Int((ys.max()! * height).rounded())
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Where a normalised point of the stored pixels lies once EXIF
    /// orientation `orientation` has turned them upright.
    package static func turn(_ u: Double, _ v: Double, orientation: Int) -> (Double, Double) {
        switch orientation {
        case 2: (1 - u, v)
        case 3: (1 - u, 1 - v)
        case 4: (u, 1 - v)
        case 5: (v, u)
        case 6: (1 - v, u)
        case 7: (1 - v, 1 - u)
        case 8: (v, 1 - u)
        default: (u, v)
        }
    }

    /// The other way: an upright normalised point in the stored pixels.
    package static func unturn(_ x: Double, _ y: Double, orientation: Int) -> (Double, Double) {
        switch orientation {
        case 6: (y, 1 - x)
        case 8: (1 - y, x)
        default: turn(x, y, orientation: orientation)  // the rest undo themselves
        }
    }
}
