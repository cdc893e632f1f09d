import Foundation
import FaceCropCore
import FaceCropCurate

/// Which of a video's faces keep their crops, once all its samples are read
/// and linked into tracks (a track is known whole only at the video's end;
/// crops are cut after, in the second read, so a face left out never has one).
extension VideoStage {
    /// Rejections first, then `--per-track N`'s ranking of the rest.
    package static func chooseTracks(_ faces: inout [FaceRecord], rejections: RejectionsFile, sha256: String, perTrack: Int?) {
        rejectTracks(&faces, rejections: rejections, sha256: sha256)
        if let keep = perTrack {
            // Their crops were never cut.
            _ = bestOfTracks(&faces, keep: keep)
        }
    }

    /// Every face of a track an entry names (`RejectionsFile.rejected`) gets
    /// status rejected and loses its crop's name.
    package static func rejectTracks(_ faces: inout [FaceRecord], rejections: RejectionsFile, sha256: String) {
        let rejected = rejections.rejectedTracks(faces, sha256: sha256)
        for index in faces.indices where rejected[index] && faces[index].status == .ok {
            faces[index].status = .rejected
            faces[index].crop = ""
            faces[index].transform = nil
            faces[index].phash = nil
        }
    }

    /// `--per-track N`: keeps the `keep` best crops of each track (by
    /// face_quality, then earliest), each with its rank and the track's length;
    /// returns the crops of the others, which leave the record.
    package static func bestOfTracks(_ faces: inout [FaceRecord], keep: Int) -> [String] {
        var byTrack: [Int: [Int]] = [:]
        for (index, face) in faces.enumerated() where face.status == .ok {
            byTrack[face.video?.track ?? 0, default: []].append(index)
        }
        var dropped = Set<Int>()
        for members in byTrack.values {
            let ranked = members.sorted { a, b in
                let qa = faces[a].quality?.score ?? 0
                let qb = faces[b].quality?.score ?? 0
                return qa != qb ? qa > qb : a < b
            }
            for (rank, index) in ranked.enumerated() {
                if rank < keep {
                    faces[index].video?.rank = rank + 1
                    faces[index].video?.trackLength = members.count
                } else {
                    dropped.insert(index)
                }
            }
        }
        let crops = dropped.sorted().map { faces[$0].crop }
        faces = faces.enumerated().filter { !dropped.contains($0.offset) }.map(\.element)
        return crops
    }
}
