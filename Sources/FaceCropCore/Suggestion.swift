/// "Did you mean": the known words nearest to one a user mistyped (an
/// option, a subcommand, a person's name), for a usage error to offer.
///
/// Nearness is the optimal-string-alignment distance (Damerau–Levenshtein
/// where a letter added, dropped or changed, or two neighbours swapped, each
/// count 1), ignoring case. A known word is offered when it is at most 1 away
/// from a typed word of 3 or 4 letters (dashes not counted) and at most 2 away
/// from a longer one (`--jbos` → `--jobs`, `--detecter` → `--detector`,
/// `peple` → `people`); a word of 1 or 2 letters is too short to guess from.
/// Failing that, a typed word of 3 or more letters that begins exactly one
/// known word is offered that word (`--no-vid` → `--no-videos`). Only the
/// nearest words are offered, at most three, in the order they are known:
/// the same answer on every run.
package enum Suggestion {
    /// The words of `known` nearest to `typed` (leading dashes compared as
    /// letters), at most three, best first then in `known`'s order.
    package static func nearest(to typed: String, among known: [String]) -> [String] {
        let word = Array(typed.lowercased())
        let letters = word.count - leadingDashes(word)
        guard letters >= 3 else { return [] }
        let limit = letters <= 4 ? 1 : 2
        var best: [(distance: Int, word: String)] = []
        for candidate in known where candidate != typed {
            let distance = self.distance(word, Array(candidate.lowercased()))
            if distance <= limit { best.append((distance, candidate)) }
        }
        if best.isEmpty {
            let starts = known.filter { $0.lowercased().hasPrefix(typed.lowercased()) }
            if starts.count == 1 { return starts }
        }
        guard let smallest = best.map(\.distance).min() else { return [] }
        var seen: Set<String> = []
        return Array(best.filter { $0.distance == smallest }.map(\.word).filter { seen.insert($0).inserted }.prefix(3))
    }

    /// `; did you mean 'a'?`, `; did you mean 'a' or 'b'?`, or nothing.
    package static func clause(for typed: String, among known: [String]) -> String {
        let words = nearest(to: typed, among: known).map { "'\($0)'" }
        guard let last = words.last else { return "" }
        let list = words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
        return "; did you mean \(list)?"
    }

    private static func leadingDashes(_ word: [Character]) -> Int {
        word.prefix { $0 == "-" }.count
    }

    /// The optimal-string-alignment distance between `a` and `b`.
    package static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, before[j - 2] + 1)
                }
                current[j] = value
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
