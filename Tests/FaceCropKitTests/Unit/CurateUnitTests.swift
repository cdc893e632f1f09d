import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropCurate


/// Rejections file, perceptual hash, dedup grouping and splits: pure logic.
struct RejectionsFileTests {
    static let hashA = String(repeating: "ab", count: 32)
    static let hashB = String(repeating: "0f", count: 32)

    struct ParseCase: CustomTestStringConvertible, Sendable {
        var text: String
        var entries: [String]
        var error: String?
        var testDescription: String { text.debugDescription }
    }

    @Test(arguments: [
        ParseCase(text: "", entries: []),
        ParseCase(text: "# only a comment\n\n   \n", entries: []),
        ParseCase(text: "\(hashA) 10,20,30,40\n", entries: ["\(hashA) 10,20,30,40"]),
        ParseCase(text: "\(hashA.uppercased())\t1,2,3,4   # trip/a.jpg face 0\r\n", entries: ["\(hashA) 1,2,3,4"]),
        ParseCase(text: "# x\n\(hashA) 1,2,3,4\n\(hashB) 5,6,7,8", entries: ["\(hashA) 1,2,3,4", "\(hashB) 5,6,7,8"]),
        ParseCase(text: "\(hashA) 1,2,3,4#no space before the comment\n", entries: ["\(hashA) 1,2,3,4"]),
        ParseCase(text: "# ok\nabc 1,2,3,4\n", entries: [], error: "'r.txt' line 2: 'abc' is not a SHA-256 (64 hex digits)"),
        ParseCase(text: "\(hashA.dropLast())g 1,2,3,4", entries: [],
                  error: "'r.txt' line 1: '\(hashA.dropLast())g' is not a SHA-256 (64 hex digits)"),
        ParseCase(text: "\(hashA) 1,2,3", entries: [],
                  error: "'r.txt' line 1: '1,2,3' is not a face box x,y,w,h (whole pixels, w and h above 0)"),
        ParseCase(text: "\(hashA) 1,2,0,4", entries: [],
                  error: "'r.txt' line 1: '1,2,0,4' is not a face box x,y,w,h (whole pixels, w and h above 0)"),
        ParseCase(text: "\(hashA) -1,2,3,4", entries: [],
                  error: "'r.txt' line 1: '-1,2,3,4' is not a face box x,y,w,h (whole pixels, w and h above 0)"),
        ParseCase(text: "\(hashA) 1, 2,3,4", entries: [],
                  error: "'r.txt' line 1: expected '<sha256> <x>,<y>,<w>,<h> [t=<seconds>]', got '\(hashA) 1, 2,3,4'"),
        ParseCase(text: "\(hashA)", entries: [],
                  error: "'r.txt' line 1: expected '<sha256> <x>,<y>,<w>,<h> [t=<seconds>]', got '\(hashA)'"),
    ])
    func parse(_ c: ParseCase) {
        do {
            let file = try RejectionsFile.parse(c.text, file: "r.txt")
            #expect(c.error == nil)
            #expect(file.entries.map(\.description) == c.entries)
        } catch {
            #expect(error.description == c.error)
        }
    }

    struct MatchCase: CustomTestStringConvertible, Sendable {
        var sha256: String
        var box: PixelRect
        var rejected: Bool
        var testDescription: String { "\(sha256.prefix(4)) \(box) -> \(rejected)" }
    }

