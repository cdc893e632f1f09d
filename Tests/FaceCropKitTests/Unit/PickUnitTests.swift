import Foundation
import Testing
import FaceCropCore
import FaceCropOutput
import FaceCropPick


/// `facecrop pick`'s pure rules: pose bins, the order of choice, captions.
struct PickUnitTests {
    static func candidate(
        _ number: Int, yaw: Double? = nil, pitch: Double = 0, quality: Double, taken: String? = nil, photo: String? = nil
    ) -> PickCandidate {
        PickCandidate(
            number: number, source: photo ?? "p\(number).jpg", sourceBytes: nil, input: "", face: 0, crop: "p\(number).jpg.face0.jpg",
            person: "alice", box: PixelRect(x: 0, y: 0, width: 100, height: 100), width: 400, height: 400, sha256: nil,
            sharpness: 100, phash: nil, photoHash: nil, taken: taken,
            pose: yaw.map { PickCandidate.Pose(yaw: $0, pitch: pitch, roll: 0) }, facePixels: nil, faceQuality: quality,
            qualityReason: nil, embedding: nil, track: nil, isVideo: false)
    }

    static func choose(_ pool: [PickCandidate], count: Int, groups: [Int]? = nil) -> [Int] {
        PickChooser.choose(pool, groups: groups ?? Array(pool.indices), scores: PickScore(pool), count: count, perTrack: 1)
            .map(\.candidate.number)
    }

    @Test(arguments: [
        (0.0, 0.0, PoseBin.frontal), (19.0, 14.0, .frontal), (-35.0, 5.0, .left), (35.0, 5.0, .right),
        (5.0, 30.0, .up), (5.0, -30.0, .down), (-30.0, 40.0, .up), (40.0, -30.0, .right),
    ])
    func poseBins(yaw: Double, pitch: Double, bin: PoseBin) {
        #expect(PoseBin(PickCandidate.Pose(yaw: yaw, pitch: pitch, roll: 0)) == bin)
    }

    @Test func aDatasetWithoutPoseHasEveryFaceInUnknown() {
        #expect(PoseBin(nil) == .unknown)
    }

    /// Three frontal crops score best, one left and one down less: the left
    /// and down ones come before a second frontal; quality orders the frontal ones.
    @Test func binsBeforeRepeats() {
        let pool = [
            Self.candidate(1, yaw: 0, quality: 0.9), Self.candidate(2, yaw: 2, quality: 0.95), Self.candidate(3, yaw: -3, quality: 0.8),
            Self.candidate(4, yaw: -40, quality: 0.6), Self.candidate(5, yaw: 0, pitch: -30, quality: 0.55),
        ]
        #expect(Self.choose(pool, count: 3) == [2, 4, 5])
        #expect(Self.choose(pool, count: 5) == [2, 4, 5, 1, 3])
    }

    /// In one bin, a year not yet used comes before a better crop of a year used.
    @Test func yearsBeforeRepeats() {
        let pool = [
            Self.candidate(1, yaw: 0, quality: 0.9, taken: "2019-01-01T10:00:00"),
            Self.candidate(2, yaw: 0, quality: 0.85, taken: "2019-06-01T10:00:00"),
            Self.candidate(3, yaw: 0, quality: 0.7, taken: "2012-06-01T10:00:00"),
        ]
        #expect(Self.choose(pool, count: 2) == [1, 3])
    }

    /// A group of near-duplicates gives one crop (its best); a poor crop
    /// (under half the median) comes after every better one even in a new bin.
    @Test func oneCropPerGroupAndPoorCropsLast() {
        let pool = [
            Self.candidate(1, yaw: 0, quality: 0.7), Self.candidate(2, yaw: 0, quality: 0.8), Self.candidate(3, yaw: 0, quality: 0.6),
            Self.candidate(4, yaw: 50, quality: 0.1),
        ]
        #expect(Self.choose(pool, count: 4, groups: [0, 0, 2, 3]) == [2, 3, 4])
        // Two faces of one photo: one crop.
        let photo = [Self.candidate(1, yaw: 0, quality: 0.9, photo: "a.jpg"), Self.candidate(2, yaw: 40, quality: 0.8, photo: "a.jpg")]
        #expect(Self.choose(photo, count: 2) == [1])
    }

