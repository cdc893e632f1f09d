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

    /// Items taken from the plan but not yet delivered, at most: kept
    /// records between two photos to process are delivered in order, so
    /// this bounds what a run of kept records can hold.
    static let window = 256

    /// Returns false if it stopped early (a stop request, or `deliver` said stop).
    /// `deliver`'s second argument tells whether the record was kept from before.
    /// Items are taken from `items` only as the window allows.
    func run(_ items: inout some IteratorProtocol<WorkItem>, deliver: (PhotoRecord, Bool) async -> Bool) async -> Bool {
        let executor = BlockingExecutor()
        // Taken and not delivered, in order; `first` is the index of window[0].
        var window: [WorkItem] = []
        var first = 0
        var waiting: [Int: PhotoRecord] = [:]
        var keepGoing = true
        var exhausted = false

        // Finished photos, kept records and problems, in order.
        func drain() async {
            while keepGoing, !window.isEmpty {
                if let record = waiting.removeValue(forKey: first) {
                    keepGoing = await deliver(record, false)
                } else if case .kept(let record) = window[0] {
                    keepGoing = await deliver(record, true)
                } else if case .problem(let problem) = window[0] {
                    keepGoing = await deliver(PhotoRecord(problem), false)
                } else {
                    return
                }
                window.removeFirst()
                first += 1
            }
        }

        await withTaskGroup(of: Finished.self) { group in
            var idle = detectors
            var running = 0
            // Takes items while a worker is free for the next photo and the window has room.
            func startWork() {
                while keepGoing, stop.requested == nil, !exhausted, window.count < Self.window, !idle.isEmpty {
                    guard let item = items.next() else {
                        exhausted = true
                        return
                    }
                    window.append(item)
                    guard case .photo(let photo, let previous) = item else { continue }
                    let detector = idle.removeLast()
                    let index = first + window.count - 1
                    let work = self.work
                    running += 1
                    group.addTask(executorPreference: executor) {
                        Finished(index: index, record: work(photo, previous, detector), detector: detector)
                    }
                }
            }
            while true {
                startWork()
                await drain()
                if running == 0 {
                    // Nothing in flight: go on only if draining made room.
                    guard keepGoing, stop.requested == nil, !exhausted, window.count < Self.window else { break }
                    continue
                }
                guard let finished = await group.next() else { break }
                running -= 1
                idle.append(finished.detector)
                waiting[finished.index] = finished.record
            }
        }
        await drain()
        return keepGoing && exhausted && window.isEmpty
    }
}
