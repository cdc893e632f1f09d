import Foundation

/// One crop chosen, and why.
package struct PickChoice: Sendable {
    package var candidate: PickCandidate
    package var score: Double
    package var scoreSource: PickScore.Source
    package var bin: PoseBin
    /// The other crops of its group (near-duplicates), by dataset crop number.
    package var others: [Int]
    /// Sentences for pick.json.
    package var why: [String]

    package init(candidate: PickCandidate, score: Double, scoreSource: PickScore.Source, bin: PoseBin, others: [Int],
        why: [String]) {
        (self.candidate, self.score, self.scoreSource, self.bin) = (candidate, score, scoreSource, bin)
        (self.others, self.why) = (others, why)
    }
}

/// Chooses N crops from a pool: at most one per group of near-duplicates
/// (`PickGroups`), one per photo and `perTrack` per video track. Each group
/// offers its best crop (`rank`) that those limits still allow; of these, one at a time, the crop whose pose bin has been
/// used least is taken, then whose capture year, then capture day, has been
/// used least, then the best score, then the first in manifest order. So
/// every bin the pool has is used before any bin is used twice, and within
/// that every year before any year twice; the score decides only between
/// crops that are equally new. A crop scoring under half the median of the
/// groups' best (`poorShare`) comes only after every other: a new bin or
/// year is not worth a blurred, tiny face. The same pool always gives the
/// same choice. Crops in `excluded` (by crop number) are never chosen.
package enum PickChooser {
    package struct Entry {
        package var candidate: PickCandidate
        package var score: Double
        package var source: PickScore.Source
        package var bin: PoseBin
    }

    package static let poorShare = 0.5

    package static func choose(
        _ pool: [PickCandidate], groups: [Int], scores: PickScore, count: Int, perTrack: Int, excluded: [Int: String] = [:]
    ) -> [PickChoice] {
        // A crop left out before choosing (`--max-upscale`) gives way to
        // the next best of its group.
        var remaining = members(pool, groups: groups, scores: scores).map { $0.filter { excluded[$0.candidate.number] == nil } }
            .filter { !$0.isEmpty }
        var used = Usage(poorBelow: poorShare * median(remaining.map { $0[0].score }), perTrack: perTrack)
        var chosen: [PickChoice] = []
        while chosen.count < count {
            var best: (group: Int, member: Int)?
            for (group, entries) in remaining.enumerated() {
                guard let member = entries.firstIndex(where: used.allows) else { continue }
                if let current = best, !used.before(entries[member], remaining[current.group][current.member]) { continue }
                best = (group, member)
            }
            guard let best else { break }
            let entries = remaining.remove(at: best.group)
            let entry = entries[best.member]
            let others = entries.map(\.candidate.number).filter { $0 != entry.candidate.number }.sorted()
            chosen.append(
                PickChoice(
                    candidate: entry.candidate, score: entry.score, scoreSource: entry.source, bin: entry.bin,
                    others: others, why: used.reasons(entry, others: others.count)))
            used.add(entry)
        }
        return chosen
    }

    package static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
    }

    /// How a group's crops are ordered, best first: by score, then manifest
    /// order. Ranked by the stand-in score (a dataset without
    /// `face_quality`), the crop with the larger face in steps of a quarter
    /// octave (19 %) comes first: of near-duplicates, a shrunk copy has the
    /// smaller face, and the stand-in's sharpness cannot tell a recompressed
    /// copy (whose blocks look sharp) from its photo. Steps, so that a box
    /// a few pixels larger on a copy of the same size does not decide.
    /// Ranked by `face_quality`, the larger face in those steps decides
    /// between equal scores (faces with nothing wrong all score 1).
    package static func rank(_ entry: Entry) -> (Int, Double, Int, Int) {
        let step = Int((log2(max(entry.candidate.size, 1)) * 4).rounded(.down))
        return entry.source == .faceQuality
            ? (0, entry.score, step, -entry.candidate.number) : (step, entry.score, 0, -entry.candidate.number)
    }

    /// Each group's crops, best first (`rank`); the groups in the order of
    /// their first crop.
    package static func members(_ pool: [PickCandidate], groups: [Int], scores: PickScore) -> [[Entry]] {
        var byGroup: [Int: [Entry]] = [:]
        for (index, candidate) in pool.enumerated() {
            let (score, source) = scores.score(candidate)
            byGroup[groups[index], default: []].append(
                Entry(candidate: candidate, score: score, source: source, bin: PoseBin(candidate.pose)))
        }
        return byGroup.values.map { entries in entries.sorted { rank($0) > rank($1) } }.sorted { $0.map(\.candidate.number).min()! < $1.map(\.candidate.number).min()! }
    }
}

/// What a pick has used so far: crops per pose bin, year, day, photo and track.
package struct Usage {
    package var bins: [PoseBin: Int] = [:]
    package var years: [String: Int] = [:]
    package var days: [String: Int] = [:]
    package var photos: Set<String> = []
    package var tracks: [String: Int] = [:]
    /// Scores under this come last.
    package var poorBelow = 0.0
    package var perTrack = 1

    package init(poorBelow: Double, perTrack: Int) {
        (self.poorBelow, self.perTrack) = (poorBelow, perTrack)
    }

    package static let unknownDate = "unknown"

    package func key(_ entry: PickChooser.Entry) -> (Int, Int, Int, Int, Double, Int) {
        let candidate = entry.candidate
        return (
            entry.score < poorBelow ? 1 : 0, bins[entry.bin, default: 0], years[candidate.year ?? Self.unknownDate, default: 0],
            days[candidate.day ?? Self.unknownDate, default: 0], -entry.score, candidate.number
        )
    }

    /// Whether `a` comes before `b`.
    package func before(_ a: PickChooser.Entry, _ b: PickChooser.Entry) -> Bool { key(a) < key(b) }

    /// Whether the limits still allow the crop: one per photo, `perTrack`
    /// per video track.
    package func allows(_ entry: PickChooser.Entry) -> Bool {
        if let track = Self.track(entry.candidate) { return tracks[track, default: 0] < perTrack }
        return !photos.contains(entry.candidate.photoKey)
    }

    package static func track(_ candidate: PickCandidate) -> String? {
        candidate.track.map { candidate.photoKey + "\u{0}\($0)" }
    }

    package mutating func add(_ entry: PickChooser.Entry) {
        bins[entry.bin, default: 0] += 1
        years[entry.candidate.year ?? Self.unknownDate, default: 0] += 1
        days[entry.candidate.day ?? Self.unknownDate, default: 0] += 1
        if let track = Self.track(entry.candidate) {
            tracks[track, default: 0] += 1
        } else {
            photos.insert(entry.candidate.photoKey)
        }
    }
}
