import Foundation

extension PhotoProcessor {
    /// A video's rejections, once all its samples are read and linked:
    /// every face of a track an entry names (`RejectionsFile.rejected`) gets
    /// status rejected and loses its crop's name (a track is known whole
    /// only at the video's end; crops are cut after, in the second read, so
    /// a rejected face's is never made). Before `--per-track` ranks the rest.
    func rejectTracks(_ faces: inout [FaceRecord], sha256: String) {
        let rejected = rejections.rejectedTracks(faces, sha256: sha256)
        for index in faces.indices where rejected[index] && faces[index].status == .ok {
            faces[index].status = .rejected
            faces[index].crop = ""
            faces[index].transform = nil
            faces[index].phash = nil
        }
    }
}