    /// The entry `hashA 100,100,100,100`.
    @Test(arguments: [
        MatchCase(sha256: hashA, box: .init(x: 100, y: 100, width: 100, height: 100), rejected: true),
        MatchCase(sha256: hashA.uppercased(), box: .init(x: 100, y: 100, width: 100, height: 100), rejected: true),
        // Moved by a tenth of its side: IoU 0.82.
        MatchCase(sha256: hashA, box: .init(x: 110, y: 100, width: 100, height: 100), rejected: true),
        // Grown by a fifth: IoU 0.69.
        MatchCase(sha256: hashA, box: .init(x: 90, y: 90, width: 120, height: 120), rejected: true),
        // Exactly 0.5 (100 x 100 inside 100 x 200) is enough.
        MatchCase(sha256: hashA, box: .init(x: 100, y: 100, width: 100, height: 200), rejected: true),
        // Just under: IoU 0.4975.
        MatchCase(sha256: hashA, box: .init(x: 100, y: 100, width: 100, height: 201), rejected: false),
        // Moved by half its side: IoU 1/3.
        MatchCase(sha256: hashA, box: .init(x: 150, y: 100, width: 100, height: 100), rejected: false),
        // Another face of the same photo.
        MatchCase(sha256: hashA, box: .init(x: 400, y: 100, width: 100, height: 100), rejected: false),
        // The same box in another photo.
        MatchCase(sha256: hashB, box: .init(x: 100, y: 100, width: 100, height: 100), rejected: false),
    ])
    func match(_ c: MatchCase) throws {
        let file = try RejectionsFile.parse("\(Self.hashA) 100,100,100,100\n", file: "r.txt")
        #expect(file.rejects(sha256: c.sha256, box: c.box) == c.rejected)
    }

    @Test func addingKeepsEveryLineAndSkipsFacesAlreadyRejected() throws {
        let original = "# curated by hand\n\n\(Self.hashA) 100,100,100,100  # a.jpg face 0\n# keep this note\n"
        var file = try RejectionsFile.parse(original, file: "r.txt")
        let added = file.add([
            (Rejection(sha256: Self.hashA, box: .init(x: 104, y: 98, width: 100, height: 100)), "a.jpg face 0 again"),
            (Rejection(sha256: Self.hashB, box: .init(x: 5, y: 6, width: 70, height: 80)), "b/b.jpg face 1\nsecond line"),
        ])
        #expect(added == 1)
        #expect(file.text == original + "\(Self.hashB) 5,6,70,80  # b/b.jpg face 1 second line\n")
        #expect(try RejectionsFile.parse(file.text, file: "r.txt") == file)
        // No final newline: kept as a line, and the next entry starts on a line of its own.
        var unterminated = try RejectionsFile.parse("# note", file: "r.txt")
        unterminated.add([(Rejection(sha256: Self.hashB, box: .init(x: 1, y: 1, width: 1, height: 1)), "")])
        #expect(unterminated.text == "# note\n\(Self.hashB) 1,1,1,1\n")
    }

    @Test func savesAtomicallyBesideItself() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("rejections.txt").path
        #expect(try RejectionsFile.load(path: path).entries.isEmpty)
        var file = try RejectionsFile.parse("# mine\n", file: path)
        file.add([(Rejection(sha256: Self.hashA, box: .init(x: 1, y: 2, width: 3, height: 4)), "a.jpg face 0")])
        try file.save(path: path, temporaries: TemporaryFiles())
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "# mine\n\(Self.hashA) 1,2,3,4  # a.jpg face 0\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["rejections.txt"])
        try FileManager.default.createDirectory(atPath: path + ".d", withIntermediateDirectories: false)
        #expect(throws: RejectionsError.self) { try RejectionsFile.load(path: path + ".d") }
    }
}

struct PerceptualHashTests {
    /// A smooth 32 x 32 test pattern (a face-like blob on a gradient).
    static func pattern(brightness: Double = 0, contrast: Double = 1, shift: Int = 0) -> [UInt8] {
        (0..<1024).map { index in
            let x = Double(index % 32 + shift), y = Double(index / 32)
            let dx: Double = (x - 14) * (x - 14) / 40
            let dy: Double = (y - 12) * (y - 12) / 60
            let blob: Double = exp(-(dx + dy)) * 100
            let ramp: Double = 30 + x * 2 + y
            let value: Double = (ramp + blob) * contrast + brightness
            return UInt8(max(0, min(255, value.rounded())))
        }
    }

