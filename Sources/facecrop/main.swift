import Dispatch
import FaceCropKit
import Foundation

// Writing to a closed pipe (e.g. `facecrop ... | head`) must be an error
// return, not a silent SIGPIPE death.
signal(SIGPIPE, SIG_IGN)

let stop = StopRequest()
let temporaries = TemporaryFiles()

// First SIGINT/SIGTERM: stop taking new photos, let the ones in flight
// finish, write the manifest. A second one: remove partial files, exit now.
var handlers: [DispatchSourceSignal] = []
for number in [SIGINT, SIGTERM] {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler {
        if !stop.request(signal: number) {
            temporaries.removeAll()
            _exit(number == SIGTERM ? 143 : 130)
        }
        let text = "\nfacecrop: stopping after the photos in progress (press Ctrl-C again to quit now)\n"
        _ = text.withCString { write(2, $0, strlen($0)) }
    }
    source.resume()
    handlers.append(source)
}

let status = await FaceCropCommand.run(
    arguments: Array(CommandLine.arguments.dropFirst()), stop: stop, temporaries: temporaries)
exit(status)
