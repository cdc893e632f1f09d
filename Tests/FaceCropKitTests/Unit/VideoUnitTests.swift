import Foundation
import Testing
import FaceCropCore
import FaceCropImaging
import FaceCropInputs
import FaceCropCurate
import FaceCropVideo


/// The Live Photo rule and the crop-name times: pure.
struct VideoUnitTests {
    @Test(arguments: [
        ("IMG_0001.MOV", ["IMG_0001.HEIC", "IMG_0001.MOV"], true),
        ("img_0001.mov", ["IMG_0001.JPG"], true),
        ("IMG_0001.MOV", ["IMG_0001.jpeg"], true),
        ("IMG_0001.MOV", ["IMG_0002.HEIC"], false),
        ("IMG_0001.MP4", ["IMG_0001.HEIC"], false),
        ("IMG_0001.MOV", ["IMG_0001.PNG"], false),
        ("clip.mov", ["clip.mov"], false),
    ])
    func livePhotoRule(name: String, folder: [String], skipped: Bool) {
        #expect(LivePhoto.isMotion(name, stills: LivePhoto.stillStems(folder)) == skipped)
    }

    /// The video's detection size is the one libvips' thumbnail gives a photo.
    @Test(arguments: [(1920, 1080, 1024), (1366, 768, 1024), (1080, 1920, 1024), (1001, 777, 640), (1023, 1025, 1024),
                      (2000, 1125, 1024), (640, 360, 1024), (3840, 2160, 1280)])
    func detectionSizeIsThePhotosOne(width: Int, height: Int, side: Int) throws {
        let frame = [UInt8](repeating: 128, count: width * height * 3)
        let picture = try frame.withUnsafeBytes { try Picture.frame(rgb: $0, width: width, height: height, source: "t") }
        let gray = try picture.fitting(side, side, source: "t").grayPixels(source: "t")
        let size = VideoStage.detectionSize((width, height), side: side)
        #expect(size.width == gray.width && size.height == gray.height)
    }

    @Test func exactSelectFindsEveryWantedPTS() {
        #expect(FrameReader.exactSelect([]) == "0")
        #expect(FrameReader.exactSelect([7]) == "eq(pts\\,7)")
        #expect(FrameReader.exactSelect([1, 5, 9]) == "if(lt(pts\\,5)\\,eq(pts\\,1)\\,if(lt(pts\\,9)\\,eq(pts\\,5)\\,eq(pts\\,9)))")
    }

    @Test func timeTagsAreMillisecondsRoundedDown() {
        let probe = VideoProbe(
            stream: 0, storedWidth: 2, storedHeight: 2, rotation: 0, timeBase: (1, 90_000), duration: nil, transfer: "",
            pixelFormat: "")
        #expect(VideoStage.timeTag(1_111_111, probe: probe) == "t000012.345")
        #expect(VideoStage.timeTag(0, probe: probe) == "t000000.000")
        #expect(VideoStage.time(1_111_111, probe: probe) == 12.345678)
        #expect(VideoStage.frameNumber(30, packets: [0, 10, 20, 30, 40]) == 3)
    }

    @Test func containerTimes() {
        #expect(CaptureTime(iso8601: "2021-06-05T14:03:07+0200")?.description == "2021-06-05T14:03:07+02:00")
        #expect(CaptureTime(iso8601: "2020-01-02T03:04:05.000000Z")?.description == "2020-01-02T03:04:05Z")
        #expect(CaptureTime(iso8601: "2020-01-02T03:04:05-05:00")?.description == "2020-01-02T03:04:05-05:00")
        #expect(CaptureTime(iso8601: "2020-01-02T03:04:05")?.description == "2020-01-02T03:04:05")
        for bad in ["garbage", "", "2020-13-02T03:04:05Z", "2020-01-02T03:04:05+02", "2020-01-02T03:04:05Zjunk",
            "1970-01-01T00:00:00.000000Z", "1904-01-01T00:00:00Z"]
        {
            #expect(CaptureTime(iso8601: bad) == nil, "\(bad)")
        }
        let tags: [String: Any] = ["com.apple.quicktime.creationdate": "garbage", "creation_time": "2020-01-02T03:04:05Z"]
        #expect(VideoTaken.capture(format: tags, stream: nil)?.description == "2020-01-02T03:04:05Z")
        #expect(VideoTaken.capture(format: nil, stream: ["creation_time": "2019-01-01T00:00:01.5Z"])?.description == "2019-01-01T00:00:01Z")
        #expect(VideoTaken.capture(format: [:], stream: [:]) == nil)
    }

