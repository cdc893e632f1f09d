import Foundation
import Testing
import FaceCropCore
import FaceCropImaging


/// Photos decoded from their file (issue #21): hashed while read, PNG and
/// TIFF shrunk on the way for detection and cut on the way for crops, with
/// the same pixels as the whole decode from memory; 16-bit photos brought to
/// 8 bits with the right tone.
struct BigPhotoTests {
    /// An uncompressed TIFF (one strip, little-endian) of 16-bit samples.
    private func writeTIFF16(_ samples: [UInt16], width: Int, height: Int, bands: Int, to url: URL) throws {
        var out = [UInt8]()
        func u16(_ v: Int) { out += [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
        func u32(_ v: Int) { u16(v & 0xffff); u16(v >> 16) }
        let entries = bands == 3 ? 11 : 10
        let ifd = 8
        let bitsAt = ifd + 2 + entries * 12 + 4
        let dataAt = bitsAt + (bands == 3 ? 6 : 0)
        out += [0x49, 0x49]; u16(42); u32(ifd)
        u16(entries)
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: Int) {
            u16(tag); u16(type); u32(count)
            if type == 3 && count == 1 { u16(value); u16(0) } else { u32(value) }
        }
        entry(256, 4, 1, width)
        entry(257, 4, 1, height)
        entry(258, 3, bands, bands == 3 ? bitsAt : 16)  // BitsPerSample
        entry(259, 3, 1, 1)  // no compression
        entry(262, 3, 1, bands == 3 ? 2 : 1)  // RGB or min-is-black
        entry(273, 4, 1, dataAt)  // StripOffsets
        entry(277, 3, 1, bands)  // SamplesPerPixel
        entry(278, 4, 1, height)  // RowsPerStrip
        entry(279, 4, 1, samples.count * 2)  // StripByteCounts
        entry(284, 3, 1, 1)  // chunky
        if bands == 3 { entry(339, 3, 1, 1) }  // SampleFormat unsigned (11th entry)
        u32(0)
        if bands == 3 { u16(16); u16(16); u16(16) }
        for s in samples { u16(Int(s)) }
        try Data(out).write(to: url)
    }

    /// A fixture photo's 8-bit pixels, and a 16-bit TIFF of them whose high
    /// bytes are those pixels and whose low bytes are not a copy of them.
    private func sixteenBitTwin(bands: Int, in folder: URL) throws -> (eight: [UInt8], width: Int, height: Int, tiff: URL) {
        try Vips.start()
        let name = "faces/astronaut.jpg"
        let bytes = try PhotoBytes(path: fixtures.appendingPathComponent(name).path, source: name)
        let header = try Picture.header(of: bytes, source: name)
        let whole = try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: name)
        let eight = bands == 3 ? try whole.rgbPixels(source: name).pixels : try whole.grayPixels(source: name).pixels
        let samples = eight.enumerated().map { UInt16($0.element) << 8 | UInt16(($0.offset * 37 + 11) & 0xff) }
        let tiff = folder.appendingPathComponent("astronaut-16-\(bands).tif")
        try writeTIFF16(samples, width: whole.width, height: whole.height, bands: bands, to: tiff)
        return (eight, whole.width, whole.height, tiff)
    }

