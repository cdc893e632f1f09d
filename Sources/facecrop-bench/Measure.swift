import Foundation

/// Seconds in a `Duration`.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// This process's CPU time so far (user and system), in seconds.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// This process's peak resident memory so far (VmHWM), in MB.
func peakMB() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.map { $0.split(separator: " ")[1] } ?? "0"
    return (Int(peak) ?? 0) / 1024
}

/// `body`'s result, with the wall and CPU seconds it took.
func timed<T>(_ body: () throws -> T) rethrows -> (result: T, wall: Double, cpu: Double) {
    let cpu = cpuSeconds()
    let clock = ContinuousClock.now
    let result = try body()
    return (result, seconds(ContinuousClock.now - clock), cpuSeconds() - cpu)
}