    @Test func zigzagIsTheLowest64FrequenciesAfterDC() {
        #expect(PerceptualHash.zigzag.count == 64)
        #expect(Set(PerceptualHash.zigzag.map { "\($0)" }).count == 64)
        #expect(!PerceptualHash.zigzag.contains { $0 == (0, 0) })
        #expect(PerceptualHash.zigzag.prefix(5).map { "\($0.0),\($0.1)" } == ["1,0", "0,1", "0,2", "1,1", "2,0"])
        #expect(PerceptualHash.zigzag.allSatisfy { $0.0 + $0.1 <= 10 && max($0.0, $0.1) < PerceptualHash.reach })
    }

    @Test func brightnessAndContrastDoNotChangeIt() {
        let base = PerceptualHash(gray: Self.pattern())
        #expect(base.bits.nonzeroBitCount == 32)
        #expect(PerceptualHash(gray: Self.pattern(brightness: 20)) == base)
        // Only rounding to whole grey levels moves the smallest coefficients across the median.
        #expect(PerceptualHash(gray: Self.pattern(contrast: 0.8)).distance(to: base) <= 4)
        #expect(PerceptualHash(gray: Self.pattern(shift: 1)).distance(to: base) <= 8)
        let pixels = Self.pattern()
        let mirrored: [UInt8] = (0..<1024).map { (index: Int) -> UInt8 in
            let row: Int = index / 32
            return pixels[row * 32 + 31 - index % 32]
        }
        #expect(PerceptualHash(gray: mirrored).distance(to: base) >= 16)
    }

    /// `pattern()` enlarged `factor` times by repeating pixels, `columns`
    /// and `rows` of them (cut or repeating the last).
    static func enlarged(_ factor: Int, columns: Int, rows: Int) -> GrayImage {
        let pixels = Self.pattern()
        let made = (0..<(columns * rows)).map { index in
            pixels[min(index / columns / factor, 31) * 32 + min(index % columns / factor, 31)]
        }
        return GrayImage(width: columns, height: rows, pixels: made)
    }

    @Test func photoHashIsTheMeanOf32By32Cells() {
        let base = PerceptualHash(gray: Self.pattern())
        // Each cell of a 2x or 5x enlargement averages copies of one pixel.
        #expect(PerceptualHash(photo: Self.enlarged(2, columns: 64, rows: 64)) == base)
        #expect(PerceptualHash(photo: Self.enlarged(5, columns: 160, rows: 160)) == base)
        // Sizes that do not divide into 32 cells: close, never a crash.
        #expect(PerceptualHash(photo: Self.enlarged(3, columns: 100, rows: 97)).distance(to: base) <= 8)
        let tiny = PerceptualHash(photo: GrayImage(width: 5, height: 3, pixels: Array(0..<15)))
        #expect(tiny.bits.nonzeroBitCount == 32)
        #expect(PerceptualHash(photo: GrayImage(width: 0, height: 0, pixels: [])).bits.nonzeroBitCount <= 32)
    }

    @Test(arguments: ["0000000000000000", "ffffffffffffffff", "0123456789abcdef"])
    func hexRoundTrip(_ hex: String) {
        #expect(PerceptualHash(hex: hex)?.description == hex)
    }

    @Test func hexRejectsBadText() {
        #expect(PerceptualHash(hex: "123") == nil)
        #expect(PerceptualHash(hex: "0123456789abcdeg") == nil)
    }
}

struct DedupTests {
    static func face(_ bits: UInt64, sharp: Double, area: Int = 100) -> DedupFace {
        DedupFace(hash: PerceptualHash(bits: bits), sharpness: sharp, area: area)
    }

    @Test func keepsSharpestThenLargestThenFirst() {
        let faces = [
            Self.face(0b0000, sharp: 50), Self.face(0b0011, sharp: 80), Self.face(0b0001, sharp: 80, area: 120),
            Self.face(~0, sharp: 10), Self.face(~0, sharp: 10),
        ]
        #expect(Dedup.keepers(faces, threshold: 2) == [2, 2, nil, nil, 3])
        #expect(Dedup.keepers(faces, threshold: 0) == [nil, nil, nil, nil, 3])
    }

