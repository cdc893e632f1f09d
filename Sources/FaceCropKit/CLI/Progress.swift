import Foundation
import Synchronization
import FaceCropCore

/// The only writer to stderr while photos are processed: a progress bar
/// (only on a terminal, redrawn at most 10 times a second) and the per-photo
/// error lines, which are printed above the bar.
package actor Progress {
    private let total: Int
    private let showBar: Bool
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var done = 0
    private var faces = 0
    private var barShown = false
    /// Names already said to name no person (once a run each).
    private var warnedNames: Set<String> = []

    package init(total: Int, showBar: Bool) {
        (self.total, self.showBar) = (total, showBar)
    }

    package func record(_ record: PhotoRecord) {
        done += 1
        faces += record.faceCount
        if let error = record.error {
            say("facecrop: error: \(error.description)")
        }
        for warning in record.warnings { say("facecrop: warning: \(warning)") }
        for warning in record.nameWarnings where warnedNames.insert(warning.name).inserted {
            say("facecrop: warning: \(warning.text)")
        }
        draw(force: done == total)
    }

    /// Prints a line above the bar.
    package func say(_ line: String) {
        clear()
        Terminal.stderr(line + "\n")
        draw(force: true)
    }

    package func finish() {
        clear()
    }

    private func clear() {
        if barShown {
            Terminal.stderr("\r\u{1B}[2K")
            barShown = false
        }
    }

    private func draw(force: Bool) {
        guard showBar else { return }
        let now = ContinuousClock.now
        if !force, let lastDraw, now - lastDraw < .milliseconds(100) { return }
        lastDraw = now
        let elapsed = Self.seconds(now - started)
        Terminal.stderr("\r\u{1B}[2K" + Self.bar(done: done, total: total, faces: faces, elapsed: elapsed, width: Terminal.columns))
        barShown = true
    }

    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `[#######-------]  120/450 photos  88 faces  6.1/s  ETA 0:54`
    package static func bar(done: Int, total: Int, faces: Int, elapsed: Double, width: Int) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : nil
        let text = " \(done)/\(total) photos  \(faces) faces  \(String(format: "%.1f", rate))/s  ETA \(eta.map(clock) ?? "--:--")"
        let barWidth = max(10, min(40, width - text.count - 3))
        let filled = total > 0 ? barWidth * done / total : barWidth
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]" + text
    }

    package static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }
}
