import Foundation
import Testing
import FaceCropCore
import FaceCropImaging


/// HEIF and AVIF photos coded as 8-bit 4:2:0 are decoded through libheif's
/// own planes and converted to RGB by facecrop (not by libvips' heifload):
/// the pixels must still be the photo's.
struct DecodeTests {
    /// The whole photo, upright, as the pipeline decodes it for cropping.
    private func wholeRGB(_ name: String) throws -> RGBImage {
        try Vips.start()
        let path = fixtures.appendingPathComponent(name).path
        let bytes = try PhotoBytes(path: path, source: name)
        let header = try Picture.header(of: bytes, source: name)
        return try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: name)
            .rgbPixels(source: name)
    }

    @Test(arguments: ["formats/astronaut.heic", "formats/astronaut.avif"])
    func aHeifPhotoDecodesToThePhotosOwnColours(name: String) throws {
        // The same picture stored losslessly.
        let reference = try wholeRGB("formats/astronaut.tif")
        let decoded = try wholeRGB(name)
        #expect(decoded.width == reference.width && decoded.height == reference.height)
        guard decoded.pixels.count == reference.pixels.count else { return }
        var differences = [0.0, 0.0, 0.0]
        for (index, (a, b)) in zip(decoded.pixels, reference.pixels).enumerated() {
            differences[index % 3] += abs(Double(a) - Double(b))
        }
        let means = differences.map { $0 / Double(reference.pixels.count / 3) }
        // Both files are lossy (Q=50): 2-3.5 levels a band on average.
        // Swapped chroma gives about 30, a full-range picture read as
        // limited range about 7.
        #expect(means.allSatisfy { $0 < 5 }, "mean difference per band: \(means)")
    }

    /// Crops small faces need more than the detection decode: a JPEG is then
    /// decoded only as far down as the crops reach, in its stored
    /// orientation, and only their part is kept and turned upright. The
    /// crops must be the very ones cut from the whole upright decode, in
    /// every EXIF orientation, at full size and at a decoder reduction, also
    /// where a crop reaches past the photo's edge.
    @Test(arguments: 1...8)
    func cropsFromARegionDecodeAreTheCropsFromTheWholeDecode(orientation: Int) throws {
        try Vips.start()
        let name = "rotated/astronaut-orient-\(orientation).jpg"
        let path = fixtures.appendingPathComponent(name).path
        let bytes = try PhotoBytes(path: path, source: name)
        let header = try Picture.header(of: bytes, source: name)
        #expect(header.width == 384 && header.height == 512)
        let squares = [
            PixelSquare(left: 120, top: 60, side: 150),  // inside
            PixelSquare(left: -40, top: 380, side: 170),  // past the left and bottom edges
        ]
        for minScale in [1.0, 0.5] {
            let whole = try Picture.load(
                bytes, header: header, minScale: minScale, fittingIn: header.width, header.height, source: name)
            for pad in [PadMode.edge, .black] {
                for square in squares {
                    let cover = CropGeometry.cover([square], grow: 0.25, width: header.width, height: header.height)
                    let part = try Picture.load(bytes, header: header, minScale: minScale, covering: cover, source: name)
                    #expect(part.decodeSize.width == whole.width && part.decodeSize.height == whole.height)
                    #expect(part.picture.width < whole.width || part.picture.height < whole.height)
                    let sx = Double(whole.width) / Double(header.width)
                    let sy = Double(whole.height) / Double(header.height)
                    let scaled = CropGeometry.scale(square, sx: sx, sy: sy)
                    var shifted = scaled
                    shifted.left -= part.origin.x
                    shifted.top -= part.origin.y
                    for angle in [0.0, 12.5] {
                        let expected = try whole.encodeCrop(
                            scaled, pad: pad, side: 96, format: .png, quality: 90, angle: angle, source: name)
                        let got = try part.picture.encodeCrop(
                            shifted, pad: pad, side: 96, format: .png, quality: 90, angle: angle, source: name)
                        let same = got == expected  // (not inside #expect: it would print every byte)
                        #expect(same, "\(square) at \(minScale), \(pad), \(angle) degrees")
                    }
                }
            }
        }
    }

    /// A crop libjpeg cannot encode (sides over its 65,500 px limit) is an
    /// encode failure, not a decode failure: its manifest error says so.
    @Test func anEncodeFailureKeepsItsKind() throws {
        try Vips.start()
        let name = "formats/astronaut.tif"
        let bytes = try PhotoBytes(path: fixtures.appendingPathComponent(name).path, source: name)
        let header = try Picture.header(of: bytes, source: name)
        let picture = try Picture.load(bytes, header: header, minScale: 1, fittingIn: 64, 64, source: name)
        let square = PixelSquare(left: 0, top: 0, side: 32)
        let error = #expect(throws: FaceCropError.self) {
            try picture.encodeCrop(square, pad: .edge, side: 70_000, format: .jpg, quality: 90, source: name)
        }
        guard case .encodeFailed(let source, let reason)? = error else {
            Issue.record("expected .encodeFailed, got \(String(describing: error))")
            return
        }
        #expect(source == name)
        // The reason as libvips gave it, made the same every run (ExternalMessage).
        let expected = ExternalMessage.clean("could not encode: \(reason)", file: name)
        #expect(error?.reason == expected && !reason.isEmpty, "raw: \(reason)")
        // A header libvips cannot read is still not an image.
        let text = try PhotoBytes(path: fixtures.appendingPathComponent("SOURCES.md").path, source: "SOURCES.md")
        let headerError = #expect(throws: FaceCropError.self) { try Picture.header(of: text, source: "SOURCES.md") }
        if case .notAnImage? = headerError {} else { Issue.record("a text file's header gave \(String(describing: headerError))") }
    }

    /// A HEIC with EXIF (every phone photo), made here as a 4:4:4 file that
    /// libvips' heifload decodes: its EXIF must not turn the pixels a second
    /// time (libheif already has) and a WebP crop of it must encode. The
    /// memory error such a photo gave in WebP encoding is caught by
    /// scripts/sanitize, which makes the same file.
    @Test func aHeicWithExifDecodesUprightAndCropsToWebP() throws {
        try Vips.start()
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("phone.heic").path
        let vips = Process()
        vips.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        vips.arguments = ["copy", fixtures.appendingPathComponent("rotated/astronaut-orient-6.jpg").path, path + "[Q=95]"]
        try vips.run()
        vips.waitUntilExit()
        try #require(vips.terminationStatus == 0)
        let bytes = try PhotoBytes(path: path, source: "phone.heic")
        let header = try Picture.header(of: bytes, source: "phone.heic")
        #expect(header.loader.hasPrefix("heifload"))
        // Whole, and fitted in 256 px as for detection.
        for (minScale, box) in [(1.0, 512), (0.5, 256)] {
            let picture = try Picture.load(bytes, header: header, minScale: minScale, fittingIn: box, box, source: "phone.heic")
            try picture.materialize(source: "phone.heic")
            // Stored 512 x 384 and shown so (heifload drops the EXIF orientation).
            #expect(picture.width == box && picture.height == box * 3 / 4)
            let square = PixelSquare(left: 8, top: 8, side: picture.height / 2)
            let crop = try picture.encodeCrop(square, pad: .edge, side: 96, format: .webp, quality: 80, source: "phone.heic")
            let written = folder.appendingPathComponent("crop.webp")
            try Data(crop).write(to: written)
            let cropHeader = try Picture.header(of: PhotoBytes(path: written.path, source: "crop.webp"), source: "crop.webp")
            #expect(cropHeader.loader.hasPrefix("webpload") && cropHeader.width == 96 && cropHeader.height == 96)
        }
    }
}
