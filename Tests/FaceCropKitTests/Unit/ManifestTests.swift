import Testing

@testable import FaceCropKit

struct ManifestTests {
    @Test func faceLinesFollowTheContract() {
        let outcome = PhotoOutcome(
            input: 0, source: "trip/IMG_1.heic", status: .ok,
            faces: [
                FaceCrop(index: 0, bbox: .init(x: 10, y: 20, width: 30, height: 40), score: 5.25, crop: "trip/IMG_1.heic.face0.jpg", padded: false),
                FaceCrop(index: 1, bbox: .init(x: 1, y: 2, width: 3, height: 4), score: 2, crop: "trip/IMG_1.heic.face1.jpg", padded: true),
            ], width: 4032, height: 3024, sha256: "ab")
        let lines = ManifestWriter.lines(for: outcome, labels: [""])
        #expect(lines == [
            #"{"source": "trip/IMG_1.heic", "status": "ok", "face": 0, "bbox": [10,20,30,40], "score": 5.25, "crop": "trip/IMG_1.heic.face0.jpg", "padded": false, "target": "face", "aligned": false, "angle": 0, "sharpness": 0, "width": 4032, "height": 3024, "sha256": "ab"}"#,
            #"{"source": "trip/IMG_1.heic", "status": "ok", "face": 1, "bbox": [1,2,3,4], "score": 2, "crop": "trip/IMG_1.heic.face1.jpg", "padded": true, "target": "face", "aligned": false, "angle": 0, "sharpness": 0, "width": 4032, "height": 3024, "sha256": "ab"}"#,
        ])
    }

    @Test func photosWithoutCropsGetOneLine() {
        let none = PhotoOutcome(input: 1, source: "b.png", status: .noFace, width: 10, height: 20, sha256: "cd")
        #expect(ManifestWriter.lines(for: none, labels: ["a", "b"]) == [
            #"{"source": "b.png", "status": "no_face", "input": "b", "width": 10, "height": 20, "sha256": "cd"}"#
        ])
        let nobody = PhotoOutcome(input: 0, source: "tree.jpg", status: .noPerson, width: 10, height: 20, sha256: "ef")
        #expect(ManifestWriter.lines(for: nobody, labels: [""]) == [
            #"{"source": "tree.jpg", "status": "no_person", "width": 10, "height": 20, "sha256": "ef"}"#
        ])
        let failed = PhotoOutcome(
            input: 0, source: "x.jpg", status: .error, error: .notAnImage("x.jpg", reason: "empty file (0 bytes)"))
        #expect(ManifestWriter.lines(for: failed, labels: [""]) == [
            #"{"source": "x.jpg", "status": "error", "error": "not a readable image: empty file (0 bytes)"}"#
        ])
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
        #expect(PhotoProcessor.cropName(prefix: "a.jpg", index: 0, format: .jpg) == "a.jpg.face0.jpg")
        #expect(PhotoProcessor.cropName(prefix: "a.heic", index: 0, format: .jpg) == "a.heic.face0.jpg")
        #expect(PhotoProcessor.cropName(prefix: "t/a.png", index: 12, format: .webp) == "t/a.png.face12.webp")
    }
}
