import Foundation
import FaceCropCore

/// How large a picked crop's source is: the square of photo pixels it is
/// cut from (pick's `--margin` around the face box, kept inside the photo
/// under `--pad inside`, shrunk where the photo is smaller), the margin that
/// square gives, and its enlargement: the crop's side over the square's.
/// Pure: from the manifest's box and photo size alone, so a crop that would
/// be enlarged past `--max-upscale` is known before anything is decoded.
package struct PickSizing: Sendable {
    package var size: Int
    package var margin: Double
    package var pad: PadMode

    package init(size: Int, margin: Double, pad: PadMode) {
        (self.size, self.margin, self.pad) = (size, margin, pad)
    }

    /// The square's side in photo pixels. A dataset that did not record
    /// the photo's size gives the square as the margin asks, not shrunk.
    package func sourceSide(_ candidate: PickCandidate) -> Int {
        guard let width = candidate.width, let height = candidate.height else { return askedSide(candidate) }
        return CropGeometry.cropSquare(
            around: candidate.box, margin: margin, imageWidth: width, imageHeight: height, inside: pad.keepsInside
        ).side
    }

    /// Output side ÷ source side: 2.0 means every source pixel became two
    /// across; under 1, the crop was made smaller.
    package func enlargement(_ candidate: PickCandidate) -> Double {
        Double(size) / Double(sourceSide(candidate))
    }

    /// The square's side as the margin asks, before any shrinking.
    package func askedSide(_ candidate: PickCandidate) -> Int {
        CropGeometry.squareSide(around: candidate.box, margin: margin)
    }

    /// The margin the square gives the face: `--margin`, or less where the
    /// photo was too small for it.
    package func marginUsed(_ candidate: PickCandidate) -> Double {
        CropGeometry.marginUsed(side: sourceSide(candidate), face: candidate.box, asked: margin)
    }

    /// Rounded for the files: 4 decimals.
    package static func rounded(_ value: Double) -> Double { (value * 10_000).rounded() / 10_000 }

    /// The reason a crop enlarged `factor` times is left out under `--max-upscale limit`.
    package static func upscaleReason(_ factor: Double, side: Int, size: Int, limit: Double) -> String {
        "enlarged \(PickJSON.decimal(factor, places: 2)) x (\(side) photo pixels to \(size)), over --max-upscale \(PickJSON.decimal(limit, places: 2))"
    }
}

/// A face of the pool that pick did not write, and why: every face of the
/// person (or of the dataset, by photo) is either in `picked` or here.
package struct PickLeftOut: Sendable {
    package var candidate: PickCandidate
    package var reason: String
    /// Left out for its size (`--max-upscale`, or a copy not at the set's
    /// size): the summary counts these.
    package var forSize = false

    package init(candidate: PickCandidate, reason: String, forSize: Bool = false) {
        (self.candidate, self.reason, self.forSize) = (candidate, reason, forSize)
    }

    /// The reasons for the pool's crops not chosen: left out before choosing
    /// (`excluded`), a near-duplicate of a chosen crop, ruled out by the
    /// one-per-photo or per-track limit, ranked below a near-duplicate, or
    /// not reached within the count. `chosen` are the crops chosen.
    package static func reasons(
        _ pool: [PickCandidate], groups: [Int], chosen: [PickChoice], excluded: [Int: String], scores: PickScore,
        perTrack: Int, count: Int
    ) -> [PickLeftOut] {
        let chosenNumbers = Set(chosen.map(\.candidate.number))
        var usage = Usage(poorBelow: 0, perTrack: perTrack)
        var byGroup: [Int: Int] = [:]
        var photoCrop: [String: Int] = [:]
        for choice in chosen {
            usage.add(PickChooser.Entry(candidate: choice.candidate, score: choice.score, source: choice.scoreSource, bin: choice.bin))
            if let index = pool.firstIndex(where: { $0.number == choice.candidate.number }) { byGroup[groups[index]] = choice.candidate.number }
            if choice.candidate.track == nil { photoCrop[choice.candidate.photoKey] = choice.candidate.number }
        }
        var members: [Int: [Int]] = [:]
        for (index, group) in groups.enumerated() { members[group, default: []].append(index) }
        var out: [PickLeftOut] = []
        for (index, candidate) in pool.enumerated() where !chosenNumbers.contains(candidate.number) {
            let (score, source) = scores.score(candidate)
            let entry = PickChooser.Entry(candidate: candidate, score: score, source: source, bin: PoseBin(candidate.pose))
            let reason: String
            if let why = excluded[candidate.number] {
                reason = why
            } else if let twin = byGroup[groups[index]] {
                reason = "near-duplicate of crop \(twin), which was picked"
            } else if !usage.allows(entry) {
                reason = candidate.track != nil
                    ? "per-track limit: \(perTrack) crop\(perTrack == 1 ? "" : "s") of this video track picked (--per-track)"
                    : "one crop per photo: crop \(photoCrop[candidate.photoKey] ?? 0) of this photo was picked"
            } else if let better = betterTwin(
                candidate, among: members[groups[index]] ?? [], pool: pool, excluded: excluded, scores: scores)
            {
                reason = "near-duplicate of crop \(better), which ranks above it; neither was reached within the count"
            } else {
                reason = "not reached: the count (\(count)) was filled by crops newer in pose or year, or better scored"
            }
            out.append(PickLeftOut(candidate: candidate, reason: reason, forSize: excluded[candidate.number] != nil))
        }
        return out
    }

    /// The best-ranked crop of `candidate`'s group (`among`: the group's
    /// indices in `pool`) above it, not excluded.
    static func betterTwin(
        _ candidate: PickCandidate, among: [Int], pool: [PickCandidate], excluded: [Int: String], scores: PickScore
    ) -> Int? {
        func entry(_ c: PickCandidate) -> PickChooser.Entry {
            let (score, source) = scores.score(c)
            return PickChooser.Entry(candidate: c, score: score, source: source, bin: PoseBin(c.pose))
        }
        let mine = PickChooser.rank(entry(candidate))
        var best: (rank: (Int, Double, Int, Int), number: Int)?
        for other in among where pool[other].number != candidate.number && excluded[pool[other].number] == nil {
            let twin = pool[other]
            let rank = PickChooser.rank(entry(twin))
            if rank > mine, best.map({ rank > $0.rank }) ?? true { best = (rank, twin.number) }
        }
        return best?.number
    }
}
