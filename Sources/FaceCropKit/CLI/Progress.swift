import Foundation
import Synchronization

/// The only writer to stderr while photos are processed: a progress bar
/// (only on a terminal, redrawn at most 10 times a second) and the per-photo
/// error lines, which are printed above the bar.
actor Progress {
    private let total: Int
    private let showBar: Bool
    private let started = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var done = 0
    private var faces = 0
    private var barShown = false
    /// Names already said to name no person (once a run each).
    private var warnedNames: Set<String> = []

    init(total: Int, showBar: Bool) {
        self.total = total
        self.showBar = showBar
    }

    func record(_ record: PhotoRecord) {
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
    func say(_ line: String) {
        clear()
        Terminal.stderr(line + "\n")
        draw(force: true)
    }

    func finish() {
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

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `[#######-------]  120/450 photos  88 faces  6.1/s  ETA 0:54`
    static func bar(done: Int, total: Int, faces: Int, elapsed: Double, width: Int) -> String {
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : nil
        let text = " \(done)/\(total) photos  \(faces) faces  \(String(format: "%.1f", rate))/s  ETA \(eta.map(clock) ?? "--:--")"
        let barWidth = max(10, min(40, width - text.count - 3))
        let filled = total > 0 ? barWidth * done / total : barWidth
        return "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: barWidth - filled) + "]" + text
    }

    static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
            : String(format: "%d:%02d", s / 60, s % 60)
    }
}

enum Terminal {
    static func stderr(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { writeFully(2, $0) }
    }

    /// Writes to stdout. When its reader has gone (`facecrop --dry-run |
    /// head`, EPIPE with SIGPIPE ignored) or it cannot be written, the rest
    /// of the output is dropped and the command goes on to its end: what it
    /// writes to the dataset and its exit status do not depend on who reads
    /// the report. (Foundation's FileHandle.write stops the process there.)
    static func stdout(_ text: String) {
        guard !stdoutGone.load(ordering: .relaxed) else { return }
        let failed = Array(text.utf8).withUnsafeBytes { writeFully(1, $0) }
        if failed != 0 { stdoutGone.store(true, ordering: .relaxed) }
    }

    private static let stdoutGone = Atomic<Bool>(false)

    static var stderrIsTerminal: Bool { isatty(2) == 1 }

    static var columns: Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