    @Test func chainsAreOneGroup() {
        // 0 and 2 differ in 4 bits, each 2 from 1.
        let faces = [Self.face(0b0000, sharp: 1), Self.face(0b0011, sharp: 2), Self.face(0b1111, sharp: 3)]
        #expect(Dedup.keepers(faces, threshold: 2) == [2, 2, nil])
    }

    @Test func alikePhotosJoinFacesAtTheSamePlaceUpToTwiceTheThreshold() {
        let photo = PerceptualHash(bits: 0x0123_4567_89ab_cdef)
        let near = PerceptualHash(bits: photo.bits ^ 0b1111)  // 4 bits from `photo`
        let far = PerceptualHash(bits: ~photo.bits)
        let box = SIMD4<Float>(0.4, 0.3, 0.6, 0.5)
        let shifted = SIMD4<Float>(0.42, 0.31, 0.62, 0.51)  // IoU 0.75 with `box`
        let elsewhere = SIMD4<Float>(0.5, 0.3, 0.7, 0.5)  // IoU 1/3
        func face(_ bits: UInt64, _ photo: PerceptualHash?, _ place: SIMD4<Float>?) -> DedupFace {
            DedupFace(hash: PerceptualHash(bits: bits), sharpness: 1, area: 1, photo: photo, place: place)
        }
        let a = face(0, photo, box)
        let b14 = (1 << 14) - 1 as UInt64  // 14 bits from a
        let b26 = (1 << 26) - 1 as UInt64
        #expect(a.matches(face(0xfff, far, elsewhere), threshold: 12))  // crops alike: enough alone
        #expect(a.matches(face(b14, near, shifted), threshold: 12))
        #expect(a.matches(face(b14, photo, box), threshold: 7))
        #expect(!a.matches(face(b14, photo, box), threshold: 6))  // over twice the threshold
        #expect(!a.matches(face(b26, photo, box), threshold: 12))
        #expect(!a.matches(face(b14, far, box), threshold: 12))  // photos not alike
        #expect(!a.matches(face(b14, near, elsewhere), threshold: 12))  // another place
        #expect(!a.matches(face(b14, nil, box), threshold: 12))  // photo not known
        #expect(!face(0, photo, nil).matches(face(b14, photo, box), threshold: 12))
        #expect(abs(DedupFace.overlap(box, shifted) - 0.75) < 0.01)
        #expect(Dedup.keepers([a, face(b14, near, shifted), face(b14 << 20, far, shifted)], threshold: 12) == [nil, 0, nil])
    }

    @Test func groupsDoNotDependOnOrder() {
        var generator = SystemRandomNumberGenerator()
        let bases: [UInt64] = (0..<20).map { _ in generator.next() }
        let faces = (0..<200).map { index -> DedupFace in
            var bits = bases[index % 20]
            for _ in 0..<(index % 4) { bits ^= 1 << UInt64.random(in: 0..<64, using: &generator) }
            return DedupFace(hash: .init(bits: bits), sharpness: Double(index % 7), area: index % 5)
        }
        func groups(_ faces: [DedupFace]) -> Set<Set<UInt64>> {
            let keep = Dedup.keepers(faces, threshold: 6)
            var byKeeper: [Int: Set<UInt64>] = [:]
            for (index, kept) in keep.enumerated() { byKeeper[kept ?? index, default: []].insert(faces[index].hash.bits) }
            return Set(byKeeper.values)
        }
        let forward = groups(faces)
        #expect(forward.count >= 20 && forward.count < 200)
        #expect(groups(faces.reversed()) == forward)
        #expect(groups(faces.shuffled()) == forward)
    }
}

struct SplitTests {
    @Test(arguments: [
        ("train=80,val=10,test=10", "train=80,val=10,test=10"),
        ("a=1", "a=1"),
        (" big = 3 ,Small_2-x=1", "big=3,Small_2-x=1"),
    ])
    func parses(_ text: String, _ normalised: String) throws {
        #expect(try SplitSpec.parse(text).get().description == normalised)
    }

