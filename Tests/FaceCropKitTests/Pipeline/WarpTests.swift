import Foundation
import Testing
import FaceCropCore
import FaceCropImaging


/// CVipsShim_WarpEncode on a real photo, against references that do not go
/// through it: libvips' plain crop, the decoded pixels moved by hand, and a
/// resampler written here.
struct WarpTests {
    static let name = "faces/astronaut.jpg"

    /// The photo decoded whole (512 x 512) and its RGB pixels.
    private func photo() throws -> (picture: Picture, rgb: RGBImage) {
        try Vips.start()
        let path = fixtures.appendingPathComponent(Self.name).path
        let bytes = try PhotoBytes(path: path, source: Self.name)
        let header = try Picture.header(of: bytes, source: Self.name)
        let picture = try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: Self.name)
        return (picture, try picture.rgbPixels(source: Self.name))
    }

    /// Encoded PNG bytes decoded back to RGB.
    private func pixels(of png: [UInt8]) throws -> RGBImage {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("crop.png").path
        try Data(png).write(to: URL(fileURLWithPath: path))
        let bytes = try PhotoBytes(path: path, source: "crop.png")
        let header = try Picture.header(of: bytes, source: "crop.png")
        return try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: "crop.png")
            .rgbPixels(source: "crop.png")
    }

    private func warp(_ picture: Picture, _ t: Affine2D, side: Int, fill: WarpFill = .edge) throws -> RGBImage {
        try pixels(of: picture.encodeWarp(t, side: side, fill: fill, format: .png, quality: 90, source: Self.name))
    }

    /// Bilinear sample of `image` at (x, y), edge pixels repeated.
    private func sample(_ image: RGBImage, _ x: Double, _ y: Double, band: Int) -> Double {
        func at(_ i: Int, _ j: Int) -> Double {
            let ci = min(max(i, 0), image.width - 1), cj = min(max(j, 0), image.height - 1)
            return Double(image.pixels[(cj * image.width + ci) * 3 + band])
        }
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let fx = x - Double(x0), fy = y - Double(y0)
        let top = at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx
        let bottom = at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx
        return top * (1 - fy) + bottom * fy
    }

    /// What `t` makes of `photo`, resampled here: each crop pixel averages
    /// `n` x `n` bilinear samples over its footprint in the photo.
    private func reference(_ photo: RGBImage, _ t: Affine2D, side: Int, n: Int) throws -> RGBImage {
        let inverse = try #require(t.inverse)
        var out = [UInt8](repeating: 0, count: side * side * 3)
        for v in 0..<side {
            for u in 0..<side {
                for band in 0..<3 {
                    var sum = 0.0
                    for sy in 0..<n {
                        for sx in 0..<n {
                            let q = Point2D(Double(u) + (Double(sx) + 0.5) / Double(n) - 0.5, Double(v) + (Double(sy) + 0.5) / Double(n) - 0.5)
                            let p = inverse.apply(q)
                            sum += sample(photo, p.x, p.y, band: band)
                        }
                    }
                    out[(v * side + u) * 3 + band] = UInt8((sum / Double(n * n)).rounded())
                }
            }
        }
        return RGBImage(width: side, height: side, pixels: out)
    }

    private func meanDifference(_ a: RGBImage, _ b: RGBImage, inset: Int = 0) -> Double {
        var total = 0.0, count = 0
        for y in inset..<(a.height - inset) {
            for x in inset..<(a.width - inset) {
                for band in 0..<3 {
                    let at = (y * a.width + x) * 3 + band
                    total += abs(Double(a.pixels[at]) - Double(b.pixels[at]))
                    count += 1
                }
            }
        }
        return total / Double(max(count, 1))
    }

    /// A whole-pixel shift at scale 1 is a plain crop: the same pixels as
    /// libvips' extract of that square, inside the photo and past its edge.
    @Test(arguments: [PixelSquare(left: 150, top: 40, side: 200), PixelSquare(left: -30, top: 400, side: 160)])
    func aShiftIsAPlainCrop(square: PixelSquare) throws {
        let (picture, _) = try photo()
        let t = Alignment.squareCrop(square, side: square.side)
        #expect(t.a == 1 && t.c == Double(-square.left))
        let warped = try warp(picture, t, side: square.side)
        let plain = try pixels(
            of: picture.encodeCrop(square, pad: .edge, side: square.side, format: .png, quality: 90, source: Self.name))
        #expect(warped.pixels == plain.pixels)
    }

    /// A quarter turn moves whole pixels: exactly the photo's pixels, turned.
    @Test func aQuarterTurnMovesThePixels() throws {
        let (picture, rgb) = try photo()
        // Crop pixel (u, v) shows photo pixel (100 + v, 300 - u): the photo turned a quarter anticlockwise.
        let t = Affine2D(0, -1, 300, 1, 0, -100)
        let side = 180
        let warped = try warp(picture, t, side: side)
        var same = true
        for v in 0..<side {
            for u in 0..<side {
                for band in 0..<3 where warped.pixels[(v * side + u) * 3 + band] != rgb.pixels[((300 - u) * rgb.width + 100 + v) * 3 + band] {
                    same = false
                }
            }
        }
        #expect(same)
    }

    struct Turn: CustomTestStringConvertible, Sendable {
        var degrees: Double
        var scale: Double
        /// Mean difference per band allowed against the reference (0-255).
        var tolerance: Double
        var testDescription: String { "\(degrees) deg, x\(scale)" }
    }

    /// Any turn and scale: within a few levels of the reference resampler
    /// (bicubic and Lanczos against averaged bilinear samples).
    @Test(arguments: [
        Turn(degrees: 17, scale: 1, tolerance: 2.5),
        Turn(degrees: -33, scale: 1.6, tolerance: 2.5),
        // Shrinking: Lanczos is sharper than the reference's box of samples.
        Turn(degrees: 30, scale: 0.3, tolerance: 6),
        Turn(degrees: 180, scale: 0.5, tolerance: 6),
    ])
    func aTurnMatchesAnIndependentResampler(_ c: Turn) throws {
        let (picture, rgb) = try photo()
        let side = 96
        let r = c.degrees * .pi / 180
        let turn = Affine2D(c.scale * cos(r), c.scale * sin(r), 0, -c.scale * sin(r), c.scale * cos(r), 0)
        // The photo's point (250, 200) in the middle of the crop.
        let centre = turn.apply(Point2D(250, 200))
        let t = turn.then(Affine2D(1, 0, 47.5 - centre.x, 0, 1, 47.5 - centre.y))
        let warped = try warp(picture, t, side: side)
        let expected = try reference(rgb, t, side: side, n: c.scale < 1 ? Int((1 / c.scale).rounded(.up)) : 1)
        let difference = meanDifference(warped, expected, inset: 2)
        #expect(difference < c.tolerance, "mean difference \(difference)")
        // And not the same as a crop turned the other way.
        guard abs(sin(r)) > 0.1 else { return }
        let wrongWay = try reference(rgb, Affine2D(t.a, -t.b, t.c, -t.d, t.e, t.f), side: side, n: 1)
        #expect(meanDifference(warped, wrongWay, inset: 2) > 3 * c.tolerance)
    }

    /// Past the photo's edge: black is black, edge repeats the edge pixels,
    /// reflect mirrors the photo, blurred reflect is mirrored but smooth.
    @Test func paddingFollowsTheFillAsked() throws {
        let (picture, rgb) = try photo()
        // 200 px square at the left edge, half of it past it, turned 10 degrees.
        let side = 200
        let r = 10 * Double.pi / 180
        let turn = Affine2D(cos(r), sin(r), 0, -sin(r), cos(r), 0)
        let centre = turn.apply(Point2D(0, 250))
        let t = turn.then(Affine2D(1, 0, 99.5 - centre.x, 0, 1, 99.5 - centre.y))
        let inverse = try #require(t.inverse)
        let black = try warp(picture, t, side: side, fill: .black)
        let edge = try warp(picture, t, side: side, fill: .edge)
        let mirror = try warp(picture, t, side: side, fill: .reflect)
        let blurred = try warp(picture, t, side: side, fill: .reflectBlurred)
        var blackOutside = 0.0, edgeError = 0.0, mirrorError = 0.0, count = 0.0
        var roughMirror = 0.0, roughBlurred = 0.0
        for v in 0..<side {
            for u in 0..<(side - 1) {
                let p = inverse.apply(Point2D(Double(u), Double(v)))
                guard p.x < -3 else { continue }  // well past the edge
                count += 1
                let at = (v * side + u) * 3
                for band in 0..<3 {
                    blackOutside += Double(black.pixels[at + band])
                    edgeError += abs(Double(edge.pixels[at + band]) - sample(rgb, 0, p.y, band: band))
                    mirrorError += abs(Double(mirror.pixels[at + band]) - sample(rgb, -p.x - 1, p.y, band: band))
                    roughMirror += abs(Double(mirror.pixels[at + band]) - Double(mirror.pixels[at + 3 + band]))
                    roughBlurred += abs(Double(blurred.pixels[at + band]) - Double(blurred.pixels[at + 3 + band]))
                }
            }
        }
        #expect(count > 5000)
        #expect(blackOutside / count < 1)
        #expect(edgeError / (3 * count) < 6, "edge \(edgeError / (3 * count))")
        #expect(mirrorError / (3 * count) < 8, "mirror \(mirrorError / (3 * count))")
        #expect(roughBlurred < roughMirror / 2, "blurred \(roughBlurred) vs mirrored \(roughMirror)")
    }

    @Test func aSingularMatrixIsRefused() throws {
        let (picture, _) = try photo()
        #expect(throws: FaceCropError.self) {
            try picture.encodeWarp(Affine2D(1, 2, 0, 2, 4, 0), side: 32, fill: .edge, format: .png, quality: 90, source: Self.name)
        }
    }

    /// The pixels handed back are the pixels encoded.
    @Test func theRGBCropIsTheEncodedCrop() throws {
        let (picture, _) = try photo()
        let t = Affine2D(0.4, 0.1, -40, -0.1, 0.4, -20)
        let rgb = try picture.warpRGB(t, side: 80, source: Self.name)
        #expect(rgb.pixels == (try warp(picture, t, side: 80)).pixels)
    }

    /// The transform recorded for a plain crop describes the crop libvips
    /// cuts for it: the same transform warped gives the same picture (within
    /// resampling: the warp's Lanczos and bicubic against vips_resize).
    /// Half a pixel off gives 3 levels or more at these sizes.
    @Test(arguments: [(nil, 96), (nil, 260), (nil, 300), (nil, 520)] as [(Double?, Int)])
    func aCutCropsTransformDescribesIt(angle: Double?, side: Int) throws {
        let (picture, _) = try photo()
        let square = PixelSquare(left: 130, top: 30, side: 260)
        let cut = try pixels(
            of: picture.encodeCrop(square, pad: .edge, side: side, format: .png, quality: 90, angle: angle ?? 0, source: Self.name))
        let t = Alignment.cutTransform(square, side: side, toDecode: .identity)
        let warped = try warp(picture, t, side: side)
        let difference = meanDifference(cut, warped, inset: 2)
        #expect(difference < (side < 260 ? 2.5 : 1), "mean difference \(difference)")
    }
}
