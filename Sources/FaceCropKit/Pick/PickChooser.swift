/// One crop chosen, and why.
struct PickChoice: Sendable {
    var candidate: PickCandidate
    var score: Double
    var scoreSource: PickScore.Source
    var bin: PoseBin
    /// The other crops of its group (near-duplicates), by dataset crop number.
    var others: [Int]
    /// Sentences for pick.json.
    var why: [String]
}

/// Chooses N crops from a pool: one per group of near-duplicates (its best
/// by score), then, one at a time, the crop whose pose bin has been used
/// least, then whose capture year, then capture day, has been used least,
/// then the best score, then the first in manifest order. So every bin the
/// pool has is used before any bin is used twice, and within that every
/// year before any year twice; the score decides only between crops that
/// are equally new. A crop scoring under half the median of the pool's
/// (`poorShare`) comes only after every other: a new bin or year is not
/// worth a blurred, tiny face. The same pool always gives the same choice.
enum PickChooser {
    struct Entry {
        var candidate: PickCandidate
        var score: Double
        var source: PickScore.Source
        var bin: PoseBin
        var others: [Int]
    }

    static func choose(
        _ pool: [PickCandidate], groups: [Int], scores: PickScore, count: Int, perTrack: Int
    ) -> [PickChoice] {
        var remaining = representatives(pool, groups: groups, scores: scores)
        var used = Usage(poorBelow: poorShare * median(remaining.map(\.score)))
        var chosen: [PickChoice] = []
        while chosen.count < count {
            var best: Int?
            for (index, entry) in remaining.enumerated() where used.allows(entry, perTrack: perTrack) {
                if let current = best, !used.before(entry, remaining[current]) { continue }
                best = index
            }
            guard let best else { break }
            let entry = remaining.remove(at: best)
            chosen.append(
                PickChoice(
                    candidate: entry.candidate, score: entry.score, scoreSource: entry.source, bin: entry.bin,
                    others: entry.others, why: used.reasons(entry)))
            used.add(entry)
        }
        return chosen
    }

    static let poorShare = 0.5

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
    }

    /// Each group's best crop (score, then manifest order), with the others' numbers.
    static func representatives(_ pool: [PickCandidate], groups: [Int], scores: PickScore) -> [Entry] {
        var best: [Int: Entry] = [:]
        var members: [Int: [Int]] = [:]
        for (index, candidate) in pool.enumerated() {
            let (score, source) = scores.score(candidate)
            let entry = Entry(candidate: candidate, score: score, source: source, bin: PoseBin(candidate.pose), others: [])
            members[groups[index], default: []].append(candidate.number)
            if let current = best[groups[index]],
                (current.score, -current.candidate.number) >= (score, -candidate.number)
            {
                continue
            }
            best[groups[index]] = entry
        }
        return best.map { group, entry in
            var entry = entry
            entry.others = members[group]!.filter { $0 != entry.candidate.number }.sorted()
            return entry
        }.sorted { $0.candidate.number < $1.candidate.number }
    }
}

/// What a pick has used so far: crops per pose bin, year, day and track.
struct Usage {
    var bins: [PoseBin: Int] = [:]
    var years: [String: Int] = [:]
    var days: [String: Int] = [:]
    var tracks: [String: Int] = [:]
    /// Scores under this come last.
    var poorBelow = 0.0

    static let unknownDate = "unknown"

    func key(_ entry: PickChooser.Entry) -> (Int, Int, Int, Int, Double, Int) {
        let candidate = entry.candidate
        return (
            entry.score < poorBelow ? 1 : 0, bins[entry.bin, default: 0], years[candidate.year ?? Self.unknownDate, default: 0],
            days[candidate.day ?? Self.unknownDate, default: 0], -entry.score, candidate.number
        )
    }

    /// Whether `a` comes before `b`.
    func before(_ a: PickChooser.Entry, _ b: PickChooser.Entry) -> Bool { key(a) < key(b) }

    func allows(_ entry: PickChooser.Entry, perTrack: Int) -> Bool {
        guard let track = Self.track(entry.candidate) else { return true }
        return tracks[track, default: 0] < perTrack
    }

    static func track(_ candidate: PickCandidate) -> String? {
        candidate.track.map { candidate.photoKey + "\u{0}\($0)" }
    }

    mutating func add(_ entry: PickChooser.Entry) {
        bins[entry.bin, default: 0] += 1
        years[entry.candidate.year ?? Self.unknownDate, default: 0] += 1
        days[entry.candidate.day ?? Self.unknownDate, default: 0] += 1
        if let track = Self.track(entry.candidate) { tracks[track, default: 0] += 1 }
    }

    /// Why `entry` is the next choice, before it is added.
    func reasons(_ entry: PickChooser.Entry) -> [String] {
        let bin = entry.bin.rawValue
        var why: [String] = []
        let binUses = bins[entry.bin, default: 0]
        if entry.bin == .unknown {
            why.append("pose not known (a dataset made before pose)")
        } else {
            why.append(binUses == 0 ? "first crop in pose bin \(bin)" : "pose bin \(bin) again (\(binUses + 1) uses): every bin left was used as often")
        }
        if let year = entry.candidate.year {
            let uses = years[year, default: 0]
            why.append(uses == 0 ? "first crop from \(year)" : "\(year) again (\(uses + 1) uses)")
        } else {
            why.append("capture date not known")
        }
        why.append("best score among the equally new (\(entry.score), \(entry.source.rawValue))")
        if entry.score < poorBelow { why.append("score under half the median (\(PickJSON.decimal(poorBelow, places: 4))): taken after every better crop") }
        if !entry.others.isEmpty {
            why.append("stands for \(entry.others.count) near-duplicate\(entry.others.count == 1 ? "" : "s") set aside")
        }
        return why
    }
}