    @Test(arguments: [3, 1])
    func sixteenBitPhotosAreTheirHighBytesAsLibvipsShiftsThem(bands: Int) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let twin = try sixteenBitTwin(bands: bands, in: folder)
        let bytes = try PhotoBytes(path: twin.tiff.path, source: "16")
        let header = try Picture.header(of: bytes, source: "16")
        #expect(header.streams && header.loader.hasPrefix("tiffload"))
        #expect(header.decodedBytes == twin.width * twin.height * bands * 2)
        // Decoded from the file at full size (no shrink: the box is the photo).
        let fromFile = try Picture.load(bytes, header: header, minScale: 0.99, fittingIn: twin.width, twin.height, source: "16")
        try fromFile.materialize(source: "16")
        let got = bands == 3 ? try fromFile.rgbPixels(source: "16").pixels : try fromFile.grayPixels(source: "16").pixels
        #expect(got.count == twin.eight.count)
        // The reference: every sample shifted right by 8 and cast to 8 bits
        // (RGB16 -> sRGB is exactly that; GREY16 -> B_W divides by 257, at
        // most one level off, and never clips).
        let worst = zip(got, twin.eight).map { abs(Int($0) - Int($1)) }.max() ?? 99
        #expect(worst <= (bands == 3 ? 0 : 1), "largest difference from the shifted reference: \(worst)")
        // The whole decode from memory gives the same 8-bit pixels.
        let whole = try Picture.load(bytes, header: header, minScale: 1, fittingIn: twin.width, twin.height, source: "16")
        let fromMemory = bands == 3 ? try whole.rgbPixels(source: "16").pixels : try whole.grayPixels(source: "16").pixels
        #expect(fromMemory == got)
    }

    /// The streamed detection decode and the crops' region decode of PNG and
    /// TIFF (8 and 16 bits) are the pixels the whole decode from memory gives.
    @Test(arguments: ["formats/astronaut-gray16.png", "formats/astronaut.tif", "formats/astronaut-rgba.png", "16"])
    func streamedDecodesAreTheWholeDecodes(name: String) throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = name == "16" ? try sixteenBitTwin(bands: 3, in: folder).tiff.path : fixtures.appendingPathComponent(name).path
        try Vips.start()
        let bytes = try PhotoBytes(path: path, source: name)
        let header = try Picture.header(of: bytes, source: name)
        #expect(header.streams)
        let whole = try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: name)
        let box = max(header.width, header.height) * 2 / 5
        let small = try Picture.load(bytes, header: header, minScale: 0.3, fittingIn: box, box, source: name)
        try small.materialize(source: name)
        let reference = try whole.fitting(box, box, source: name)
        #expect(try small.rgbPixels(source: name).pixels == reference.rgbPixels(source: name).pixels)
        let squares = [PixelSquare(left: 120, top: 60, side: 150), PixelSquare(left: -40, top: 200, side: 170)]
        for square in squares {
            let cover = CropGeometry.cover([square], grow: 0.25, width: header.width, height: header.height)
            let part = try Picture.load(bytes, header: header, minScale: 1, covering: cover, source: name)
            #expect(part.picture.height < whole.height)
            var shifted = square
            shifted.left -= part.origin.x
            shifted.top -= part.origin.y
            for angle in [0.0, 12.5] {
                let expected = try whole.encodeCrop(square, pad: .edge, side: 96, format: .png, quality: 90, angle: angle, source: name)
                let got = try part.picture.encodeCrop(shifted, pad: .edge, side: 96, format: .png, quality: 90, angle: angle, source: name)
                let same = got == expected
                #expect(same, "\(square), \(angle) degrees")
            }
        }
    }

    /// A JPEG that is not plain 8-bit sRGB (gray, CMYK) falls back to the
    /// whole photo for its crops' region; several crops are cut from it.
    @Test(arguments: ["formats/astronaut-gray.jpg", "formats/astronaut-cmyk.jpg"])
    func aRegionOfAJpegLibvipsMustConvertIsTheWholePhoto(name: String) throws {
        try Vips.start()
        let bytes = try PhotoBytes(path: fixtures.appendingPathComponent(name).path, source: name)
        let header = try Picture.header(of: bytes, source: name)
        let whole = try Picture.load(bytes, header: header, minScale: 1, fittingIn: header.width, header.height, source: name)
        let cover = PixelRect(x: 100, y: 50, width: 200, height: 200)
        let part = try Picture.load(bytes, header: header, minScale: 1, covering: cover, source: name)
        #expect(part.origin == (0, 0) && part.decodeSize == (whole.width, whole.height))
        for square in [PixelSquare(left: 300, top: 300, side: 150), PixelSquare(left: 100, top: 50, side: 200)] {
            let expected = try whole.encodeCrop(square, pad: .edge, side: 64, format: .png, quality: 90, source: name)
            let got = try part.picture.encodeCrop(square, pad: .edge, side: 64, format: .png, quality: 90, source: name)
            #expect(got == expected, "\(square)")
        }
    }

    @Test func theHashReadInChunksIsTheHashOfTheBytes() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Over two read chunks (1 MiB each), not a multiple of one.
        let data = Data((0..<(2 << 20) + 12345).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) })
        let url = folder.appendingPathComponent("blob.bin")
        try data.write(to: url)
        let file = try PhotoBytes(path: url.path, source: "blob")
        #expect(file.count == data.count)
        #expect(file.sha256 == data.withUnsafeBytes { Vips.sha256($0) })
        #expect(try file.withBytes { Data($0) } == data)
    }

    /// The SHA-256 (libcrypto's) is SHA-256: FIPS 180-2's examples, in
    /// memory and read from a file.
    @Test func theHashIsSHA256() throws {
        let vectors = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ]
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for (text, digest) in vectors {
            #expect(Array(text.utf8).withUnsafeBytes { Vips.sha256($0) } == digest)
            guard !text.isEmpty else { continue }  // an empty file is refused before it is hashed
            let url = folder.appendingPathComponent("v\(text.count).txt")
            try Data(text.utf8).write(to: url)
            #expect(try PhotoBytes(path: url.path, source: "v").sha256 == digest)
        }
    }

    /// Large decodes together never hold more than the budget; one over the
    /// budget runs alone; small ones are not counted.
    @Test func theDecodeGateKeepsLargeDecodesWithinItsBudget() throws {
        final class Tally: @unchecked Sendable {
            let lock = NSLock()
            var now = 0, most = 0, alone = true
        }
        let gate = DecodeGate(smallBytes: 10, budget: 100)
        let tally = Tally()
        let group = DispatchGroup()
        for claim in [60, 60, 40, 40, 30, 250, 5, 5, 70] {
            DispatchQueue.global().async(group: group) {
                try? gate.admit(bytes: claim) { () throws(FaceCropError) in
                    let counted = claim > 10 ? min(claim, 100) : 0
                    tally.lock.withLock {
                        tally.now += counted
                        tally.most = max(tally.most, tally.now)
                        if claim > 100 && tally.now != counted { tally.alone = false }
                    }
                    usleep(20_000)
                    tally.lock.withLock { tally.now -= counted }
                }
            }
        }
        group.wait()
        #expect(tally.most <= 100 && tally.most >= 60)
        #expect(tally.alone)
    }
}
