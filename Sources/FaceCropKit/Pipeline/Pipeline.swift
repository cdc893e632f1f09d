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

/// Counts for stats.json and the summary line.
public struct RunCounts: Sendable, Equatable {
    public var photos = 0
    public var ok = 0
    public var noFace = 0
    public var errors = 0
    public var faces = 0

    mutating func add(_ outcome: PhotoOutcome) {
        photos += 1
        faces += outcome.faces.count
        switch outcome.status {
        case .ok: ok += 1
        case .noFace: noFace += 1
        case .error: errors += 1
        }
    }
}

/// One thing to report, in manifest order: a photo to process, or a problem
/// the walk already found.
enum WorkItem: Sendable {
    case photo(Photo)
    case problem(FindProblem)

    var key: (Int, String) {
        switch self {
        case .photo(let photo): (photo.input, photo.source)
        case .problem(let problem): (problem.input, problem.source)
        }
    }
}

/// Processes photos with `jobs` workers, a bounded window: a photo is started
/// only when a worker is free, so at most `jobs` photos are decoded at any
/// moment whatever the library's size. Each worker owns one cascade, handed
/// from a finished task to the next. Outcomes are delivered to `deliver` in
/// manifest order through a reorder buffer that only ever holds outcomes
/// that finished ahead of a slower one.
struct Pipeline {
    var processor: PhotoProcessor
    var cascades: [Cascade]
    var stop: StopRequest

    private struct Finished: Sendable {
        var index: Int
        var outcome: PhotoOutcome
        var cascade: Cascade
    }

    /// Returns false if it stopped early (a stop request, or `deliver` failed).
    func run(_ items: [WorkItem], deliver: (PhotoOutcome) async -> Bool) async -> Bool {
        let executor = BlockingExecutor()
        var next = 0
        var delivered = 0
        var waiting: [Int: PhotoOutcome] = [:]
        var keepGoing = true

        // Problems found by the walk and finished photos, in order.
        func drain() async {
            while keepGoing {
                if let outcome = waiting.removeValue(forKey: delivered) {
                    keepGoing = await deliver(outcome)
                    delivered += 1
                } else if delivered < next, case .problem(let problem) = items[delivered] {
                    let outcome = PhotoOutcome(
                        input: problem.input, source: problem.source, status: .error,
                        error: .unreadable(problem.source, reason: problem.reason))
                    keepGoing = await deliver(outcome)
                    delivered += 1
                } else {
                    return
                }
            }
        }

        await withTaskGroup(of: Finished.self) { group in
            var idle = cascades
            func startWork() {
                while keepGoing, stop.requested == nil, next < items.count {
                    switch items[next] {
                    case .problem:
                        next += 1
                    case .photo(let photo):
                        guard let cascade = idle.popLast() else { return }
                        let index = next
                        let processor = self.processor
                        group.addTask(executorPreference: executor) {
                            Finished(index: index, outcome: processor.process(photo, with: cascade), cascade: cascade)
                        }
                        next += 1
                    }
                }
            }
            startWork()
            await drain()
            while let finished = await group.next() {
                idle.append(finished.cascade)
                waiting[finished.index] = finished.outcome
                startWork()
                await drain()
            }
        }
        await drain()
        return keepGoing && delivered == items.count
    }
}
