import Foundation
import FaceCropCore
import FaceCropImaging
import FaceCropDetect
import FaceCropOutput
import FaceCropPhoto

/// A video's second read: the frames whose crops are kept, by their exact
/// pts, at full size; cuts and writes those crops and, with `--people`,
/// takes their descriptors from the same full-size frame (only the crops
/// kept: with `--per-track N`, those N).
package struct SecondRead {
    package let video: VideoInput
    package let writer: WriteStage
    package let stop: StopRequest?

    /// Cuts the crops `faces` still name from the samples in `pending`;
    /// each file written is added to `written`. Returns how many frames it read.
    package func cut(
        _ faces: inout [FaceRecord], pending: [PendingSample], written: inout [String], embedder: Embedder?
    ) throws(FaceCropError) -> Int {
        var kept: [String: Int] = [:]
        for (index, face) in faces.enumerated() where face.status == .ok && !face.crop.isEmpty { kept[face.crop] = index }
        let frames = pending.filter { $0.placement.names.contains { kept[$0] != nil } }
        guard !frames.isEmpty else { return 0 }
        // The graph names every frame: a file, not a command line (whose
        // arguments are limited to 128 KiB each).
        let script = writer.temporaries.make(for: (writer.outputRoot as NSString).appendingPathComponent("filters"))
        defer {
            unlink(script)
            writer.temporaries.forget(script)
        }
        try writeFilters(to: script, only: frames.map(\.pts))
        let reader = try FrameReader(
            video.tools, path: video.path, probe: video.probe, settings: video.settings.video, script: script,
            source: video.source)
        defer { reader.cancel() }
        var next = 0
        while next < frames.count, try reader.next({ frame, pixels throws(FaceCropError) in
            if stop?.requested != nil {
                throw VideoMessage.interrupted(video.source)
            }
            // A second frame of the same pts (a broken stream) is passed over.
            guard frame.pts == frames[next].pts else { return }
            let sample = frames[next]
            next += 1
            let picture = try Picture.frame(rgb: pixels, width: frame.width, height: frame.height, source: video.source)
            try cut(sample, from: picture, kept: kept, faces: &faces, written: &written, embedder: embedder)
        }) {}
        guard next == frames.count else {
            try reader.finish()
            throw VideoMessage.secondReadMissed(video.source, seconds: "\(video.time(frames[next].pts))")
        }
        return next
    }

    /// ffmpeg's filter graph for the full-size frames at `only`, in the file `script`.
    private func writeFilters(to script: String, only: [Int]) throws(FaceCropError) {
        let graph = FrameReader.filters(video.probe, settings: video.settings.video, size: video.full, only: only)
        guard FileManager.default.createFile(atPath: script, contents: Data(graph.utf8)) else {
            throw .writeFailed(video.source, reason: "cannot write ffmpeg's filter script '\(script)'")
        }
    }

    /// The kept crops of one sample, cut from its full-size frame.
    private func cut(
        _ sample: PendingSample, from picture: Picture, kept: [String: Int], faces: inout [FaceRecord],
        written: inout [String], embedder: Embedder?
    ) throws(FaceCropError) {
        let source = video.source
        let names = sample.placement.names.filter { kept[$0] != nil }
        try writer.prepare(names, prefix: video.prefix, source: source)
        for (offset, name) in sample.placement.names.enumerated() {
            guard let index = kept[name] else { continue }
            let (encoded, transform) = try writer.cut(
                sample.placement.faces[offset], from: picture, sx: 1, sy: 1, origin: (0, 0), source: source)
            written.append(try writer.save(encoded, as: name, source: source))
            faces[index].transform = AlignmentJSON.rounded(transform)
            faces[index].phash = try PerceptualHash(encoded: encoded, source: source)
            if let embedder {
                faces[index].embedding = try WriteStage.embedding(
                    of: faces[index].box, landmarks: faces[index].landmarks, from: picture, sx: 1, sy: 1, origin: (0, 0),
                    embedder: embedder, source: source)
            }
        }
    }
}
