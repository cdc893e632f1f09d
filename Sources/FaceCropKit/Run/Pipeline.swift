import Foundation
import Synchronization
import FaceCropCore
import FaceCropDetect

/// One thing to report, in manifest order.
package enum WorkItem: Sendable {
    /// A photo to process; `previous` is an earlier record to keep if the content is unchanged.
    case photo(Photo, previous: PhotoRecord?)
    /// A photo unchanged since the last run: its record is kept as it is.
    case kept(PhotoRecord)
    /// A problem the walk found.
    case problem(FindProblem)

    package var key: (Int, String) {
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
package struct Pipeline {
    /// What a worker does with a photo (and its earlier record, if any).
    package var work: @Sendable (Photo, PhotoRecord?, Detector) -> PhotoRecord
    package var detectors: [Detector]
    package var stop: StopRequest

    package init(work: @escaping @Sendable (Photo, PhotoRecord?, Detector) -> PhotoRecord, detectors: [Detector], stop: StopRequest) {
        self.work = work
        self.detectors = detectors
        self.stop = stop
    }

    private struct Finished: Sendable {
        var index: Int
        var record: PhotoRecord
        var detector: Detector
    }

    /// Items taken from the plan but not yet delivered, at most: kept
    /// records between two photos to process are delivered in order, so
    /// this bounds what a run of kept records can hold.
    package static let window = 256

    /// Returns false if it stopped early (a stop request, or `deliver` said stop).
    /// `deliver`'s second argument tells whether the record was kept from before.
    /// Items are taken from `items` only as the window allows.
    package func run(_ items: inout some IteratorProtocol<WorkItem>, deliver: (PhotoRecord, Bool) async -> Bool) async -> Bool {
        let executor = BlockingExecutor()
        var window = Window()
        await withTaskGroup(of: Finished.self) { group in
            var idle = detectors
            var running = 0
            while true {
                running += start(&items, window: &window, idle: &idle, group: &group, executor: executor)
                await window.drain(deliver)
                if running == 0 {
                    // Nothing in flight: go on only if draining made room.
                    guard window.hasRoom(stop) else { break }
                    continue
                }
                guard let finished = await group.next() else { break }
                running -= 1
                idle.append(finished.detector)
                window.waiting[finished.index] = finished.record
            }
        }
        await window.drain(deliver)
        return window.keepGoing && window.exhausted && window.items.isEmpty
    }

    /// Takes items while a worker is free for the next photo and the window
    /// has room; returns how many photos it started.
    private func start(
        _ items: inout some IteratorProtocol<WorkItem>, window: inout Window, idle: inout [Detector],
        group: inout TaskGroup<Finished>, executor: BlockingExecutor
    ) -> Int {
        var started = 0
        while window.hasRoom(stop), !idle.isEmpty {
            guard let item = items.next() else {
                window.exhausted = true
                break
            }
            window.items.append(item)
            guard case .photo(let photo, let previous) = item else { continue }
            let detector = idle.removeLast()
            let index = window.first + window.items.count - 1
            let work = self.work
            started += 1
            group.addTask(executorPreference: executor) {
                Finished(index: index, record: work(photo, previous, detector), detector: detector)
            }
        }
        return started
    }

    /// Items taken and not yet delivered, in order, and the photos that
    /// finished ahead of a slower one.
    private struct Window {
        var items: [WorkItem] = []
        /// The index of `items[0]`.
        var first = 0
        var waiting: [Int: PhotoRecord] = [:]
        var keepGoing = true
        var exhausted = false

        /// Whether another item may be taken.
        func hasRoom(_ stop: StopRequest) -> Bool {
            keepGoing && stop.requested == nil && !exhausted && items.count < Pipeline.window
        }

        /// Delivers finished photos, kept records and problems, in order.
        mutating func drain(_ deliver: (PhotoRecord, Bool) async -> Bool) async {
            while keepGoing, !items.isEmpty {
                if let record = waiting.removeValue(forKey: first) {
                    keepGoing = await deliver(record, false)
                } else if case .kept(let record) = items[0] {
                    keepGoing = await deliver(record, true)
                } else if case .problem(let problem) = items[0] {
                    keepGoing = await deliver(PhotoRecord(problem), false)
                } else {
                    return
                }
                items.removeFirst()
                first += 1
            }
        }
    }
}
