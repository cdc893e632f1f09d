import Dispatch
import Foundation
import FaceCropCore

/// SIGINT and SIGTERM, handled on a Dispatch queue (not in a signal handler,
/// so the handler may take locks). The first asks the run to stop taking new
/// photos and let the ones in flight finish; a second removes the files being
/// written and exits at once. Owned by main; the handlers capture only Sendable values.
public final class StopSignals {
    private let sources: [any DispatchSourceSignal]

    public init(stop: StopRequest, temporaries: TemporaryFiles) {
        // Writing to a closed pipe (`facecrop ... | head`) must be an error
        // return, not a silent death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // Past a file-size limit (ulimit -f), a write must fail with EFBIG
        // and be reported like a full disk, not kill the process.
        signal(SIGXFSZ, SIG_IGN)
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { @Sendable in
                if !stop.request(signal: number) {
                    temporaries.removeAll()
                    _exit(number == SIGTERM ? ExitStatus.terminated : ExitStatus.interrupted)
                }
                Terminal.stderr("\nfacecrop: stopping after the photos in progress (press Ctrl-C again to quit now)\n")
            }
            source.resume()
            return source
        }
    }
}
