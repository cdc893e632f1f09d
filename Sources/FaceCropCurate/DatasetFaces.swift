import Foundation
import FaceCropCore
import FaceCropInputs
import FaceCropOutput

/// The faces with a crop of a dataset, from its manifest.jsonl (read one line
/// at a time through `ManifestLines`), as the curation commands name them:
/// `facecrop reject`, `facecrop people` and its statements.
package struct DatasetFace {
    /// Its crop's number (1-based, manifest order), as on the contact sheet and report.
    package var number: Int
    /// The crop file, relative to the dataset.
    package var crop: String
    /// The photo as the manifest names it (`input/source`) and the face's number in it.
    package var photo: String
    package var face: Int
    /// Its photo's content and its box; a video's crop also its sample's time.
    package var handle: Rejection
    /// A video's crop: its sample's time and track.
    package var video: VideoFace?
    /// The manifest line's other fields (JSONReading's types).
    package var fields: [String: Any]

    /// The comment facecrop writes after a curation line about this face.
    package var note: String { Rejection.note(photo: photo, face: face, video: video) }

    /// Every face with a crop of the dataset at `dataset`, in manifest order.
    package static func all(dataset: String) throws(FaceCropError) -> [DatasetFace] {
        let path = (dataset as NSString).appendingPathComponent(Manifest.fileName)
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder), !folder.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw .inputMissing(path, reason: "no \(Manifest.fileName) here: not a facecrop dataset")
        }
        var faces: [DatasetFace] = []
        for line in ManifestLines(path: path) {
            if let face = DatasetFace(line.object, number: faces.count + 1) { faces.append(face) }
        }
        return faces
    }

    private init?(_ object: [String: Any], number: Int) {
        guard let crop = object["crop"] as? String, let sha256 = object["sha256"] as? String,
            let box = object["bbox"] as? [Int], box.count == 4, let source = object["source"] as? String,
            let face = object["face"] as? Int
        else { return nil }
        // A video's crop carries its sample's time, so its whole track is named.
        let isVideo = object["video"] as? Bool == true
        let time = isVideo ? object["time"] as? Double : nil
        self.number = number
        self.crop = crop
        self.photo = PhotoFinder.join(object["input"] as? String ?? "", source)
        self.face = face
        self.handle = Rejection(sha256: sha256, box: PixelRect(x: box[0], y: box[1], width: box[2], height: box[3]), time: time)
        self.video = time.map { VideoFace(time: $0, frame: 0, track: isVideo ? object["track"] as? Int ?? 0 : 0) }
        self.fields = object
    }
}
