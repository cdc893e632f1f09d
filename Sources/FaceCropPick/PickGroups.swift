/// Which of a pool of crops are one moment: near-duplicates count once in a
/// pick. (Two faces of one photo, or frames of one video track, are kept
/// apart by `PickChooser`'s limits instead, so that a group photo does not
/// chain the near-duplicates of its faces together.) Two crops are one group when
/// - `--dedup`'s rule joins them at its default distance
///   (`Dedup.keepers`, through the same hash index): crops whose perceptual
///   hashes are close, or faces at the same place in alike photos;
/// - their descriptors (`--people`) are at most `copyDistance` apart: the
///   same face in a copy of a photo (blurred, darkened, resized, recompressed
///   or cut a little differently);
/// - they were taken at most `burstSeconds` apart and their descriptors are
///   at most `burstDistance` apart (the same person a moment later), or,
///   without descriptors, their photos' hashes are as close as `--dedup`
///   allows at the same place: one burst.
/// Groups are the connected parts, so they do not depend on the order.
import FaceCropCurate

package enum PickGroups {
    /// Measured with dlib's descriptors on the people dev set and copies of
    /// 6 of its photos made with ffmpeg (blur sigma 1.5, brightness -0.25,
    /// half size, JPEG q 25, 95 % crop): a copy was at most 0.239 from its
    /// photo, another photo of the same person at least 0.324.
    package static let copyDistance: Float = 0.28
    /// One person (dlib's own limit is 0.6; same-person pairs of that set:
    /// median 0.41).
    package static let burstDistance: Float = 0.45
    package static let burstSeconds = 5

    /// The group of each crop of `pool`: the index of its group's first
    /// member in `pool`.
    package static func groups(_ pool: [PickCandidate], descriptors: PickDescriptors?) -> [Int] {
        var groups = UnionFind(count: pool.count)
        joinHashes(pool, &groups)
        joinDescriptors(pool, descriptors, &groups)
        joinBursts(pool, descriptors, &groups)
        return pool.indices.map { groups.root($0) }
    }

    /// `--dedup`'s rule at its default distance, over the crops with a hash.
    private static func joinHashes(_ pool: [PickCandidate], _ groups: inout UnionFind) {
        let hashed = pool.indices.filter { pool[$0].phash != nil }
        let faces = hashed.map { index in
            let candidate = pool[index]
            return DedupFace(
                hash: candidate.phash!, sharpness: candidate.sharpness, area: candidate.box.area,
                photo: candidate.photoHash, place: place(candidate))
        }
        for (position, kept) in Dedup.keepers(faces, threshold: Dedup.defaultThreshold).enumerated() {
            if let kept { groups.join(hashed[position], hashed[kept]) }
        }
    }

    /// The box as fractions of the photo (x0, y0, x1, y1), as `--dedup` has it.
    package static func place(_ candidate: PickCandidate) -> SIMD4<Float>? {
        guard let width = candidate.width, let height = candidate.height, width > 0, height > 0 else { return nil }
        let (w, h) = (Float(width), Float(height))
        let box = candidate.box
        return SIMD4(Float(box.x) / w, Float(box.y) / h, Float(box.x + box.width) / w, Float(box.y + box.height) / h)
    }

    /// Copies by descriptor: compared within each person only (every pair
    /// of one person's faces; a face of no person is compared with none).
    private static func joinDescriptors(_ pool: [PickCandidate], _ descriptors: PickDescriptors?, _ groups: inout UnionFind) {
        guard let descriptors else { return }
        var byPerson: [String: [(index: Int, row: Int)]] = [:]
        for (index, candidate) in pool.enumerated() {
            if let person = candidate.person, let row = candidate.embedding { byPerson[person, default: []].append((index, row)) }
        }
        for members in byPerson.values {
            for (i, a) in members.enumerated() {
                for b in members[(i + 1)...] where descriptors.within(copyDistance, a.row, b.row) {
                    groups.join(a.index, b.index)
                }
            }
        }
    }

    /// Bursts: crops taken at most `burstSeconds` apart (by the clock in
    /// `taken`), of one person by descriptor, or without descriptors of
    /// alike photos at the same place.
    private static func joinBursts(_ pool: [PickCandidate], _ descriptors: PickDescriptors?, _ groups: inout UnionFind) {
        let timed = pool.indices.compactMap { index in pool[index].taken.flatMap(seconds).map { (time: $0, index: index) } }
            .sorted { ($0.time, $0.index) < ($1.time, $1.index) }
        for (position, a) in timed.enumerated() {
            for b in timed[(position + 1)...] {
                if b.time - a.time > burstSeconds { break }
                if oneBurst(pool[a.index], pool[b.index], descriptors) { groups.join(a.index, b.index) }
            }
        }
    }

    private static func oneBurst(_ a: PickCandidate, _ b: PickCandidate, _ descriptors: PickDescriptors?) -> Bool {
        if let descriptors, let x = a.embedding, let y = b.embedding, max(x, y) < descriptors.rows {
            return descriptors.within(burstDistance, x, y)
        }
        guard let p = a.photoHash, let q = b.photoHash, let s = place(a), let t = place(b) else { return false }
        return p.distance(to: q) <= Dedup.defaultThreshold && DedupFace.overlap(s, t) >= 0.5
    }

    /// `YYYY-MM-DDTHH:MM:SS` as seconds (days from the civil calendar; the
    /// offset is left out: a burst is one camera's clock).
    package static func seconds(_ taken: String) -> Int? {
        let digits = Array(taken.utf8.prefix(19))
        guard digits.count == 19 else { return nil }
        func value(_ from: Int, _ count: Int) -> Int? {
            var result = 0
            for byte in digits[from..<(from + count)] {
                guard (48...57).contains(byte) else { return nil }
                result = result * 10 + Int(byte - 48)
            }
            return result
        }
        guard let year = value(0, 4), let month = value(5, 2), let day = value(8, 2), let hour = value(11, 2),
            let minute = value(14, 2), let second = value(17, 2), (1...12).contains(month)
        else { return nil }
        // Howard Hinnant's days_from_civil.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
        return ((days * 24 + hour) * 60 + minute) * 60 + second
    }
}