    /// A video entry's line: `t=` after the box; older lines without it still read.
    @Test func videoRejectionLines() throws {
        let hash = String(repeating: "ab", count: 32)
        let text = "\(hash) 10,20,30,40\n\(hash) 10,20,30,40 t=1.733333  # clip.mp4 1.733333 s track 2 face 0\n"
        let file = try RejectionsFile.parse(text, file: "r.txt")
        #expect(file.entries.map(\.time) == [nil, 1.733333])
        #expect(file.text == text)
        #expect(Rejection(sha256: hash, box: PixelRect(x: 1, y: 2, width: 3, height: 4), time: 0.25).description == "\(hash) 1,2,3,4 t=0.25")
        for bad in ["\(hash) 10,20,30,40 1.5", "\(hash) 10,20,30,40 t=-1", "\(hash) 10,20,30,40 t=x"] {
            #expect(throws: RejectionsError.self) { try RejectionsFile.parse(bad, file: "r.txt") }
        }
        // Faces of two tracks: the entry at 1.733333 names track 2 (at its sample) and all of it goes.
        func face(_ x: Int, _ time: Double, _ track: Int) -> FaceRecord {
            var face = FaceRecord(index: 0, box: PixelRect(x: x, y: 20, width: 30, height: 40), score: 1)
            face.video = VideoFace(time: time, frame: 0, track: track)
            return face
        }
        let timed = try RejectionsFile.parse("\(hash) 10,20,30,40 t=1.733333\n", file: "r.txt")
        let faces = [face(10, 1.5, 2), face(200, 1.5, 3), face(12, 1.733333, 2), face(10, 9, 4), face(300, 20, 2)]
        #expect(timed.rejectedTracks(faces, sha256: hash) == [true, false, true, false, true])
        // No sample at its time: the overlapping faces within 1 s.
        let other = [face(10, 1.0, 5), face(10, 3.0, 6), face(100, 1.6, 7)]
        #expect(timed.rejectedTracks(other, sha256: hash) == [true, false, false])
        // Without a time: every track whose face the box overlaps.
        let untimed = try RejectionsFile.parse("\(hash) 10,20,30,40\n", file: "r.txt")
        #expect(untimed.rejectedTracks(faces, sha256: hash) == [true, false, true, true, true])
    }

    @Test func sceneSelection() {
        var settings = VideoSettings.defaults
        #expect(VideoSampling.select(settings) == "select='if(gte(t\\,ld(0))\\,st(0\\,(floor(t*1.0+1e-6)+1)/1.0)\\,0)'")
        settings.sceneThreshold = 0.3
        #expect(VideoSampling.select(settings).contains("gt(scene\\,0.3)*gte(t\\,ld(1))\\,st(1\\,t+0.5)"))
        #expect(settings.description.hasSuffix(" scenes=0.3"))
        #expect(!VideoSettings.defaults.description.contains("scenes"))
    }
}

/// The tracker: pure, on boxes and gray frames made here.
struct TrackerTests {
    let plain = GrayImage(width: 8, height: 8, pixels: [UInt8](repeating: 100, count: 64))
    let other = GrayImage(width: 8, height: 8, pixels: [UInt8](repeating: 250, count: 64))
    func box(_ x: Int) -> PixelRect { PixelRect(x: x, y: 10, width: 100, height: 100) }

    @Test func movingFacesKeepTheirTracksAndNewOnesGetTheNextID() {
        var tracker = Tracker()
        #expect(tracker.assign([box(0), box(400)], gray: plain) == [0, 1])
        // Both moved 20 px; listed the other way round.
        #expect(tracker.assign([box(420), box(20)], gray: plain) == [1, 0])
        #expect(tracker.assign([box(40), box(800)], gray: plain) == [0, 2])
    }

    @Test func aShortMissIsAllowedALongOneIsNot() {
        var tracker = Tracker()
        #expect(tracker.assign([box(0)], gray: plain) == [0])
        #expect(tracker.assign([], gray: plain) == [])
        #expect(tracker.assign([], gray: plain) == [])
        #expect(tracker.assign([box(0)], gray: plain) == [0])
        for _ in 0..<3 { _ = tracker.assign([], gray: plain) }
        #expect(tracker.assign([box(0)], gray: plain) == [1])
    }

    @Test func aCutEndsEveryTrack() {
        var tracker = Tracker()
        #expect(tracker.assign([box(0)], gray: plain) == [0])
        #expect(tracker.assign([box(0)], gray: other) == [1])
        #expect(tracker.assign([box(0)], gray: other) == [1])
    }

    @Test func frontality() {
        let frontal = FaceLandmarks([Point2D(30, 40), Point2D(70, 40), Point2D(50, 60), Point2D(35, 80), Point2D(65, 80)])
        let turned = FaceLandmarks([Point2D(30, 40), Point2D(70, 40), Point2D(62, 60), Point2D(35, 80), Point2D(65, 80)])
        let past = FaceLandmarks([Point2D(30, 40), Point2D(70, 40), Point2D(75, 60), Point2D(35, 80), Point2D(65, 80)])
        #expect(TrackQuality.frontality(frontal) == 1)
        #expect(TrackQuality.frontality(turned) == 0.181)  // (8/32 + 3/27) / 2
        #expect(TrackQuality.frontality(past) == 0)
    }
}
