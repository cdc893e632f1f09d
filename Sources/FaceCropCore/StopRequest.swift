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