    /// Without face_quality, a group's shrunk copy gives way to its photo
    /// even when it measures sharper; within one size step, the score decides.
    @Test func withoutFaceQualityTheLargerFaceOfAGroupComesFirst() {
        var photo = Self.candidate(1, quality: 0)
        photo.faceQuality = nil
        photo.sharpness = 50
        var shrunk = photo
        (shrunk.number, shrunk.source, shrunk.sharpness, shrunk.box.width, shrunk.box.height) = (2, "p2.jpg", 90, 50, 50)
        var sharper = photo
        (sharper.number, sharper.source, sharper.sharpness, sharper.box.width) = (3, "p3.jpg", 70, 104)
        #expect(Self.choose([photo, shrunk], count: 1, groups: [0, 0]) == [1])
        #expect(Self.choose([photo, shrunk, sharper], count: 1, groups: [0, 0, 0]) == [3])
    }

    @Test func captions() {
        func choice(_ candidate: PickCandidate) -> PickChoice {
            PickChoice(candidate: candidate, score: 0.5, scoreSource: .faceQuality, bin: PoseBin(candidate.pose), others: [], why: [])
        }
        let dated = choice(Self.candidate(1, yaw: -40, quality: 0.5, taken: "2019-07-04T12:30:05+02:00"))
        #expect(PickCaption.render(PickCaption.defaultTemplate, dated) == "alice, 2019, left")
        #expect(PickCaption.render("a photo of {name} ({date}), {score}", dated) == "a photo of alice (2019-07-04), 0.5000")
        let undated = choice(Self.candidate(2, quality: 0.5))
        #expect(PickCaption.render(PickCaption.defaultTemplate, undated) == "alice")
        #expect(PickCaption.unknownPlaceholder("{name} {yaer}") == "{yaer}")
        #expect(PickCaption.unknownPlaceholder("{name}, {year}") == nil)
    }

    @Test func captureTimesAsSeconds() {
        #expect(PickGroups.seconds("1970-01-01T00:00:10") == 10)
        #expect(PickGroups.seconds("2019-07-04T12:30:05+02:00")! - PickGroups.seconds("2019-07-04T12:30:00")! == 5)
        #expect(PickGroups.seconds("2020-03-01T00:00:00")! - PickGroups.seconds("2020-02-28T00:00:00")! == 2 * 86_400)
        #expect(PickGroups.seconds("2019-07") == nil)
    }
}

/// A manifest line with the quality record (`pose`, `face_px`,
/// `face_quality`, `quality_reason`) is read with it; one without falls back.
struct PickCandidateTests {
    static func line(_ text: String) -> ManifestLines.Line {
        let object = try! JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        return ManifestLines.Line(text: text, object: object, status: object["status"] as! String, crop: object["crop"] as! String)
    }

    static let base = #""source": "a.jpg", "status": "ok", "face": 0, "bbox": [10,20,100,120], "score": 0.9, "crop": "a.jpg.face0.jpg", "sharpness": 120.5, "phash": "589f7328678665b1", "width": 640, "height": 480, "taken": "2019-07-04T12:30:05+02:00""#

    @Test func theQualityRecordIsUsedWhenTheDatasetHasIt() throws {
        let text = "{" + Self.base + #", "pose": {"yaw": -31.5, "pitch": 4, "roll": 2.25}, "face_px": 64.5, "face_quality": 0.8125, "quality_reason": "blur"}"#
        let candidate = try #require(PickCandidate(Self.line(text), number: 1))
        #expect(candidate.pose == PickCandidate.Pose(yaw: -31.5, pitch: 4, roll: 2.25))
        #expect(PoseBin(candidate.pose) == .left)
        #expect(candidate.size == 64.5 && candidate.qualityReason == "blur" && candidate.year == "2019")
        #expect(PickScore([candidate]).score(candidate) == (0.8125, .faceQuality))
    }

    @Test func aDatasetBeforeTheQualityRecordIsRankedBySharpnessAndSize() throws {
        let sharpSmall = try #require(PickCandidate(Self.line("{" + Self.base + "}"), number: 1))
        var blurredLarge = sharpSmall
        (blurredLarge.number, blurredLarge.sharpness, blurredLarge.box.width) = (2, 10, 300)
        var worst = sharpSmall
        (worst.number, worst.sharpness, worst.box.width, worst.box.height) = (3, 5, 20, 20)
        let scores = PickScore([sharpSmall, blurredLarge, worst])
        #expect(PoseBin(sharpSmall.pose) == .unknown)
        #expect(scores.score(sharpSmall) == (0.75, .sharpnessAndSize))
        #expect(scores.score(blurredLarge) == (0.75, .sharpnessAndSize))
        #expect(scores.score(worst) == (0, .sharpnessAndSize))
    }
}
