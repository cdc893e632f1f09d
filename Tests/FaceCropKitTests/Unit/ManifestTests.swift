import Foundation
import Testing
import FaceCropCore
import FaceCropOutput
import FaceCropPhoto


struct ManifestTests {
    /// A record of a photo, as the stages make it.
    static func record(_ input: Int, _ source: String, _ status: PhotoStatus, label: String = "", sha256: String? = nil)
        -> PhotoRecord
    {
        PhotoRecord(label: label, input: input, source: source, size: 1, modified: 2, sha256: sha256, status: status)
    }

    static let faces = [
        FaceRecord(index: 0, box: .init(x: 10, y: 20, width: 30, height: 40), score: 5.25, crop: "trip/IMG_1.heic.face0.jpg", padded: false),
        FaceRecord(index: 1, box: .init(x: 1, y: 2, width: 3, height: 4), score: 2, crop: "trip/IMG_1.heic.face1.jpg", padded: true),
    ]

    @Test func faceLinesFollowTheContract() {
        var outcome = Self.record(0, "trip/IMG_1.heic", .ok, sha256: "ab")
        outcome.faces = Self.faces
        outcome.width = 4032
        outcome.height = 3024
        let lines = Manifest.lines(of: outcome)
        #expect(lines == [
            #"{"source": "trip/IMG_1.heic", "status": "ok", "face": 0, "bbox": [10,20,30,40], "score": 5.25, "crop": "trip/IMG_1.heic.face0.jpg", "padded": false, "target": "face", "aligned": false, "angle": 0, "sharpness": 0, "landmarks": null, "landmarks_estimated": null, "transform": null, "width": 4032, "height": 3024, "sha256": "ab"}"#,
            #"{"source": "trip/IMG_1.heic", "status": "ok", "face": 1, "bbox": [1,2,3,4], "score": 2, "crop": "trip/IMG_1.heic.face1.jpg", "padded": true, "target": "face", "aligned": false, "angle": 0, "sharpness": 0, "landmarks": null, "landmarks_estimated": null, "transform": null, "width": 4032, "height": 3024, "sha256": "ab"}"#,
        ])
    }

    @Test func photosWithoutCropsGetOneLine() {
        var none = Self.record(1, "b.png", .noFace, label: "b", sha256: "cd")
        (none.width, none.height) = (10, 20)
        #expect(Manifest.lines(of: none) == [
            #"{"source": "b.png", "status": "no_face", "input": "b", "width": 10, "height": 20, "sha256": "cd"}"#
        ])
        var nobody = Self.record(0, "tree.jpg", .noPerson, sha256: "ef")
        (nobody.width, nobody.height) = (10, 20)
        #expect(Manifest.lines(of: nobody) == [
            #"{"source": "tree.jpg", "status": "no_person", "width": 10, "height": 20, "sha256": "ef"}"#
        ])
        let photo = Photo(inputIndex: 0, source: "x.jpg", path: "/nonexistent/x.jpg", outputPrefix: "x.jpg")
        let failed = PhotoRecord(photo, failed: .notAnImage("x.jpg", reason: "empty file (0 bytes)"))
        #expect(Manifest.lines(of: failed) == [
            #"{"source": "x.jpg", "status": "error", "error": "not a readable image: empty file (0 bytes)"}"#
        ])
    }

    /// A state entry as an earlier version wrote it (manifest lines kept
    /// verbatim) is read into a typed record that writes the same bytes again.
    @Test(arguments: [
        #"{"input": "", "index": 0, "source": "trip/IMG_1.heic", "size": 1, "mtime_ns": 2, "sha256": "ab", "status": "ok", "crops": ["trip/IMG_1.heic.face0.jpg"], "lines": ["{\"source\": \"trip/IMG_1.heic\", \"status\": \"ok\", \"face\": 0, \"bbox\": [10,20,30,40], \"score\": 0.9123, \"crop\": \"trip/IMG_1.heic.face0.jpg\", \"padded\": true, \"target\": \"face\", \"aligned\": true, \"angle\": -3.27, \"sharpness\": 1234.56, \"landmarks\": {\"left_eye\": [12.5,30], \"right_eye\": [30.25,30.5], \"nose\": [21,40], \"mouth_left\": [14,50], \"mouth_right\": [28,50]}, \"landmarks_estimated\": [\"nose\",\"mouth_left\",\"mouth_right\"], \"transform\": [[2.5,0.125,-3.75],[-0.125,2.5,1]], \"width\": 4032, \"height\": 3024, \"sha256\": \"ab\"}"]}"#,
        #"{"input": "b", "index": 1, "source": "b.png", "size": 5, "mtime_ns": 6, "sha256": "cd", "status": "no_face", "crops": [], "lines": ["{\"source\": \"b.png\", \"status\": \"no_face\", \"input\": \"b\", \"width\": 10, \"height\": 20, \"sha256\": \"cd\"}"]}"#,
        #"{"input": "", "index": 0, "source": "x.jpg", "size": 0, "mtime_ns": 0, "sha256": null, "status": "error", "crops": [], "lines": ["{\"source\": \"x.jpg\", \"status\": \"error\", \"error\": \"not a readable image: empty file (0 bytes)\"}"]}"#,
    ])
    func stateEntriesReadBackToTheSameBytes(entry: String) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any])
        let record = try #require(PhotoRecord(state: object))
        #expect(record.stateJSON.serialized() == entry)
    }

    @Test func aStateEntryWithALineItCannotReadIsSkipped() throws {
        let entry = #"{"input": "", "index": 0, "source": "a.jpg", "size": 1, "mtime_ns": 2, "sha256": "ab", "status": "ok", "crops": ["a.jpg.face0.jpg"], "lines": ["{\"source\": \"a.jpg\", \"status\": \"ok\"}"]}"#
        let object = try #require(try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any])
        #expect(PhotoRecord(state: object) == nil)
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote\" and \\ slash", #""quote\" and \\ slash""#),
        ("line\nbreak\ttab", #""line\nbreak\ttab""#),
        ("bell\u{07}", #""bell\u0007""#),
        ("café 🙂", #""café 🙂""#),
    ])
    func stringsAreEscaped(text: String, json: String) {
        #expect(JSON.string(text).serialized() == json)
    }

    @Test func numbersAreStable() {
        #expect(JSON.double(56.3614).serialized() == "56.3614")
        #expect(JSON.double(2).serialized() == "2")
        #expect(JSON.double(.nan).serialized() == "null")
    }

    @Test func cropNamesKeepTheWholePhotoName() {
        #expect(PlaceStage.cropName(prefix: "a.jpg", index: 0, format: .jpg) == "a.jpg.face0.jpg")
        #expect(PlaceStage.cropName(prefix: "a.heic", index: 0, format: .jpg) == "a.heic.face0.jpg")
        #expect(PlaceStage.cropName(prefix: "t/a.png", index: 12, format: .webp) == "t/a.png.face12.webp")
    }
}
