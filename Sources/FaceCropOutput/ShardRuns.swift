import Foundation
import FaceCropCore

/// What `merge` reports as the run in stats.json: the shards' runs, read from
/// their `stats.shard-K-of-N.json`, not the merge's own few milliseconds.
package struct ShardRuns {
    package var shards = 0
    /// The photos of the merged dataset.
    package var photos = 0
    /// The shards' processing times, added up (CPU-side cost of the run).
    package var processing = 0.0
    /// Earliest start and latest finish of a shard (seconds since 1970).
    package var started: Double?
    package var finished: Double?
    package var jobs = 0
    package var processed = 0
    package var reused = 0
    package var removed = 0
    /// The merge's own time.
    package var merge = 0.0

    /// Adds one shard's run section; a shard whose stats file cannot be read
    /// adds nothing but its count (`shards` then exceeds the runs read).
    package mutating func add(statsAt path: String) {
        shards += 1
        guard let stats = JSONReading.object(atPath: path),
            let run = stats["run"] as? [String: Any]
        else { return }
        func number(_ key: String) -> Double? { (run[key] as? NSNumber)?.doubleValue }
        processing += number("elapsed_s") ?? 0
        jobs += Int(number("jobs") ?? 0)
        processed += Int(number("processed") ?? 0)
        reused += Int(number("reused") ?? 0)
        removed += Int(number("removed_crops") ?? 0)
        if let start = number("started") { started = min(started ?? start, start) }
        if let end = number("finished") { finished = max(finished ?? end, end) }
    }

    /// From the first shard's start to the last one's finish; the summed
    /// processing time when the shards did not record their times.
    package var wall: Double {
        guard let started, let finished, finished >= started else { return processing }
        return finished - started
    }

    package var members: [(String, JSON)] {
        var members: [(String, JSON)] = [
            ("elapsed_s", Stats.rounded(wall, 3)),
            ("photos_per_s", Stats.rounded(wall > 0 ? Double(photos) / wall : 0, 2)),
            ("jobs", .int(jobs)),
            ("processed", .int(processed)),
            ("reused", .int(reused)),
            ("removed_crops", .int(removed)),
        ]
        if let started, let finished {
            members += [("started", Stats.rounded(started, 3)), ("finished", Stats.rounded(finished, 3))]
        }
        members += [
            ("shards", .int(shards)),
            ("processing_s", Stats.rounded(processing, 3)),
            ("merge_s", Stats.rounded(merge, 3)),
        ]
        return members
    }

    package var summary: String {
        String(format: "%.1f s from the first shard's start to the last one's finish, %.1f s of processing, merged in %.1f s", wall, processing, merge)
    }

    package init(shards: Int = 0, photos: Int = 0, processing: Double = 0.0, started: Double? = nil,
        finished: Double? = nil, jobs: Int = 0, processed: Int = 0, reused: Int = 0, removed: Int = 0,
        merge: Double = 0.0) {
        (self.shards, self.photos, self.processing, self.started) = (shards, photos, processing, started)
        (self.finished, self.jobs, self.processed, self.reused) = (finished, jobs, processed, reused)
        (self.removed, self.merge) = (removed, merge)
    }
}
