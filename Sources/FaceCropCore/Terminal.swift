import Foundation
import Synchronization

package enum Terminal {
    package static func stderr(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { writeFully(2, $0) }
    }

    /// Writes to stdout. When its reader has gone (`facecrop --dry-run |
    /// head`, EPIPE with SIGPIPE ignored) or it cannot be written, the rest
    /// of the output is dropped and the command goes on to its end: what it
    /// writes to the dataset and its exit status do not depend on who reads
    /// the report. (Foundation's FileHandle.write stops the process there.)
    package static func stdout(_ text: String) {
        guard !stdoutGone.load(ordering: .relaxed) else { return }
        let failed = Array(text.utf8).withUnsafeBytes { writeFully(1, $0) }
        if failed != 0 { stdoutGone.store(true, ordering: .relaxed) }
    }

    private static let stdoutGone = Atomic<Bool>(false)

    package static var stderrIsTerminal: Bool { isatty(2) == 1 }

    package static var columns: Int {
        var size = winsize()
        if ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
