import Foundation
import Synchronization

/// Set from a signal handler to ask the run to stop taking new photos.
public final class StopRequest: Sendable {
    private let signal = Atomic<Int32>(0)

    public init() {}

    /// Records the first stop signal; returns false if one was already recorded.
    @discardableResult
    public func request(signal number: Int32) -> Bool {
        signal.compareExchange(expected: 0, desired: number, ordering: .relaxed).exchanged
    }

    public var requested: Int32? {
        let value = signal.load(ordering: .relaxed)
        return value == 0 ? nil : value
    }
}

/// One thing to report, in manifest order.
enum WorkItem: Sendable {
    /// A photo to process; `previous` is an earlier record to keep if the content is unchanged.
    case photo(Photo, previous: PhotoRecord?)
    /// A photo unchanged since the last run: its record is kept as it is.
    case kept(PhotoRecord)
    /// A problem the walk found.
    case problem(FindProblem)

    var key: (Int, String) {
        switch self {
        case .photo(let photo, _): (photo.inputIndex, photo.source)
        case .kept(let record): (record.input, record.source)
        case .problem(let problem): (problem.inputIndex, problem.source)
        }
    }
}

/// Processes photos with `jobs` workers, a bounded window: a photo is started
/// only when a worker is free, so at most `jobs` photos are decoded at any
/// moment whatever the library's size. Each worker owns one detector (all its OpenCV handles), handed
/// from a finished task to the next. Records are delivered to `deliver` in
/// manifest order through a reorder buffer that only ever holds records
/// that finished ahead of a slower photo.
struct Pipeline {
    /// What a worker does with a photo (and its earlier record, if any).
    var work: @Sendable (Photo, PhotoRecord?, Detector) -> PhotoRecord
    var detectors: [Detector]
    var stop: StopRequest

    private struct Finished: Sendable {
        var index: Int
        var record: PhotoRecord
        var detector: Detector
    }

    /// Returns false if it stopped early (a stop request, or `deliver` said stop).
    /// `deliver`'s second argument tells whether the record was kept from before.
    func run(_ items: [WorkItem], deliver: (PhotoRecord, Bool) async -> Bool) async -> Bool {
        let executor = BlockingExecutor()
        var next = 0
        var delivered = 0
        var waiting: [Int: PhotoRecord] = [:]
        var keepGoing = true

        // Finished photos, kept records and problems, in order.
        func drain() async {
            while keepGoing {
                if let record = waiting.removeValue(forKey: delivered) {
                    keepGoing = await deliver(record, false)
                } else if delivered < next, case .kept(let record) = items[delivered] {
                    keepGoing = await deliver(record, true)
                } else if delivered < next, case .problem(let problem) = items[delivered] {
                    keepGoing = await deliver(PhotoRecord(problem), false)
                } else {
                    return
                }
                delivered += 1
            }
        }

        await withTaskGroup(of: Finished.self) { group in
            var idle = detectors
            func startWork() {
                while keepGoing, stop.requested == nil, next < items.count {
                    guard case .photo(let photo, let previous) = items[next] else {
                        next += 1
                        continue
                    }
                    guard let detector = idle.popLast() else { return }
                    let index = next
                    let work = self.work
                    group.addTask(executorPreference: executor) {
                        Finished(index: index, record: work(photo, previous, detector), detector: detector)
                    }
                    next += 1
                }
            }
            startWork()
            await drain()
            while let finished = await group.next() {
                idle.append(finished.detector)
                waiting[finished.index] = finished.record
                startWork()
                await drain()
            }
        }
        await drain()
        return keepGoing && delivered == items.count
    }
}