    @Test(arguments: [
        ("train", "'train' is not name=weight"),
        ("train=80,", "'' is not name=weight"),
        ("train=0", "the weight of 'train' must be a whole number above 0, not '0'"),
        ("train=1.5", "the weight of 'train' must be a whole number above 0, not '1.5'"),
        ("tr/ain=1", "'tr/ain' is not a split name (letters, digits, '_' and '-', not first)"),
        (".x=1", "'.x' is not a split name (letters, digits, '_' and '-', not first)"),
        ("-x=1", "'-x' is not a split name (letters, digits, '_' and '-', not first)"),
        ("=1", "'' is not a split name (letters, digits, '_' and '-', not first)"),
        ("a=1,a=2", "'a' is named twice"),
        ("a=999999,b=2", "the weights add up to more than 1000000"),
    ])
    func refuses(_ text: String, _ reason: String) {
        #expect(throws: SplitSpecError(reason)) { try SplitSpec.parse(text).get() }
    }

    /// 1,000 generated photo hashes (SHA-256 of generated contents).
    static let hashes: [String] = (0..<1000).map { index in
        Array("photo \(index)".utf8).withUnsafeBytes { Vips.sha256($0) }
    }

    @Test(arguments: ["train=80,val=10,test=10", "a=1,b=1", "x=5,y=90,z=5", "one=1,two=2,three=3,four=4"])
    func proportionsWithinFivePoints(_ text: String) throws {
        let spec = try SplitSpec.parse(text).get()
        var counts: [String: Int] = [:]
        for hash in Self.hashes { counts[spec.split(forSHA256: hash), default: 0] += 1 }
        for part in spec.parts {
            let share = Double(counts[part.name] ?? 0) / 10
            let wanted = 100 * Double(part.weight) / Double(spec.total)
            #expect(abs(share - wanted) <= 5, "\(part.name): \(share)% for \(wanted)%")
        }
    }

    @Test func theSplitIsTheContentsAlone() throws {
        let spec = try SplitSpec.parse("train=80,val=10,test=10").get()
        let again = try SplitSpec.parse("train=80, val=10, test=10").get()
        for hash in Self.hashes.prefix(100) {
            #expect(spec.split(forSHA256: hash) == again.split(forSHA256: hash))
            #expect(spec.split(forSHA256: hash) == spec.split(forSHA256: hash.uppercased()))
        }
        // The edges of the range.
        #expect(spec.split(forSHA256: String(repeating: "0", count: 64)) == "train")
        #expect(spec.split(forSHA256: String(repeating: "f", count: 64)) == "test")
    }

    @Test func nearDuplicatePhotosShareTheirKeptFacesSplit() throws {
        let spec = try SplitSpec.parse("a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1").get()
        let photos = Array(Self.hashes.prefix(6))
        // Faces: photo 0 (face 0) and photo 1 (face 1) near-duplicates, face 1
        // kept; photo 1's face 2 and photo 2's face 3 duplicates, face 2 kept;
        // photo 3 has two faces of its own; 4 and 5 stand alone.
        let faces: [(photo: Int, keptFace: Int?)] = [(0, 1), (1, nil), (1, nil), (2, 2), (3, nil), (3, nil), (4, nil)]
        let ranked = [4, 2, 5, 1, 6]
        let splits = spec.splits(photos: photos, faces: faces, ranked: ranked)
        // Photos 0-2 are one unit; its best kept face with duplicates is face 2 (photo 1).
        let unit = spec.split(forSHA256: photos[1])
        #expect(splits[0] == unit && splits[1] == unit && splits[2] == unit)
        for photo in 3..<6 { #expect(splits[photo] == spec.split(forSHA256: photos[photo])) }
        #expect(Set(photos.map { spec.split(forSHA256: $0) }).count > 1)
    }
}
